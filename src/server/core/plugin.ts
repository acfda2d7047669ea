import type { AbortLike } from "../../jsonrpc/lazy-abort.js";
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../../jsonrpc/message.js";
import type { ClientCapabilities, ServerCapabilities } from "../../protocol/types/capabilities.js";
import type { InputRequests, InputResponses } from "../../protocol/types/input.js";
import type { Era } from "../../protocol/versions.js";
import type { Extension } from "../custom/extension.js";
import type { RequestStateStore } from "../state/store.js";
import type { RequestContext } from "./context.js";

export {
  type PluginAnswer,
  type PluginContextFields,
  pluginAnswer,
  pluginAnswerKind,
} from "./plugin-answer.js";

import type { ServerHandler } from "./handler.js";
import type { ServerLogger } from "./logger.js";
import type { PluginAnswer, PluginContextFields } from "./plugin-answer.js";

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
  /** The store of single-use `requestState`s it provides when `singleUseState` is `true` (a cluster's). */
  readonly stateStore?: RequestStateStore;
  /** Called once, when the server is created. */
  setup?(host: PluginHost): void;
  /** A request was admitted, before its handler waits for a slot: throw a `JsonRpcError` to refuse it. */
  admit?(call: PluginCall): void | Promise<void>;
  /** The handler context of a request is being built: fields to set on it. */
  context?(call: PluginCall): PluginContextFields | undefined;
  /**
   * The handler answered (inside its executor slot): returns what to answer with instead, or the answer as it
   * is. Not called for an error.
   */
  result?(answer: unknown, call: PluginCall, context: RequestContext): unknown;
  /** On the way out: the response of a request (a replacement, or nothing to keep it). Must not throw. */
  response?(response: JsonRpcResponse, call: PluginCall): JsonRpcResponse | undefined;
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
