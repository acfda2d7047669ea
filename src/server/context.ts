import type { LazyAbort } from "../jsonrpc/lazy-abort.js";
import type { JsonRpcNotification, JsonRpcRequest, JsonValue, RequestId } from "../jsonrpc/message.js";
import type { ClientCapabilities } from "../protocol/types/capabilities.js";
import type { Implementation, LoggingLevel } from "../protocol/types/common.js";
import type { InputResponses } from "../protocol/types/input.js";
import type { Era } from "../protocol/versions.js";
import type { RoundInput } from "./input.js";

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
   * Sends `notifications/progress` for this request; a no-op when the client sent no `progressToken`.
   */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /**
   * Sends `notifications/message` tied to this request, if the client asked for that level: the per-request
   * `logLevel` in 2026-07-28 (no level, no messages), the session's `logging/setLevel` in 2025-11-25.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
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
  return {
    era: fields.era,
    method: fields.request.method,
    requestId: fields.request.id,
    identity: fields.identity,
    get signal() {
      return abort.signal;
    },
    meta: fields.meta,
    clientCapabilities: fields.clientCapabilities,
    clientInfo: fields.clientInfo,
    inputResponses: fields.input.inputResponses,
    requestState: fields.input.requestState,
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
  };
}
