import {
  type Attributes,
  type Context,
  context,
  type Link,
  type Span,
  SpanKind,
  trace,
} from "@opentelemetry/api";
import { McpkitError } from "../jsonrpc/errors.js";
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../jsonrpc/message.js";
import { MODERN_VERSION } from "../protocol/versions.js";
import {
  type CustomRequestHandler,
  HANDLER_CALLBACKS,
  type PluginCall,
  type PluginClientRequest,
  type PluginHost,
  type PluginIncoming,
  type PluginOutgoing,
  type PluginSendRequest,
  type PluginSession,
  type RequestContext,
  type ServerHandler,
  type ServerPlugin,
} from "../server/index.js";
import { parentOf, withContext } from "./carrier.js";
import { failedIn } from "./logger.js";
import { type ServerInstruments, serverInstruments } from "./metrics.js";
import { type OtelOptions, type Resolved, resolveOtel } from "./options.js";
import { BoundedMap, durationAttributes, recordOutcome, thrownOutcome } from "./outcome.js";
import { Recorders } from "./recorders.js";
import {
  ATTR,
  messageAttributes,
  type Outcome,
  requestIdAttribute,
  responseOutcome,
  resultOutcome,
  spanName,
} from "./semconv.js";

function isThenable(value: unknown): value is Promise<unknown> {
  return (
    value !== null && typeof value === "object" && typeof (value as { then?: unknown }).then === "function"
  );
}

/** The name of the plugin, and the key of its span in `ctx.pluginData`. */
export const OTEL_PLUGIN = "otel";

/** How many task ids and sealed input rounds the plugin remembers, to link later calls to the one that began them. */
const REMEMBERED = 1_024;

/** One request in flight. */
interface Served {
  readonly span: Span;
  /** The context the span was started in; the span's own is made when first needed ({@link contextOf}). */
  readonly parent: Context;
  context?: Context;
  /** When it began, for the histogram; `undefined` when no meter recorded as it began. */
  readonly start: number | undefined;
  /** The message's attributes, for the duration histogram; `undefined` when neither span nor meter records. */
  readonly base: Attributes | undefined;
}

/**
 * OpenTelemetry for a server, as a plugin, following the MCP semantic conventions: a `SERVER` span per request
 * (named `{mcp.method.name} {target}`, its parent the trace context in `params._meta`, a link to the ambient
 * context such as an HTTP server span), a `CLIENT` span per request the server sends (sampling, elicitation,
 * roots, each entry of a 2026 `input_required` result) with the context injected into its `_meta`, trace
 * context injected into every notification of a request, the handler (custom request methods included) run
 * inside its span's context (spans it starts nest; `ctx.pluginData.otel` is the span), a span and a count for a
 * 2026 request refused before `admit`, and the `mcp.server.operation.duration` and
 * `mcp.server.session.duration` histograms. With neither a tracer nor a meter provider (given, or registered
 * globally) it is idle: the server runs none of its request hooks, and it builds nothing; a provider registered
 * later is picked up by the next request.
 *
 * @example
 * import { otelServerPlugin } from "mcpkit/otel";
 * const server = createServer({ serverInfo, handler, plugins: [otelServerPlugin({ networkTransport: "tcp" })] });
 */
export function otelServerPlugin(options?: OtelOptions): ServerPlugin {
  const resolved = resolveOtel(options, "otelServerPlugin");
  return new OtelServerPlugin(resolved);
}

class OtelServerPlugin implements ServerPlugin {
  readonly name = OTEL_PLUGIN;
  private readonly served = new WeakMap<PluginCall, Served>();
  /** When each session opened, and the instruments that counted it (no-op ones before a meter provider). */
  private readonly sessionStarts = new WeakMap<
    PluginSession,
    { readonly start: number; readonly instruments: ServerInstruments }
  >();
  /** Spans whose handler ended by its request's abort (a client's cancellation), with the reason. */
  private readonly aborted = new WeakMap<Span, McpkitError>();
  /** The context a recording span was started under (what `_meta` carried), for its handler. */
  private readonly parents = new WeakMap<Span, Context>();
  /** Task ids and sealed `requestState`s, to the span of the call that made them. */
  private readonly origins = new BoundedMap<string, Span>(REMEMBERED);
  private readonly recorders: Recorders<ServerInstruments>;
  /** The server's host, for the load gauges (observed once a meter provider records). */
  private host: PluginHost | undefined;

  constructor(private readonly o: Resolved) {
    this.recorders = new Recorders(o, (meter) => {
      const made = serverInstruments(meter);
      if (this.host !== undefined) this.observeLoad(made, this.host);
      return made;
    });
  }

  private get instruments(): ServerInstruments {
    return this.recorders.instruments;
  }

  /** Nothing records (no tracer provider, no meter provider): the server skips this plugin's request hooks. */
  idle(): boolean {
    return this.recorders.idle();
  }

  handler(base: ServerHandler): ServerHandler {
    const wrapped: { [key: string]: unknown } = { ...base };
    for (const name of HANDLER_CALLBACKS) {
      const callback = base[name] as ((request: unknown, ctx: RequestContext) => unknown) | undefined;
      if (typeof callback !== "function") continue;
      wrapped[name] = this.inSpan(callback, base);
    }
    return wrapped as ServerHandler;
  }

  /** Custom request methods (the server's, its extensions', the plugins') run inside their span too. */
  customRequest(handler: CustomRequestHandler<never>): CustomRequestHandler<never> {
    return this.inSpan(handler, undefined) as CustomRequestHandler<never>;
  }

  /** `callback`, run inside the context of its request's span (`ctx.pluginData.otel`) when that records. */
  private inSpan<R>(
    callback: (request: R, ctx: RequestContext) => unknown,
    self: unknown,
  ): (request: R, ctx: RequestContext) => unknown {
    return (request, ctx) => {
      const span = ctx.pluginData[OTEL_PLUGIN] as Span | undefined;
      // Nothing records (no provider): the handler runs as it would without the plugin.
      if (span === undefined || !span.isRecording()) return callback.call(self, request, ctx);
      // Under the context extracted from `_meta` (its baggage included), not only the span.
      const parent = this.parents.get(span) ?? context.active();
      return context.with(trace.setSpan(parent, span), () => {
        // What the handler throws is remembered with its span, for otelLogger's "request handler failed".
        try {
          const answer = callback.call(self, request, ctx);
          if (!isThenable(answer)) return answer;
          return answer.then(
            (result: unknown) => this.answered(result, span, ctx),
            (error: unknown) => this.failed(error, span, ctx),
          );
        } catch (error) {
          return this.failed(error, span, ctx);
        }
      });
    };
  }

  /**
   * A handler threw: the error is remembered with its span (for `otelLogger`), and a request its client cancelled
   * (or whose client went away) is marked so, since it gets no response to read that from.
   */
  private failed(error: unknown, span: Span, ctx: RequestContext): never {
    failedIn(error, span.spanContext());
    this.abortOf(span, ctx);
    throw error;
  }

  /** A tool answered `isError` (a builder's tool that threw): was it its request's abort? */
  private answered(result: unknown, span: Span, ctx: RequestContext): unknown {
    if ((result as { isError?: unknown } | null)?.isError === true) this.abortOf(span, ctx);
    return result;
  }

  private queuedAbort(call: PluginCall): McpkitError | undefined {
    const reason = call.signal?.aborted === true ? call.signal.reason : undefined;
    return reason instanceof McpkitError ? reason : undefined;
  }

  private abortOf(span: Span, ctx: RequestContext): void {
    if (ctx.signal.aborted && ctx.signal.reason instanceof McpkitError)
      this.aborted.set(span, ctx.signal.reason);
  }

  admit(call: PluginCall): void {
    // Called while idle only when another plugin is not: nothing kept, so no other hook finds the call.
    if (this.recorders.idle()) return;
    const { tracer, propagator, now } = this.o;
    const ambient = context.active();
    const parent = parentOf(propagator, ambient, call.params);
    const links = this.linksOf(call, ambient, parent);
    const span = tracer.startSpan(
      spanName(call.method, call.params),
      links === undefined ? { kind: SpanKind.SERVER } : { kind: SpanKind.SERVER, links },
      parent,
    );
    // Built only for a span that records or a meter that does: nothing without a provider.
    let base: Attributes | undefined;
    if (span.isRecording()) {
      base = this.baseOf(call.method, call.params, call.era);
      span.setAttributes(base);
      if (this.o.common !== undefined) span.setAttributes(this.o.common);
      const id = requestIdAttribute(call.request.id);
      if (id !== undefined) span.setAttribute(ATTR.requestId, id);
      if (call.session !== undefined) span.setAttribute(ATTR.sessionId, call.session.id);
      if (parent !== ambient) this.parents.set(span, parent);
    } else if (this.instruments.on) base = this.baseOf(call.method, call.params, call.era);
    this.served.set(call, { span, parent, start: this.instruments.on ? now() : undefined, base });
    // A listen has no response to end its span: it covers the opening, and the stream's events are its children.
    if (call.method === "subscriptions/listen") span.end();
  }

  /**
   * A 2026 request refused before `admit` (unknown method, bad `_meta`, unsupported version): a SERVER span of no
   * length with its error, and the refused count by its code.
   */
  refused(response: JsonRpcResponse, request: JsonRpcRequest): void {
    if (this.recorders.idle() || !("error" in response)) return;
    const params = request.params ?? {};
    const ambient = context.active();
    const parent = parentOf(this.o.propagator, ambient, params);
    const span = this.o.tracer.startSpan(spanName(request.method, params), { kind: SpanKind.SERVER }, parent);
    const outcome = responseOutcome(request.method, response as unknown as { [key: string]: unknown });
    if (span.isRecording()) {
      span.setAttributes(this.baseOf(request.method, params, MODERN_VERSION));
      if (this.o.common !== undefined) span.setAttributes(this.o.common);
      const id = requestIdAttribute(request.id);
      if (id !== undefined) span.setAttribute(ATTR.requestId, id);
      if (outcome !== undefined) recordOutcome(span, outcome);
    }
    span.end();
    const code = String(response.error.code);
    const { reason } = (response.error.data ?? {}) as { reason?: unknown };
    this.instruments.refused.add(1, {
      "mcpkit.refusal.reason": typeof reason === "string" ? reason : code,
      [ATTR.methodName]: request.method,
      [ATTR.errorType]: code,
      ...this.o.common,
    });
  }

  context(call: PluginCall): unknown {
    return this.served.get(call)?.span;
  }

  response(response: Parameters<NonNullable<ServerPlugin["response"]>>[0], call: PluginCall): undefined {
    const served = this.served.get(call);
    if (served === undefined) return undefined;
    this.served.delete(call);
    const { span } = served;
    // A call cancelled while it waited for a slot: its handler never ran to mark it.
    const abort = this.aborted.get(span) ?? ("error" in response ? this.queuedAbort(call) : undefined);
    let outcome = responseOutcome(call.method, response as unknown as { [key: string]: unknown });
    if (abort !== undefined) {
      this.aborted.delete(span);
      outcome = thrownOutcome(abort);
      if (span.isRecording()) span.addEvent("mcp.cancelled", { reason: abort.message });
    }
    if (span.isRecording()) {
      if (outcome !== undefined) recordOutcome(span, outcome);
      if ("result" in response) this.remember(span, response.result);
    }
    span.end();
    if (served.base !== undefined && served.start !== undefined) {
      this.instruments.served.record(
        (this.o.now() - served.start) / 1000,
        durationAttributes(served.base, this.o.common, outcome),
      );
    }
    if ("error" in response) this.countRefusal(response.error.data, call.method);
    return undefined;
  }

  notification(
    notification: Parameters<NonNullable<ServerPlugin["notification"]>>[0],
    out: PluginOutgoing,
  ): ReturnType<NonNullable<ServerPlugin["notification"]>> {
    if (this.recorders.idle()) return undefined;
    const parent = this.contextOf(out.call) ?? context.active();
    const span = this.o.tracer.startSpan(
      spanName(notification.method, notification.params),
      { kind: SpanKind.CLIENT },
      parent,
    );
    if (!span.isRecording()) {
      span.end();
      // No span of ours: still carry the request's own context (a remote parent), if any.
      const params = withContext(this.o.propagator, parent, notification.params);
      return params === undefined ? undefined : { ...notification, params };
    }
    span.setAttributes(messageAttributes({}, notification.method, notification.params));
    span.setAttribute(ATTR.protocolVersion, out.era);
    if (this.o.common !== undefined) span.setAttributes(this.o.common);
    if (out.session !== undefined) span.setAttribute(ATTR.sessionId, out.session.id);
    span.end();
    const params = withContext(this.o.propagator, trace.setSpan(parent, span), notification.params);
    return params === undefined ? undefined : { ...notification, params };
  }

  async clientRequest(
    request: PluginClientRequest,
    out: PluginOutgoing,
    send: PluginSendRequest,
  ): Promise<{ [key: string]: unknown } | undefined> {
    if (this.recorders.idle()) return send(request);
    const { tracer, propagator, now } = this.o;
    const parent = this.contextOf(out.call) ?? context.active();
    const span = tracer.startSpan(
      spanName(request.method, request.params),
      { kind: SpanKind.CLIENT },
      parent,
    );
    let base: Attributes | undefined;
    if (span.isRecording()) {
      base = this.baseOf(request.method, request.params, out.era);
      span.setAttributes(base);
      if (this.o.common !== undefined) span.setAttributes(this.o.common);
      if (out.session !== undefined) span.setAttribute(ATTR.sessionId, out.session.id);
    } else if (this.instruments.on) base = this.baseOf(request.method, request.params, out.era);
    const params = withContext(propagator, trace.setSpan(parent, span), request.params);
    const sent = params === undefined ? request : { method: request.method, params };
    const start = now();
    let outcome: Outcome | undefined;
    let result: { [key: string]: unknown } | undefined;
    try {
      result = await send(sent);
      outcome = resultOutcome(request.method, result);
      return result;
    } catch (error) {
      outcome = thrownOutcome(error);
      throw error;
    } finally {
      if (span.isRecording()) {
        if (outcome !== undefined) recordOutcome(span, outcome);
        // 2026-07-28: placed in an input_required result; the answer comes with the client's retry.
        if (result === undefined && outcome === undefined) span.addEvent("mcp.input_required.placed");
      }
      span.end();
      // The server sent this request: its duration is the sender's, mcp.client.operation.duration.
      if (base !== undefined && this.instruments.on && (result !== undefined || outcome !== undefined)) {
        this.instruments.sent.record(
          (now() - start) / 1000,
          durationAttributes(base, this.o.common, outcome),
        );
      }
    }
  }

  private baseOf(
    method: string,
    params: { readonly [key: string]: unknown } | undefined,
    era: string,
  ): Attributes {
    const base = messageAttributes({}, method, params);
    base[ATTR.protocolVersion] = era;
    return base;
  }

  /** A notification from the client: a SERVER span of no length, its parent the context in its `_meta`. */
  received(notification: JsonRpcNotification, from: PluginIncoming): void {
    if (this.recorders.idle()) return;
    const ambient = context.active();
    const parent = parentOf(this.o.propagator, ambient, notification.params);
    const span = this.o.tracer.startSpan(
      spanName(notification.method, notification.params),
      { kind: SpanKind.SERVER },
      parent,
    );
    if (span.isRecording()) {
      span.setAttributes(this.baseOf(notification.method, notification.params, from.era));
      if (this.o.common !== undefined) span.setAttributes(this.o.common);
      if (from.session !== undefined) span.setAttribute(ATTR.sessionId, from.session.id);
    }
    span.end();
  }

  /** The context of `call`'s span (a notification's or a server request's parent), made once when first needed. */
  private contextOf(call: PluginCall | undefined): Context | undefined {
    const served = call === undefined ? undefined : this.served.get(call);
    if (served === undefined) return undefined;
    served.context ??= trace.setSpan(served.parent, served.span);
    return served.context;
  }

  /** The executor's load, read when metrics are collected (one plugin per server), once a meter records. */
  setup(host: PluginHost): void {
    this.host = host;
    if (this.recorders.recordsMetrics) this.observeLoad(this.instruments, host);
  }

  private observeLoad({ running, queued }: ServerInstruments, host: PluginHost): void {
    running.addCallback((result) => result.observe(host.load().running, this.o.common));
    queued.addCallback((result) => result.observe(host.load().queued, this.o.common));
  }

  /** A 2026 listen opened: counted until it ends (its span covered the opening; see `admit`). */
  subscribed(_call: PluginCall, ended: Promise<"complete" | "overflow" | "cancelled">): void {
    if (this.recorders.idle()) return;
    // The counter it was added to is the one it leaves, should a meter provider come in between.
    const { listens } = this.instruments;
    listens.add(1, this.o.common);
    void ended.then(() => listens.add(-1, this.o.common));
  }

  sessionOpened(session: PluginSession): void {
    if (this.recorders.idle()) return;
    const { instruments } = this;
    this.sessionStarts.set(session, { start: this.o.now(), instruments });
    instruments.sessions.add(1, this.o.common);
  }

  sessionClosed(session: PluginSession): void {
    const opened = this.sessionStarts.get(session);
    if (opened === undefined) return;
    this.sessionStarts.delete(session);
    const { start, instruments } = opened;
    instruments.sessions.add(-1, this.o.common);
    const attributes: Attributes = { [ATTR.protocolVersion]: "2025-11-25", ...this.o.common };
    instruments.session.record((this.o.now() - start) / 1000, attributes);
  }

  /**
   * Links of a new span: the ambient context when the parent came from `_meta` (the conventions' advice), the
   * call that sealed the `requestState` this retry carries, the call that created the task this one names.
   */
  private linksOf(call: PluginCall, ambient: Context, parent: Context): Link[] | undefined {
    let links: Link[] | undefined;
    const local = parent === ambient ? undefined : trace.getSpanContext(ambient);
    if (local !== undefined) links = [{ context: local }];
    const { requestState, taskId } = call.params;
    if (typeof requestState === "string") {
      const first = this.origins.take(`state:${requestState}`);
      if (first !== undefined) {
        links ??= [];
        links.push({ context: first.spanContext(), attributes: { "mcp.link": "input_required" } });
      }
    }
    if (typeof taskId === "string") {
      const creator = this.origins.get(`task:${taskId}`);
      if (creator !== undefined) {
        links ??= [];
        links.push({ context: creator.spanContext(), attributes: { "mcp.link": "task" } });
      }
    }
    return links;
  }

  /** Remembers what a later call may refer to: a sealed input round, a task created. */
  private remember(span: Span, result: { [key: string]: unknown }): void {
    if (result.resultType === "input_required") {
      const count =
        result.inputRequests !== null && typeof result.inputRequests === "object"
          ? Object.keys(result.inputRequests).length
          : 0;
      span.addEvent("mcp.input_required", { "mcp.input_required.count": count });
      if (typeof result.requestState === "string") this.origins.set(`state:${result.requestState}`, span);
    }
    const task =
      result.resultType === "task" ? result : (result.task as { [key: string]: unknown } | undefined);
    if (task !== null && typeof task === "object" && typeof task.taskId === "string") {
      span.setAttribute("mcp.task.id", task.taskId);
      this.origins.set(`task:${task.taskId}`, span);
    }
  }

  private countRefusal(data: unknown, method: string): void {
    if (data === null || typeof data !== "object") return;
    const { reason, option } = data as { reason?: unknown; option?: unknown };
    const why = typeof reason === "string" ? reason : typeof option === "string" ? option : undefined;
    if (why === undefined) return;
    this.instruments.refused.add(1, {
      "mcpkit.refusal.reason": why,
      [ATTR.methodName]: method,
      ...this.o.common,
    });
  }
}
