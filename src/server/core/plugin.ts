import type { AbortLike } from "../../jsonrpc/lazy-abort.js";
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../../jsonrpc/message.js";
import type { ClientCapabilities, ServerCapabilities } from "../../protocol/types/capabilities.js";
import type { InputRequests, InputResponses } from "../../protocol/types/input.js";
import type { Era } from "../../protocol/versions.js";
import type { CustomRequestHandler } from "../custom/custom.js";
import type { Extension } from "../custom/extension.js";
import type { RequestStateStore } from "../state/store.js";
import type { RequestContext } from "./context.js";

export {
  type PluginAnswer,
  type PluginData,
  pluginAnswer,
  pluginAnswerKind,
} from "./plugin-answer.js";

import type { ServerHandler } from "./handler.js";
import type { ServerLogger } from "./logger.js";
import type { PluginAnswer } from "./plugin-answer.js";

/** What the hooks of a plugin learn about one request. */
export interface PluginCall {
  readonly era: Era;
  readonly method: string;
  readonly request: JsonRpcRequest;
  /** The request's params (`{}` when absent), `_meta` included. */
  readonly params: { readonly [key: string]: unknown };
  /** The authenticated principal, as the transport set it. */
  readonly identity: unknown;
  /** Per request in 2026-07-28, from `initialize` in 2025-11-25. */
  readonly clientCapabilities: ClientCapabilities;
  /** The 2025-11-25 session the request belongs to; `undefined` in 2026-07-28. */
  readonly session: PluginSession | undefined;
  /**
   * Fires when the client cancels the request or goes away (also while it waits for a handler slot);
   * `undefined` when its transport gives none.
   */
  readonly signal?: AbortLike | undefined;
}

/** A 2025-11-25 session, as plugins see it. */
export interface PluginSession {
  /** A random id, unique to the session (an owner for what an anonymous session creates). */
  readonly id: string;
  /** Sends a notification to the session's client once it is ready; dropped after it closed. */
  notify(notification: JsonRpcNotification): Promise<void>;
}

/** What a plugin method gets besides its params. */
export interface PluginMethodCall extends PluginCall {
  /** Fires when the client cancels the request or goes away. */
  readonly signal: AbortLike | undefined;
  /**
   * 2025-11-25: sends `requests` (sampling, elicitation, roots) to the client as real requests, where this
   * request's own go, and resolves with every answer; `undefined` in 2026-07-28.
   */
  readonly ask: ((requests: InputRequests) => Promise<InputResponses>) | undefined;
}

/**
 * A method a plugin serves. It runs outside the handler executor (it may wait long, as 2025-11-25
 * `tasks/result` does) and may take a core method name the server does not serve itself. Throw a
 * `JsonRpcError` to answer with an error.
 */
export type PluginMethod = (
  params: { readonly [key: string]: unknown },
  call: PluginMethodCall,
) => Promise<{ [key: string]: unknown }> | { [key: string]: unknown };

/**
 * Where a message the server sends to a client stands (what the `notification` and `clientRequest` hooks learn
 * besides the message).
 */
export interface PluginOutgoing {
  /** The era of the client it goes to. */
  readonly era: Era;
  /**
   * The request the message belongs to (the progress and log messages of a request, its custom notifications,
   * the requests of its input rounds); for a 2026-07-28 subscription's notification, its `subscriptions/listen`
   * request; `undefined` for what a 2025-11-25 session gets server-wide (list changed, resource updated,
   * `server.notify`, a task's status). The same object every other hook of that request gets.
   */
  readonly call: PluginCall | undefined;
  /** The 2025-11-25 session the message goes to; `undefined` in 2026-07-28. */
  readonly session: PluginSession | undefined;
}

/** Where a notification the client sent stands (what the `received` hook learns besides the notification). */
export interface PluginIncoming {
  /** The era it came in: the connection's or session's, else what its `_meta` says. */
  readonly era: Era;
  /** The 2025-11-25 session it belongs to; `undefined` in 2026-07-28. */
  readonly session: PluginSession | undefined;
  /** The authenticated principal, as the transport set it. */
  readonly identity: unknown;
}

/** A request the server sends to the client (sampling, elicitation, roots, a custom one), before it has an id. */
export interface PluginClientRequest {
  /** Its JSON-RPC method (`sampling/createMessage`, `elicitation/create`, `roots/list`, a custom one). */
  readonly method: string;
  /** Its params, `_meta` included; `undefined` when it has none. */
  readonly params?: { readonly [key: string]: unknown } | undefined;
}

/**
 * Sends a {@link PluginClientRequest} on (to the next plugin, then the client): in 2025-11-25 resolves with the
 * client's result (rejects with its `JsonRpcError`, or `McpkitError` `TIMEOUT`, `ABORTED`, `CLOSED`); in
 * 2026-07-28 places it in the `input_required` result and resolves with `undefined` (its answer comes with the
 * client's retry, a request of its own).
 */
export type PluginSendRequest = (
  request: PluginClientRequest,
) => Promise<{ [key: string]: unknown } | undefined>;

/** A notification sent to every subscriber of the server: on this instance, and (through a plugin) beyond. */
export type Broadcast =
  | { readonly kind: "list"; readonly family: "tools" | "resources" | "prompts" }
  | { readonly kind: "resource"; readonly uri: string }
  | { readonly kind: "custom"; readonly notification: JsonRpcNotification };

/** What a plugin may use of the server it joins (given to {@link ServerPlugin.setup}). */
export interface PluginHost {
  /** The server's logger (rate-limited). */
  readonly logger: ServerLogger;
  /** Delivers a broadcast to this instance's subscribers only (one that came from another instance). */
  deliver(message: Broadcast): Promise<void>;
  /** Tells the subscribers that a list changed (as `server.notifyListChanged`). */
  notifyListChanged(family: "tools" | "resources" | "prompts"): Promise<void>;
  /**
   * Passes a request that the plugin itself puts before a 2026-07-28 client (a task's input requests, in its
   * status) through the `clientRequest` hooks, as the server does an `input_required` result's: resolves with
   * what the last of them sent on (`request` itself when no plugin has the hook).
   */
  placeRequest(request: PluginClientRequest, out: PluginOutgoing): Promise<PluginClientRequest>;
  /**
   * The handler executor's load now: calls running, and calls waiting for a slot (the admission queue). Cheap;
   * for a gauge read when metrics are collected.
   */
  load(): { readonly running: number; readonly queued: number };
}

/**
 * A server plugin: the one way a feature joins the server engine. Each hook is optional, and the hooks of all
 * plugins are resolved once when the server is created, so a hook no plugin uses costs a call nothing.
 * Plugins run in the order given; `result` and `response` hooks chain (each gets the previous one's output).
 *
 * @example
 * const audit: ServerPlugin = {
 *   name: "acme/audit",
 *   response(response, call) {
 *     log.info({ method: call.method, ok: "result" in response });
 *   },
 * };
 * createServer({ serverInfo, handler, plugins: [audit] });
 */
export interface ServerPlugin {
  /** A short unique name, for errors and logs (`"tasks"`, `"acme/audit"`). */
  readonly name: string;
  /** Extensions it serves: advertised under `capabilities.extensions` where they serve, their methods added. */
  readonly extensions?: readonly Extension[];
  /** Capabilities it adds to what an era advertises, merged key by key over the server's own. */
  readonly capabilities?: { readonly [era in Era]?: ServerCapabilities };
  /**
   * 2025-11-25 methods it serves, by name (see {@link PluginMethod}); a 2026-07-28 method comes with one of its
   * `extensions`.
   */
  readonly methods?: { readonly "2025-11-25"?: { readonly [method: string]: PluginMethod } };
  /** Answers of its kinds that handlers may return (see {@link PluginAnswer}), turned into results. */
  readonly answers?: {
    /** Turns a plugin answer of this kind into the call's result. */
    readonly [kind: string]: (
      answer: PluginAnswer,
      call: PluginCall,
      context: RequestContext,
    ) => Promise<{ [key: string]: unknown }>;
  };
  /**
   * Wraps the server's handler once, when the server is created (serve tools or resources of its own beside the
   * server's, as MCP Apps do): the handler it returns answers the core methods. Its families are what the
   * server advertises.
   */
  handler?(base: ServerHandler): ServerHandler;
  /**
   * Wraps each custom request handler once, when the server is created (the server's own `requests`, its
   * extensions' and the plugins'), as `handler` wraps the core methods': returns the handler to serve
   * `method` with, in both eras.
   *
   * @example
   * customRequest: (handler, method) => (params, ctx) => timed(method, () => handler(params, ctx)),
   */
  customRequest?(handler: CustomRequestHandler<never>, method: string): CustomRequestHandler<never>;
  /** The store of single-use `requestState`s it provides when `singleUseState` is `true` (a cluster's). */
  readonly stateStore?: RequestStateStore;
  /** Called once, when the server is created. */
  setup?(host: PluginHost): void;
  /**
   * True while the plugin has nothing to do for the requests that begin now (an instrumentation with nowhere to
   * record). Asked as each request begins, so it must be cheap (a field or two read). When every plugin with
   * request hooks (`admit`, `context`, `response`, `notification`, `clientRequest`, `subscribed`) says so, the
   * request is served as on a server without them: no {@link PluginCall} is built, none of those hooks runs for
   * it, its notifications pass as they are. Otherwise they all run, an idle plugin's included (which should then
   * do nothing); its hooks outside a request (`received`, a 2025-11-25 session's own notifications and requests)
   * run as usual.
   */
  idle?(): boolean;
  /**
   * A 2026-07-28 request was refused before the `admit` hooks (an unknown or removed method, missing or malformed
   * `_meta`, an unsupported protocol version; over Streamable HTTP, a routing header that does not match the body):
   * its error response. No other request hook runs for it, and `idle()` is not asked. For observing (a count, a
   * span); must not throw.
   *
   * @example
   * refused: (response, request) => refusals.add(1, { method: request.method }),
   */
  refused?(response: JsonRpcResponse, request: JsonRpcRequest): void;
  /** A request was admitted, before its handler waits for a slot: throw a `JsonRpcError` to refuse it. */
  admit?(call: PluginCall): void | Promise<void>;
  /**
   * The handler context of a request is being built: this plugin's data for the call, which the handler (and
   * the `answers` and `result` hooks) read as `ctx.pluginData[name]`; `undefined` sets nothing. Later hooks
   * without the context get the same `call` object: key per-request state by it (a `WeakMap`).
   */
  context?(call: PluginCall): unknown;
  /**
   * The handler answered (inside its executor slot): returns what to answer with instead, or the answer as it
   * is. Not called for an error.
   */
  result?(answer: unknown, call: PluginCall, context: RequestContext): unknown;
  /** On the way out: the response of a request (a replacement, or nothing to keep it). Must not throw. */
  response?(response: JsonRpcResponse, call: PluginCall): JsonRpcResponse | undefined;
  /**
   * A notification goes to a client: every one the server sends (a request's progress, log messages and custom
   * notifications; list changed, resource updated and `server.notify` to 2025-11-25 sessions; a 2026-07-28
   * subscription's events and the cancellation that ends an overflowed one; the cancellation of a
   * server-to-client request), in both eras, on every transport, after the per-request limits. Returns the
   * notification to send instead (e.g. with trace context in `params._meta`), or nothing to keep it. Must not
   * throw.
   */
  notification?(notification: JsonRpcNotification, out: PluginOutgoing): JsonRpcNotification | undefined;
  /**
   * The server sends a request to the client: in 2025-11-25 a real one (an input round's sampling, elicitation
   * and roots requests, `ctx.sendRequest`, a plugin method's `ask`); in 2026-07-28 each entry of an
   * `input_required` result's `inputRequests`, and of a task's status. Call `send` once, with the request or an
   * amended copy (trace context in `params._meta`), and return what it resolves with: the hook wraps the whole
   * exchange, so it can time it (a span from the request to the client's answer).
   */
  clientRequest?(
    request: PluginClientRequest,
    out: PluginOutgoing,
    send: PluginSendRequest,
  ): Promise<{ [key: string]: unknown } | undefined>;
  /**
   * A notification came from a client (`notifications/cancelled`, `notifications/initialized`, roots list changed,
   * a custom one), in both eras, on every transport, before the server acts on it. For observing only (a span, a
   * count): it cannot change or drop the notification. Must not throw.
   */
  received?(notification: JsonRpcNotification, from: PluginIncoming): void;
  /**
   * A 2026-07-28 `subscriptions/listen` opened (it was admitted, its filter chosen, its capacity found): `ended`
   * resolves once, with how it ended (`complete`, `overflow`, `cancelled`). `call` is the listen's, as its other
   * hooks got it. For observing (a gauge of open streams); must not throw.
   */
  subscribed?(call: PluginCall, ended: Promise<"complete" | "overflow" | "cancelled">): void;
  /** A broadcast went to this instance's subscribers (list changed, resource updated, custom). */
  broadcast?(message: Broadcast): Promise<void>;
  /** A 2025-11-25 session was initialized. */
  sessionOpened?(session: PluginSession): void;
  /** A 2025-11-25 session closed. */
  sessionClosed?(session: PluginSession): void;
  /** Resolves once the plugin serves fully (e.g. it joined a bus); awaited by `server.ready`. */
  ready?(): Promise<void>;
  /** Called by `server.close()`, in reverse order. */
  close?(): Promise<void>;
}
