import { type Attributes, context, type Span, SpanKind, trace } from "@opentelemetry/api";
import { type AbortLike, abortOf } from "../jsonrpc/lazy-abort.js";
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from "../jsonrpc/message.js";
import { MetaKey } from "../protocol/meta.js";
import type {
  MessageInfo,
  Transport,
  TransportCloseReason,
  TransportHandlers,
  TransportSendOptions,
} from "../transports/transport.js";
import { metaOf, parentOf, withContext } from "./carrier.js";
import { type ClientInstruments, clientInstruments } from "./metrics.js";
import { type OtelOptions, type Resolved, resolveOtel } from "./options.js";
import { BoundedMap, durationAttributes, recordOutcome, thrownOutcome } from "./outcome.js";
import { Recorders } from "./recorders.js";
import {
  ATTR,
  messageAttributes,
  type Outcome,
  requestIdAttribute,
  responseOutcome,
  spanName,
} from "./semconv.js";

/** How many server-to-client requests may await the client's answer with a span open. */
const MAX_INBOUND = 1_024;

/** One exchange in flight: a request we sent, or a server request we answer. */
interface Exchange {
  readonly span: Span;
  readonly method: string;
  readonly start: number;
  /** The message's attributes; `undefined` when neither span nor meter records. */
  readonly base: Attributes | undefined;
  /** Whose histogram: `sent` for the client's requests, `served` for the server's requests it answers. */
  readonly role: "sent" | "served";
  /** The request's abort (its deadline, or the caller's signal), which says why it was cancelled. */
  abort?: AbortLike | undefined;
  /** The listener on `abort`, removed when the exchange ends otherwise. */
  onAbort?: (() => void) | undefined;
}

/**
 * Wraps a client transport with OpenTelemetry, following the MCP semantic conventions: a `CLIENT` span per
 * request the client sends (child of the active context, which is injected into the request's `params._meta`,
 * so the server's span continues the trace), ended by its response, its timeout or its cancellation; a
 * `SERVER` span per request the server sends (sampling, elicitation, roots), its parent the context in that
 * request's `_meta`, the client's handler run inside it; the operation duration histograms (the client's
 * `mcp.client.operation.duration`, and `mcp.server.operation.duration` for the server's requests it answers) and
 * `mcp.client.session.duration`. The `Client` is unchanged: it sees a transport, so a client
 * without this wrapper does no work for it at all. With neither a tracer nor a meter provider (given, or registered
 * globally) the wrapper is idle and passes every message as it is; a provider registered later is picked up by
 * the next message.
 *
 * @example
 * import { otelClientTransport } from "mcpkit/otel";
 * const client = new Client({ clientInfo, transport: otelClientTransport(new StdioClientTransport({ command })) });
 */
export function otelClientTransport(transport: Transport, options?: OtelOptions): Transport {
  return new TracedTransport(transport, resolveOtel(options, "otelClientTransport"));
}

class TracedTransport implements Transport {
  private readonly sent = new Map<number | string, Exchange>();
  private readonly answering = new BoundedMap<number | string, Exchange>(MAX_INBOUND);
  private readonly recorders: Recorders<ClientInstruments>;
  private version: string | undefined;
  private opened: number | undefined;
  /** The id of the `initialize` sent while idle, whose answer still says the protocol version. */
  private initializing: number | string | undefined;

  constructor(
    private readonly inner: Transport,
    private readonly o: Resolved,
  ) {
    this.recorders = new Recorders(o, clientInstruments);
  }

  private get instruments(): ClientInstruments {
    return this.recorders.instruments;
  }

  get cancelsByStream(): boolean {
    return this.inner.cancelsByStream === true;
  }

  get fallsBackOnProbeTimeout(): boolean {
    return this.inner.fallsBackOnProbeTimeout !== false;
  }

  get identity(): unknown {
    return this.inner.identity;
  }

  start(handlers: TransportHandlers): Promise<void> {
    this.opened = this.o.now();
    const traced: TransportHandlers = {
      message: (message, info) => this.receive(message, info, handlers),
      close: (reason) => {
        this.ended(reason);
        handlers.close(reason);
      },
    };
    if (handlers.error !== undefined) traced.error = handlers.error;
    if (handlers.logger !== undefined) traced.logger = handlers.logger;
    return this.inner.start(traced);
  }

  send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void> {
    // Nothing records: the message goes as it is, and nothing is kept but the initialize's id.
    if (this.recorders.idle()) {
      if ((message as { method?: unknown }).method === "initialize") {
        this.initializing = (message as JsonRpcRequest).id as number | string;
      }
      return this.inner.send(message, options);
    }
    let out = message;
    if ("method" in message) {
      out =
        "id" in message && message.id !== undefined
          ? this.request(message as JsonRpcRequest, options)
          : this.notify(message as JsonRpcNotification);
    } else if ("id" in message && message.id !== undefined && message.id !== null) {
      const answered = this.answering.take(message.id);
      if (answered !== undefined) this.finish(answered, responseOutcome(answered.method, message as never));
    }
    return this.inner.send(out, options);
  }

  close(): Promise<void> {
    this.ended({ kind: "local" });
    return this.inner.close();
  }

  /** A request we send: its CLIENT span, the context in its `_meta`, the span ended by abort or answer. */
  private request(message: JsonRpcRequest, options: TransportSendOptions | undefined): JsonRpcMessage {
    const { tracer, propagator } = this.o;
    const parent = context.active();
    const span = tracer.startSpan(
      spanName(message.method, message.params),
      { kind: SpanKind.CLIENT },
      parent,
    );
    // Nothing records (no provider): the context still travels, and nothing is kept for the answer.
    if (span.isRecording() || this.instruments.on) this.track(span, message, options);
    const params = withContext(propagator, trace.setSpan(parent, span), message.params);
    return params === undefined ? message : { ...message, params };
  }

  /** Keeps a request's exchange until its answer, its abort (read without making an `AbortSignal`) or the end. */
  private track(span: Span, message: JsonRpcRequest, options: TransportSendOptions | undefined): void {
    const exchange = this.exchange(span, message, "sent");
    const id = message.id as number | string;
    this.sent.set(id, exchange);
    const abort = options === undefined ? undefined : abortOf(options);
    exchange.abort = abort;
    if (abort === undefined) return;
    const onAbort = () => {
      if (this.sent.get(id) !== exchange) return;
      this.sent.delete(id);
      this.finish(exchange, thrownOutcome(abort.reason));
    };
    if (abort.aborted) onAbort();
    else {
      abort.addEventListener("abort", onAbort, { once: true });
      exchange.onAbort = onAbort;
    }
  }

  /** A notification we send: a span of no length, its context in the notification's `_meta`. */
  private notify(message: JsonRpcNotification): JsonRpcMessage {
    if (message.method === "notifications/cancelled") this.cancelled(message.params);
    const parent = context.active();
    const span = this.o.tracer.startSpan(
      spanName(message.method, message.params),
      { kind: SpanKind.CLIENT },
      parent,
    );
    if (span.isRecording())
      this.describe(span, messageAttributes({}, message.method, message.params), undefined);
    span.end();
    const params = withContext(this.o.propagator, trace.setSpan(parent, span), message.params);
    return params === undefined ? message : { ...message, params };
  }

  private receive(message: JsonRpcMessage, info: MessageInfo | undefined, handlers: TransportHandlers): void {
    if (this.initializing !== undefined) this.initialized(message);
    // A response: to a request tracked when sent, or passed on (all of them while idle: nothing is tracked).
    if (!("method" in message)) {
      const id = (message as { id?: unknown }).id;
      const exchange = typeof id === "number" || typeof id === "string" ? this.sent.get(id) : undefined;
      if (exchange !== undefined) {
        this.sent.delete(id as number | string);
        const result = (message as { result?: unknown }).result as { [key: string]: unknown } | undefined;
        if (exchange.method === "initialize" && typeof result?.protocolVersion === "string") {
          this.version = result.protocolVersion;
        }
        if (result?.resultType === "input_required" && exchange.span.isRecording()) {
          exchange.span.addEvent("mcp.input_required");
        }
        this.finish(exchange, responseOutcome(exchange.method, message as never));
      }
      handlers.message(message, info);
      return;
    }
    if (this.recorders.idle()) {
      handlers.message(message, info);
      return;
    }
    // A request or notification from the server: a SERVER span, its parent the context in its `_meta`.
    const ambient = context.active();
    const parent = parentOf(this.o.propagator, ambient, message.params);
    const span = this.o.tracer.startSpan(
      spanName(message.method, message.params),
      { kind: SpanKind.SERVER },
      parent,
    );
    const id = (message as { id?: unknown }).id;
    if (typeof id === "number" || typeof id === "string") {
      const exchange = this.exchange(span, message as JsonRpcRequest, "served");
      const evicted = this.answering.get(id);
      if (evicted !== undefined) this.finish(evicted, { errorType: "replaced" });
      this.answering.set(id, exchange);
    } else {
      if (span.isRecording())
        this.describe(span, messageAttributes({}, message.method, message.params), undefined);
      span.end();
    }
    context.with(trace.setSpan(parent, span), () => handlers.message(message, info));
  }

  /** The answer to the `initialize` sent while idle: the protocol version, for the spans of later requests. */
  private initialized(message: JsonRpcMessage): void {
    if ("method" in message || (message as { id?: unknown }).id !== this.initializing) return;
    this.initializing = undefined;
    const version = (message as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
    if (typeof version === "string") this.version = version;
  }

  private exchange(span: Span, message: JsonRpcRequest, role: Exchange["role"]): Exchange {
    const recording = span.isRecording();
    let base: Attributes | undefined;
    // Built only for a span that records or a meter that does: nothing without a provider.
    if (recording || this.instruments.on) {
      base = messageAttributes({}, message.method, message.params);
      const version = this.versionOf(message);
      if (version !== undefined) base[ATTR.protocolVersion] = version;
      // A 2025-11-25 HTTP session's Mcp-Session-Id, as the transport holds it (the server's spans carry the same).
      const session = (this.inner as { readonly sessionId?: unknown }).sessionId;
      if (typeof session === "string") base[ATTR.sessionId] = session;
      if (recording) this.describe(span, base, requestIdAttribute(message.id));
    }
    return { span, method: message.method, start: this.o.now(), base, role };
  }

  private describe(span: Span, base: Attributes, id: string | undefined): void {
    span.setAttributes(base);
    if (this.o.common !== undefined) span.setAttributes(this.o.common);
    if (id !== undefined) span.setAttribute(ATTR.requestId, id);
  }

  private versionOf(message: JsonRpcRequest): string | undefined {
    const stated = metaOf(message.params)?.[MetaKey.protocolVersion];
    if (typeof stated === "string") return stated;
    if (message.method === "initialize" && typeof message.params?.protocolVersion === "string") {
      return message.params.protocolVersion;
    }
    return this.version;
  }

  /** `notifications/cancelled` for one of our requests: its span ends as cancelled. */
  private cancelled(params: { [key: string]: unknown } | undefined): void {
    const id = params?.requestId;
    if (typeof id !== "number" && typeof id !== "string") return;
    const exchange = this.sent.get(id);
    if (exchange === undefined) return;
    this.sent.delete(id);
    if (exchange.span.isRecording()) {
      exchange.span.addEvent(
        "mcp.cancelled",
        typeof params?.reason === "string" ? { reason: params.reason } : {},
      );
    }
    const { abort } = exchange;
    this.finish(exchange, abort?.aborted ? thrownOutcome(abort.reason) : { errorType: "cancelled" });
  }

  private finish(exchange: Exchange, outcome: Outcome | undefined): void {
    if (exchange.onAbort !== undefined) exchange.abort?.removeEventListener("abort", exchange.onAbort);
    if (outcome !== undefined && exchange.span.isRecording()) recordOutcome(exchange.span, outcome);
    exchange.span.end();
    if (exchange.base !== undefined && this.instruments.on) {
      this.instruments[exchange.role].record(
        (this.o.now() - exchange.start) / 1000,
        durationAttributes(exchange.base, this.o.common, outcome),
      );
    }
  }

  /** The transport ended: open exchanges end as `closed`, the session's duration is recorded once. */
  private ended(reason: TransportCloseReason): void {
    for (const exchange of this.sent.values()) this.finish(exchange, { errorType: "closed" });
    this.sent.clear();
    for (const exchange of this.answering.clear()) this.finish(exchange, { errorType: "closed" });
    if (this.opened === undefined) return;
    const attributes: Attributes = { ...this.o.common };
    if (this.version !== undefined) attributes[ATTR.protocolVersion] = this.version;
    if (reason.kind === "error") attributes[ATTR.errorType] = reason.error?.name ?? "_OTHER";
    this.instruments.session.record((this.o.now() - this.opened) / 1000, attributes);
    this.opened = undefined;
  }
}
