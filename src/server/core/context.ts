import { McpkitError } from "../../jsonrpc/errors.js";
import type { LazyAbort } from "../../jsonrpc/lazy-abort.js";
import type { JsonRpcNotification, JsonRpcRequest, JsonValue, RequestId } from "../../jsonrpc/message.js";
import { CORE_NOTIFICATION_METHODS, CORE_REQUEST_METHODS } from "../../protocol/methods.js";
import type { ClientCapabilities } from "../../protocol/types/capabilities.js";
import type { Implementation, LoggingLevel } from "../../protocol/types/common.js";
import type { InputResponses } from "../../protocol/types/input.js";
import type { Era } from "../../protocol/versions.js";
import type { ClientRequests, MessageSender } from "../state/client-requests.js";
import type { RoundInput } from "../state/input.js";
import type { PluginData } from "./plugin-answer.js";

/**
 * What a handler knows about the request it serves. The same shape in both eras, so one handler serves both.
 *
 * @example
 * async callTool({ name }, ctx) {
 *   await ctx.progress(1, 2);
 *   await ctx.log("info", { step: "half way" });
 *   if (ctx.signal.aborted) throw ctx.signal.reason;
 *   return { content: [{ type: "text", text: `hello from ${ctx.era}` }] };
 * }
 */
export interface RequestContext {
  /** The wire era this request came in on. */
  readonly era: Era;
  /** The JSON-RPC method. */
  readonly method: string;
  /** The JSON-RPC id of this request. */
  readonly requestId: RequestId;
  /** The authenticated principal, as set by the transport; `undefined` when the transport has none. */
  readonly identity: unknown;
  /** Fires when the client cancels, the connection closes or the handler's deadline passes. */
  readonly signal: AbortSignal;
  /** The request's `_meta`, unknown keys included (`{}` when absent). */
  readonly meta: { readonly [key: string]: unknown };
  /** The client's capabilities: per request in 2026-07-28, from `initialize` in 2025-11-25. */
  readonly clientCapabilities: ClientCapabilities;
  /** The client's name and version, when it said. */
  readonly clientInfo: Implementation | undefined;
  /**
   * The client's answers to the requests of the previous round (see `inputRequired()`), by request key;
   * `undefined` on a first call. In 2026-07-28 they are the retry's `inputResponses`: a key may be missing (ask
   * again) and unknown keys may be present (ignore them).
   */
  readonly inputResponses: InputResponses | undefined;
  /** The `state` the previous round passed to `inputRequired()`, verified and decoded; `undefined` if none. */
  readonly requestState: JsonValue | undefined;
  /**
   * True when this `tools/call` may become a task (see `runAsTask`): the server has tasks on and the client can
   * take one (2026-07-28: the request declares the `io.modelcontextprotocol/tasks` extension; 2025-11-25: it
   * carries a `task` param). False for every other request. The tasks plugin's data
   * (`pluginData.tasks === true`), kept as a member of its own.
   */
  readonly taskAugmented: boolean;
  /**
   * What the plugins' `context` hooks returned for this call, by plugin name (see `ServerPlugin.context`): a
   * plugin's own per-request data, such as a tracing span. Empty when no plugin set any.
   *
   * @example
   * const span = ctx.pluginData["acme/tracing"] as Span | undefined;
   */
  readonly pluginData: PluginData;
  /**
   * Sends `notifications/progress` for this request; a no-op when the client sent no `progressToken`.
   */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /**
   * Sends `notifications/message` tied to this request, if the client asked for that level: the per-request
   * `logLevel` in 2026-07-28 (no level, no messages), the session's `logging/setLevel` in 2025-11-25.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Sends a custom notification tied to this request, where its progress goes (on HTTP: this request's stream;
   * an answer sent as plain JSON has none, and the notification is dropped). Core notification
   * names reject with `McpkitError` `UNSUPPORTED` (use `progress` and `log`); nothing is sent once the call
   * was aborted.
   *
   * @example
   * await ctx.notify("acme/partial", { rows: 10 });
   */
  notify(method: string, params?: { [key: string]: unknown }): Promise<void>;
  /**
   * 2025-11-25 only: sends a custom request to the client and resolves with its result; a JSON-RPC error
   * rejects with `JsonRpcError`. Bounded as input requests are: at most `maxClientRequests` pending per
   * session (`CAPACITY`), `handlerTimeoutMs` each (`TIMEOUT`), cancelled on the client when this call ends.
   * Core method names and 2026-07-28 (no server-to-client requests there) reject with `UNSUPPORTED`.
   *
   * @example
   * const { accepted } = await ctx.sendRequest("acme/confirm", { action: "deploy" });
   */
  sendRequest(method: string, params?: { [key: string]: unknown }): Promise<{ [key: string]: unknown }>;
}

/** Where a dispatcher sends the notifications a request produces (the connection, or an HTTP response stream). */
export type NotificationSink = (notification: JsonRpcNotification) => Promise<void>;

const LEVEL_RANK: { readonly [level in LoggingLevel]: number } = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};

/** True when a message of `level` passes a threshold of `minimum`. */
export function levelAllows(minimum: LoggingLevel, level: LoggingLevel): boolean {
  return LEVEL_RANK[level] >= LEVEL_RANK[minimum];
}

/** What a request's context is made of besides its signal and senders. */
export interface ContextFields {
  era: Era;
  request: JsonRpcRequest;
  identity: unknown;
  meta: { readonly [key: string]: unknown };
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  input: RoundInput;
  /** What the plugins' `context` hooks returned (see `ServerPlugin.context`). */
  pluginData?: PluginData | undefined;
  /** What the `clientRequest` hooks learn of where this call's server-to-client requests come from. */
  origin?: unknown;
  /** 2025-11-25: the session's server-to-client requests, and where this request's go. */
  clientRequests?: ClientRequests | undefined;
  sender?: MessageSender | undefined;
}

/**
 * The context of one handler call. `signal` reads the call's abort (its `AbortSignal` is made only when a
 * handler reads it); `progress` and `log` send this request's notifications: `token` is its progress token
 * (none, no progress), `logAllowed` says whether a message of a level may go out; nothing is sent once the
 * call was aborted. Every member is an own property, so the context can be spread or destructured.
 */
export function requestContext(
  fields: ContextFields,
  abort: LazyAbort,
  token: unknown,
  logAllowed: (level: LoggingLevel) => boolean,
  notify: NotificationSink,
): RequestContext {
  const hasToken = typeof token === "string" || typeof token === "number";
  const context = {
    era: fields.era,
    method: fields.request.method,
    requestId: fields.request.id,
    identity: fields.identity,
    meta: fields.meta,
    clientCapabilities: fields.clientCapabilities,
    clientInfo: fields.clientInfo,
    inputResponses: fields.input.inputResponses,
    requestState: fields.input.requestState,
    // The one feature a context names: a public member from before plugins, set from the tasks plugin's data.
    taskAugmented: fields.pluginData?.tasks === true,
    pluginData: fields.pluginData ?? NO_DATA,
    async progress(progress, total, message) {
      if (!hasToken || abort.aborted) return;
      const params: { [key: string]: unknown } = { progressToken: token, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      await notify({ jsonrpc: "2.0", method: "notifications/progress", params });
    },
    async log(level, data, logger) {
      if (!logAllowed(level) || abort.aborted) return;
      const params: { [key: string]: unknown } = { level, data };
      if (logger !== undefined) params.logger = logger;
      await notify({ jsonrpc: "2.0", method: "notifications/message", params });
    },
    async notify(method, params) {
      refuseCore(method, CORE_NOTIFICATION_METHODS, "notification");
      if (abort.aborted) return;
      await notify(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
    },
    async sendRequest(method, params) {
      refuseCore(method, CORE_REQUEST_METHODS, "request");
      const { clientRequests, sender } = fields;
      if (clientRequests === undefined) {
        throw new McpkitError("UNSUPPORTED", `${fields.era} has no server-to-client requests`, {
          details: { method, era: fields.era },
        });
      }
      if (sender === undefined) throw new McpkitError("CLOSED", "no channel to the client carries requests");
      return clientRequests.request(method, params, sender, abort.signal, fields.origin);
    },
  } satisfies Omit<RequestContext, "signal">;
  return withLazySignal<RequestContext>(context, abort);
}

const NO_DATA: PluginData = Object.freeze({});

const ABORT = Symbol("abort");
// One getter for every context: a getter written in each object literal is a new function per call, and makes
// each context an object V8 keeps apart from the rest (measured: ~2x the GC of a call).
const SIGNAL: PropertyDescriptor = {
  get(this: { [ABORT]: { readonly signal: AbortSignal } }) {
    return this[ABORT].signal;
  },
  enumerable: true,
  configurable: true,
};

/**
 * Adds to `target` an own, enumerable `signal` getter that reads `abort.signal` (so an `AbortSignal` is made only
 * when a handler reads it), through one shared getter. Returns `target`.
 *
 * `target` must not have a `signal` of its own: turning a data property into an accessor puts the object in
 * dictionary mode (every later read of it slow, ~0.6 us to make), where adding one keeps its fast shape.
 */
export function withLazySignal<T extends { signal: AbortSignal }>(
  target: Omit<T, "signal">,
  abort: { readonly signal: AbortSignal },
): T {
  (target as { [ABORT]?: unknown })[ABORT] = abort;
  Object.defineProperty(target, "signal", SIGNAL);
  return target as T;
}

function refuseCore(method: string, core: ReadonlySet<string>, kind: string): void {
  if (typeof method !== "string" || method === "" || core.has(method)) {
    throw new McpkitError("UNSUPPORTED", `cannot send the ${kind} ${String(method)} this way`, {
      details: { method, reason: "reserved_method" },
    });
  }
}
