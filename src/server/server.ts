import { McpkitError } from "../jsonrpc/errors.js";
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../jsonrpc/message.js";
import { customMethodProblem } from "../protocol/methods.js";
import type { RequestMeta } from "../protocol/request-meta.js";
import type { ServerCapabilities } from "../protocol/types/capabilities.js";
import type { Era } from "../protocol/versions.js";
import type { Transport } from "../transports/transport.js";
import { ServerConnection } from "./connection.js";
import type { NotificationSink } from "./core/context.js";
import { warnPublicCacheWithIdentity } from "./core/identity-source.js";
import { wantsList, wantsResource } from "./core/listen.js";
import type { ServerConfig } from "./core/options.js";
import type { Broadcast, PluginHost, ServerPlugin } from "./core/plugin.js";
import { createRuntime, type ServerRuntime } from "./core/runtime.js";
import type { Subscription, SubscriptionChannel } from "./core/subscription.js";
import { serveCustomNotification } from "./custom/dispatch.js";
import { LegacySession } from "./eras/legacy.js";
import { checkModernRequest, type ModernRequestEnv, serveModern } from "./eras/modern.js";
import { openSubscription } from "./eras/open-subscription.js";
import { type ServerOptions, serverConfig } from "./options.js";

const LIST_CHANGED = {
  tools: "notifications/tools/list_changed",
  resources: "notifications/resources/list_changed",
  prompts: "notifications/prompts/list_changed",
} as const;

/**
 * An MCP server that speaks both eras. Its configuration is frozen at creation; every connection shares one
 * handler executor (deadline and admission limit), one `requestState` key and one subscription publisher.
 *
 * @example
 * const server = createServer({ serverInfo: { name: "demo", version: "1.0.0" }, handler });
 * const [clientTransport, serverTransport] = createInProcessPair();
 * await server.connect(serverTransport);
 */
export class Server {
  /** @internal What the transports share. */
  readonly runtime: ServerRuntime;
  private readonly connections = new Set<ServerConnection>();

  /** @internal Use {@link createServer}. */
  constructor(readonly config: ServerConfig) {
    this.runtime = createRuntime(config);
    const host: PluginHost = {
      logger: config.logger,
      deliver: (message) => this.deliver(message),
      notifyListChanged: (family) => this.notifyListChanged(family),
      placeRequest: (request, out) =>
        config.hooks.clientRequest === undefined
          ? Promise.resolve(request)
          : config.hooks.placeRequest(request, out),
      load: () => ({ running: this.runtime.executor.running, queued: this.runtime.executor.queued }),
    };
    config.hooks.setup(host);
  }

  /**
   * Resolves once every plugin serves fully: with a `cluster`, once this instance receives the notifications
   * other instances publish on its bus and their signals about tasks running here (at once without plugins that
   * wait). Until then a change published elsewhere does not reach this instance's listeners.
   */
  get ready(): Promise<void> {
    return this.config.hooks.ready();
  }

  /**
   * The plugin of this server named `name` (its own features' too: `"tasks"`, `"cluster"`), if it has one.
   *
   * @example
   * const tasks = server.plugin("tasks") as TasksPlugin | undefined;
   * console.log(tasks?.engine?.runningCount);
   */
  plugin(name: string): ServerPlugin | undefined {
    return this.config.hooks.plugins.find((plugin) => plugin.name === name);
  }

  /** The same as {@link Server.ready} (its name from before plugins). */
  get clusterReady(): Promise<void> {
    return this.ready;
  }

  /**
   * The capabilities this server advertises: every extension, whichever era it serves (each era's own view is
   * `config.capabilitiesByEra`).
   */
  get capabilities(): ServerCapabilities {
    return this.config.capabilities;
  }

  /** Handler calls running now, across every connection. */
  get runningHandlers(): number {
    return this.runtime.executor.running;
  }

  /** Handler calls waiting for a slot now (see `maxQueuedHandlers`). */
  get queuedHandlers(): number {
    return this.runtime.executor.queued;
  }

  /** 2026-07-28 subscriptions (`subscriptions/listen`) open now, across every transport. */
  get subscriptionCount(): number {
    return this.runtime.publisher.size;
  }

  /**
   * Serves the server on a transport (stdio, in-process) until either side closes it. A transport with a
   * launch-static `identity` while the cache defaults are `ttlMs > 0` and `"public"` gets one warning per
   * server (identity-dependent cacheable output must be `"private"`).
   */
  async connect(transport: Transport): Promise<ServerConnection> {
    if (transport.identity !== undefined)
      warnPublicCacheWithIdentity(this.config, "the transport's identity");
    const connection = new ServerConnection(this.runtime, transport, (c) => this.connections.delete(c));
    this.connections.add(connection);
    try {
      await connection.start();
    } catch (error) {
      this.connections.delete(connection);
      throw error;
    }
    return connection;
  }

  /**
   * Serves one stateless 2026-07-28 request outside any connection (the HTTP transport's path). Never throws.
   * `checkedMeta`: the request's `_meta` as the transport already checked it (the same checks), not redone.
   */
  handleModern(
    request: JsonRpcRequest,
    env: ModernRequestEnv,
    checkedMeta?: RequestMeta,
  ): Promise<JsonRpcResponse> {
    return serveModern(this.runtime, request, env, checkedMeta);
  }

  /**
   * Hands a stateless client notification to the server's custom handler of its method for `era` (the HTTP
   * transport's 2026-07-28 path). Returns false when no handler takes it. Never throws.
   */
  receiveNotification(notification: JsonRpcNotification, era: Era, identity?: unknown): boolean {
    this.runtime.config.hooks.received?.(notification, { era, session: undefined, identity });
    return serveCustomNotification(this.runtime, era, notification, identity);
  }

  /**
   * Opens the 2026-07-28 subscription of a `subscriptions/listen` request whose `_meta` was checked, writing its
   * messages to `channel` (the HTTP transport's path), after the handler's `subscriptionFilter` hook, if any,
   * chose its filter (with `env`'s identity and signal). Rejects with the `JsonRpcError` to answer with instead:
   * `-32602` for a malformed filter, `-32603` "Subscription capacity reached" past `maxSubscriptions`, the
   * hook's own error; anything else the hook throws or a filter outside the request is sent as `-32603`.
   */
  listen(
    request: JsonRpcRequest,
    channel: SubscriptionChannel,
    env: Omit<ModernRequestEnv, "notify"> = {},
    checkedMeta?: RequestMeta,
  ): Promise<Subscription> {
    try {
      const meta = checkedMeta ?? checkModernRequest(request);
      return openSubscription(this.runtime, request, channel, env, meta);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Opens a 2025-11-25 session whose notifications go to `notify` (the HTTP transport's path). Its
   * server-to-client requests go where each request's `send` says. `id` is the transport's id of the session
   * (HTTP: its `Mcp-Session-Id`), what plugins see as `session.id`; a random one when absent.
   */
  createLegacySession(notify: NotificationSink, id?: string): LegacySession {
    return new LegacySession(this.runtime, notify, undefined, id);
  }

  /**
   * Tells subscribers that a list changed: every ready 2025-11-25 session, and every 2026-07-28 subscription
   * whose filter took that family. Needs `listChanged` for the family in the options; otherwise nothing is
   * sent. With a `cluster`, the subscribers of every instance (through the bus; this instance's first, so a
   * bus that cannot be reached rejects with `McpkitError` `UNAVAILABLE` after the local delivery).
   */
  async notifyListChanged(family: keyof typeof LIST_CHANGED): Promise<void> {
    if (!this.config.capabilities[family]?.listChanged) return;
    await this.broadcast({ kind: "list", family });
  }

  /**
   * Tells subscribers that the resource at `uri` changed (`notifications/resources/updated`): the 2025-11-25
   * sessions that `resources/subscribe`d to it, and the 2026-07-28 subscriptions whose `resourceSubscriptions`
   * name it. Needs the `subscribe` option; otherwise nothing is sent. With a `cluster`, on every instance, as
   * for `notifyListChanged`.
   */
  async notifyResourceUpdated(uri: string): Promise<void> {
    if (!this.config.capabilities.resources?.subscribe) return;
    await this.broadcast({ kind: "resource", uri });
  }

  /**
   * Sends a custom notification to every ready 2025-11-25 session (on HTTP, on each session's GET stream). A
   * 2026-07-28 client has no session to receive it: send request-scoped ones with `ctx.notify` instead. Core
   * notification names reject with `McpkitError` `UNSUPPORTED` (use `notifyListChanged` and
   * `notifyResourceUpdated`).
   *
   * @example
   * await server.notify("acme/index_rebuilt", { documents: 1200 });
   */
  async notify(method: string, params?: { [key: string]: unknown }): Promise<void> {
    if (typeof method !== "string" || customMethodProblem(method) !== undefined) {
      throw new McpkitError("UNSUPPORTED", `cannot send the notification ${String(method)} this way`, {
        details: { method, reason: "reserved_method" },
      });
    }
    const notification: JsonRpcNotification =
      params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
    await this.broadcast({ kind: "custom", notification });
  }

  /** Delivers a broadcast here, then hands it to the plugins (a cluster's tells the other instances). */
  private async broadcast(message: Broadcast): Promise<void> {
    await this.deliver(message);
    await this.config.hooks.broadcast?.(message);
  }

  /** Delivers a notification to this instance's subscriptions and sessions (from here or another instance). */
  private async deliver(message: Broadcast): Promise<void> {
    const { publisher, sessions } = this.runtime;
    if (message.kind === "list") {
      const family = message.family;
      const notification: JsonRpcNotification = { jsonrpc: "2.0", method: LIST_CHANGED[family] };
      publisher.publish(notification, (filter) => wantsList(filter, family));
      await Promise.all([...sessions].map((session) => session.notifySession(notification)));
    } else if (message.kind === "resource") {
      const uri = message.uri;
      const notification: JsonRpcNotification = {
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri },
      };
      publisher.publish(notification, (filter) => wantsResource(filter, uri));
      await Promise.all([...sessions].map((session) => session.notifyResourceUpdated(uri)));
    } else {
      await Promise.all([...sessions].map((session) => session.notifySession(message.notification)));
    }
  }

  /**
   * Ends every 2026-07-28 subscription gracefully (each gets its `complete` result; at most 5 s are spent waiting
   * for them), then closes every connection.
   */
  async close(): Promise<void> {
    await this.config.hooks.close();
    await this.runtime.publisher.completeAll();
    await Promise.allSettled([...this.connections].map((c) => c.close()));
  }
}

/**
 * Creates a server from a low-level handler and options. Throws `McpkitError` `INVALID_CONFIG` for bad options
 * or a partial callback family.
 *
 * @example
 * const server = createServer({
 *   serverInfo: { name: "calc", version: "1.0.0" },
 *   handler: {
 *     listTools: () => ({ tools: [{ name: "add", inputSchema: { type: "object" } }] }),
 *     callTool: ({ arguments: a }) => ({ content: [{ type: "text", text: String(Number(a.x) + Number(a.y)) }] }),
 *   },
 * });
 */
export function createServer(options: ServerOptions): Server {
  return new Server(serverConfig(options));
}
