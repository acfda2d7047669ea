import { AsyncResource } from "node:async_hooks";
import type { LookupFunction } from "node:net";
import { Client, type InputResolver, type RequestOptions } from "../client/index.js";
import type { HttpAuthProvider } from "../http/index.js";
import type { Clock } from "../jsonrpc/clock.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import type { LoggingMessageParams } from "../protocol/types/lifecycle.js";
import type { Prompt } from "../protocol/types/prompts.js";
import type { Resource, ResourceTemplate } from "../protocol/types/resources.js";
import { TASKS_EXTENSION } from "../protocol/types/tasks.js";
import type { Tool } from "../protocol/types/tools.js";
import { type Era, MODERN_VERSION } from "../protocol/versions.js";
import type { Transport } from "../transports/transport.js";
import type { UpstreamConfig } from "./config.js";
import { Limiter } from "./limiter.js";
import { ResourceSubscriptions } from "./resource-subscriptions.js";
import { openUpstream } from "./transport.js";

/** What an upstream lists, as it listed it (its own names and URIs). */
export interface UpstreamLists {
  tools: readonly Tool[];
  prompts: readonly Prompt[];
  resources: readonly Resource[];
  templates: readonly ResourceTemplate[];
}

/** What an upstream tells the gateway. */
export interface UpstreamEvents {
  /** Its lists changed: it came up, went down, or said `list_changed` and was listed again. */
  changed(upstream: Upstream): void;
  /** It said `notifications/resources/updated` about one of its URIs. */
  resourceUpdated(upstream: Upstream, uri: string): void;
  /** It sent a log message. */
  log(upstream: Upstream, message: LoggingMessageParams): void;
}

/** What an upstream needs from the gateway. */
export interface UpstreamDeps {
  clock: Clock;
  events: UpstreamEvents;
  restart: { readonly initialDelayMs: number; readonly maxDelayMs: number };
  /** Answers the upstream's requests for input (sampling, elicitation, roots) by asking a downstream client. */
  resolver: InputResolver;
  /** The credentials of an HTTP upstream beyond its static headers (an `OAuthClient`), if any. */
  authProvider: HttpAuthProvider | undefined;
  /** Wraps its transport (tracing), if the gateway was given a wrapper. */
  wrap: ((transport: Transport, upstream: string) => Transport) | undefined;
  /** How an HTTP upstream's host name is resolved (default `dns.lookup`). */
  lookup: LookupFunction | undefined;
  /** Where what only an operator should read goes (the server's logger). */
  log(message: string, details: { [key: string]: unknown }): void;
}

const EMPTY: UpstreamLists = Object.freeze({ tools: [], prompts: [], resources: [], templates: [] });
const LIMITS = { maxItems: 10_000, maxPages: 100 };

/**
 * One upstream server: its client (either era, as it negotiates), its lists, its health. It starts at boot or on
 * first use; a stdio upstream whose process ends is marked down (its lists withdrawn, `changed` told) and
 * started again after a backoff that doubles up to `restart.maxDelayMs`. Calls run through its own
 * {@link Limiter} under its own deadline, so a hung upstream holds only its own slots.
 */
export class Upstream {
  lists: UpstreamLists = EMPTY;
  private toolIndex: { lists: UpstreamLists; byName: Map<string, Tool> } | undefined;
  readonly limiter: Limiter;
  private readonly subscriptions: ResourceSubscriptions;
  private client: Client | undefined;
  private starting: Promise<Client> | undefined;
  private downReason: string | undefined;
  private delayMs: number;
  private timer: unknown;
  private closed = false;
  /**
   * Starts it in the async context it was made in, not the caller's: the call that happens to start a lazy
   * upstream does not own its connection, so a trace of that call never holds the handshake, the first lists or
   * the listen stream that lasts as long as the upstream.
   */
  private readonly detached = AsyncResource.bind((start: () => Promise<Client>) => start());

  constructor(
    readonly config: UpstreamConfig,
    private readonly deps: UpstreamDeps,
  ) {
    this.limiter = new Limiter(config.name, config.policy.maxConcurrent, config.policy.maxQueued);
    this.delayMs = deps.restart.initialDelayMs;
    this.subscriptions = new ResourceSubscriptions((uri) => deps.events.resourceUpdated(this, uri));
  }

  get name(): string {
    return this.config.name;
  }

  /** `up` (connected), `down` (waiting to restart), `starting`, or `idle` (lazy, never used yet). */
  get state(): "up" | "down" | "starting" | "idle" {
    if (this.client !== undefined) return "up";
    if (this.starting !== undefined) return "starting";
    return this.downReason === undefined ? "idle" : "down";
  }

  /** The protocol version the connected client negotiated; `undefined` while it is not up. */
  get era(): Era | undefined {
    return this.client?.era;
  }

  /** The connected client: starts the upstream if idle; a down upstream rejects with an error naming it. */
  use(): Promise<Client> {
    if (this.client !== undefined) return Promise.resolve(this.client);
    if (this.closed) return Promise.reject(this.unavailable("the gateway is closing"));
    if (this.starting !== undefined) return this.starting;
    if (this.downReason !== undefined) return Promise.reject(this.unavailable(this.downReason));
    return this.detached(() => this.start());
  }

  /** Its tool of that (its own) name, from its lists now; a map made once per listing, not a scan per call. */
  tool(name: string): Tool | undefined {
    if (this.toolIndex?.lists !== this.lists) {
      this.toolIndex = { lists: this.lists, byName: new Map(this.lists.tools.map((t) => [t.name, t])) };
    }
    return this.toolIndex.byName.get(name);
  }

  /** Runs one operation in a slot of this upstream, under its deadline and `signal`, with `extra` options. */
  async call<T>(
    work: (client: Client, options: RequestOptions & { timeoutMs: number }) => Promise<T>,
    signal?: AbortSignal,
    extra?: RequestOptions,
  ): Promise<T> {
    // Up (the common case): no hop through use().
    const client = this.client ?? (await this.use());
    return this.limiter.run(() => {
      const options: RequestOptions & { timeoutMs: number } = {
        ...extra,
        timeoutMs: this.config.policy.timeoutMs,
      };
      if (signal) options.signal = signal;
      return work(client, options).catch((error: unknown) => this.failed(client, error));
    }, signal);
  }

  /** A call's failure, as the client sees it; a refused authorization takes the upstream down. */
  private failed(client: Client, error: unknown): never {
    const refused = unauthorized(error);
    if (refused !== undefined) this.lose(client, `its authorization failed (UNAUTHORIZED): ${refused}`);
    throw this.translate(error);
  }

  /**
   * Subscribes to updates of one of its resources (its own URI), in its era, once for every downstream
   * subscriber; a resource server that does not offer subscriptions refuses with `-32601`.
   */
  async subscribe(uri: string): Promise<void> {
    const client = await this.use();
    if (client.serverCapabilities?.resources?.subscribe !== true) {
      throw new JsonRpcError(-32601, `upstream "${this.name}" offers no resource subscriptions`, {
        upstream: this.name,
      });
    }
    try {
      await this.subscriptions.add(client, uri);
    } catch (error) {
      throw this.translate(error);
    }
  }

  /**
   * Another gateway instance has a subscriber for `uri` (a scaled-out gateway): subscribes to it here too, so an
   * update caused through this instance is heard; an upstream not started yet subscribes when it starts. Never
   * starts it, and a refusal is dropped (the instance that took the subscription answered it).
   */
  async want(uri: string): Promise<void> {
    if (this.closed) return;
    const client = this.client;
    if (client === undefined) return this.subscriptions.remember(uri);
    if (client.serverCapabilities?.resources?.subscribe !== true) return;
    await this.subscriptions.add(client, uri).catch(() => {});
  }

  /** Stops it for good (its process tree with it). */
  async close(): Promise<void> {
    this.closed = true;
    this.subscriptions.clear();
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    const client = this.client ?? (await this.starting?.catch(() => undefined));
    this.client = undefined;
    await client?.close();
  }

  private start(): Promise<Client> {
    const starting = this.connect().finally(() => {
      if (this.starting === starting) this.starting = undefined;
    });
    this.starting = starting;
    return starting;
  }

  private async connect(): Promise<Client> {
    const { policy, target } = this.config;
    const opened = openUpstream(
      this.name,
      target,
      policy.timeoutMs,
      this.deps.authProvider,
      this.deps.lookup,
    );
    const client = new Client({
      transport: this.deps.wrap?.(opened.transport, this.name) ?? opened.transport,
      clientInfo: { name: "mcpkit-gateway", version: "0.1.0" },
      // The tasks extension: a 2026-07-28 upstream can run a call the gateway makes as a task as its own.
      capabilities: {
        sampling: {},
        elicitation: { form: {}, url: {} },
        roots: {},
        extensions: { [TASKS_EXTENSION]: {} },
      },
      onInputRequired: this.deps.resolver,
      callbackTimeoutMs: policy.timeoutMs,
      requestTimeoutMs: policy.timeoutMs,
      // A server that never finishes its handshake holds a first list no longer than this.
      connectTimeoutMs: policy.startTimeoutMs,
      versionFallback: "lenient",
      logLevel: "debug",
      onLog: (message) => this.deps.events.log(this, message),
      onNotification: (notification) => this.notified(client, notification.method, notification.params),
      logger: { warn: () => {} },
    });
    try {
      await client.connect();
      this.lists = await listAll(client, policy.startTimeoutMs);
    } catch (error) {
      await client.close().catch(() => {});
      // The client hears the kind of failure; the details (which may quote the server's stderr) go to the log.
      this.deps.log(`upstream "${this.name}" failed to start`, {
        upstream: this.name,
        error: describe(error),
      });
      const kind = error instanceof McpkitError ? ` (${error.code})` : "";
      const why = unauthorized(error) ?? opened.why();
      this.down(`it failed to start${kind}${why ? `: ${why}` : ""}`);
      throw this.unavailable(this.downReason ?? "");
    }
    if (this.closed) {
      await client.close();
      throw this.unavailable("the gateway is closing");
    }
    this.client = client;
    this.downReason = undefined;
    const upAt = this.deps.clock.now();
    void opened.ended.then(() => {
      if (this.client !== client || this.closed) return;
      this.client = undefined;
      // A process that stayed up a while starts over at the shortest backoff.
      if (this.deps.clock.now() - upAt >= this.deps.restart.maxDelayMs) {
        this.delayMs = this.deps.restart.initialDelayMs;
      }
      this.down(opened.why());
    });
    this.deps.events.changed(this);
    if (client.era === MODERN_VERSION) void this.follow(client);
    if (this.subscriptions.size > 0) void this.subscriptions.renew(client);
    return client;
  }

  /**
   * A 2026-07-28 upstream says what changed only on a `subscriptions/listen` stream: one is kept open for its
   * lists and reopened by the client's relisten policy; its events refresh the lists as 2025 notifications do.
   */
  private async follow(client: Client): Promise<void> {
    const caps = client.serverCapabilities ?? {};
    const filter = {
      ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
    };
    if (Object.keys(filter).length === 0) return;
    try {
      const subscription = await client.listenSubscriptions(filter);
      for await (const event of subscription) {
        if (this.client !== client) break;
        if (event.type === "notification") {
          void this.notified(client, event.notification.method, event.notification.params);
        }
      }
    } catch {
      // The upstream went away: its end withdraws the lists and its restart follows again.
    }
  }

  /**
   * Its credentials stopped working while it was up (a refresh token revoked, a login needed): it is down, its
   * items withdrawn, and started again after the backoff, which picks up a new login from the token store.
   */
  private lose(client: Client, reason: string): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    void client.close().catch(() => {});
    this.down(reason);
  }

  private down(reason: string): void {
    this.downReason = reason;
    const hadItems = this.lists !== EMPTY;
    this.lists = EMPTY;
    if (hadItems) this.deps.events.changed(this);
    const delay = this.delayMs;
    this.delayMs = Math.min(this.delayMs * 2, this.deps.restart.maxDelayMs);
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = undefined;
      if (this.closed) return;
      this.downReason = undefined;
      this.start().catch(() => {});
    }, delay);
  }

  private async notified(client: Client, method: string, params: unknown): Promise<void> {
    if (method === "notifications/resources/updated") {
      const uri = (params as { uri?: unknown } | undefined)?.uri;
      if (typeof uri === "string") this.deps.events.resourceUpdated(this, uri);
      return;
    }
    if (!method.endsWith("/list_changed") || this.client !== client) return;
    try {
      const lists = await listAll(client);
      if (this.client !== client) return;
      this.lists = lists;
      this.deps.events.changed(this);
    } catch {
      // The upstream went away meanwhile: its end withdraws the lists.
    }
  }

  /** An upstream's own JSON-RPC error passes on as it is; anything else names the upstream. */
  private translate(error: unknown): unknown {
    if (error instanceof JsonRpcError) return this.upstreamError(error);
    if (error instanceof McpkitError) {
      if (error.cause instanceof JsonRpcError) return this.upstreamError(error.cause);
      if (error.code === "TIMEOUT") {
        return new JsonRpcError(-32603, `upstream "${this.name}" did not answer in time`, {
          upstream: this.name,
          reason: "upstream_timeout",
        });
      }
      if (unauthorized(error) !== undefined) {
        return this.unavailable(this.downReason ?? "its authorization failed");
      }
      if (error.details?.reason === "private_address") {
        // The address is for the operator, not the client.
        this.deps.log(error.message, error.details);
        return this.unavailable("its host name resolved to a private address");
      }
      if (error.code === "CLOSED" || error.code === "TRANSPORT") {
        return this.unavailable("its connection ended during the call");
      }
    }
    return error;
  }

  /**
   * An upstream's JSON-RPC error passes on as it is (unknown tool, bad params, resource not found), but for
   * `-32603` and the generic `-32000`, whose text is the upstream's internals: the client gets a generic one
   * naming the upstream (the `gateway` preset's rule), the server's logger the original.
   */
  private upstreamError(error: JsonRpcError): JsonRpcError {
    if (error.code !== -32603 && error.code !== -32000) return error;
    this.deps.log(`upstream "${this.name}" answered an internal error`, {
      upstream: this.name,
      code: error.code,
      message: error.message,
    });
    return new JsonRpcError(-32603, `upstream "${this.name}" failed with an internal error`, {
      upstream: this.name,
      reason: "upstream_internal_error",
    });
  }

  private unavailable(reason: string): JsonRpcError {
    return new JsonRpcError(-32603, `upstream "${this.name}" is unavailable: ${reason}`, {
      upstream: this.name,
      reason: "upstream_unavailable",
    });
  }
}

async function listAll(client: Client, timeoutMs?: number): Promise<UpstreamLists> {
  const caps = client.serverCapabilities ?? {};
  const options = timeoutMs === undefined ? LIMITS : { ...LIMITS, timeoutMs };
  const [tools, prompts, resources, templates] = await Promise.all([
    caps.tools ? client.listAllTools(options) : [],
    caps.prompts ? client.listAllPrompts(options) : [],
    caps.resources ? client.listAllResources(options) : [],
    caps.resources ? client.listAllResourceTemplates(options).catch(() => []) : [],
  ]);
  return { tools, prompts, resources, templates };
}

/**
 * The message of an auth provider's `UNAUTHORIZED` failure (mcpkit/auth's errors never hold a token, code or
 * secret, so a client may read it: "log in first: ..."), or undefined for any other error.
 */
/**
 * The message of a refused authorization: `UNAUTHORIZED` (an auth provider gave up), as the error or its cause,
 * or an HTTP 401 that no provider handles (static `headers`).
 */
function unauthorized(error: unknown): string | undefined {
  if (error instanceof McpkitError && error.details?.reason === "unauthorized") return error.message;
  const cause = error instanceof McpkitError && error.code !== "UNAUTHORIZED" ? error.cause : error;
  return cause instanceof McpkitError && cause.code === "UNAUTHORIZED" ? cause.message : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
