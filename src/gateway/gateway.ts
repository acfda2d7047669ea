import type { LookupFunction } from "node:net";
import { type HttpAuthProvider, isAuthProvider } from "../http/index.js";
import { type Clock, systemClock } from "../jsonrpc/clock.js";
import { optionError, positiveInteger } from "../jsonrpc/config-check.js";
import type { Implementation } from "../protocol/types/common.js";
import type { Era } from "../protocol/versions.js";
import {
  createServer,
  type Server,
  type ServerLogger,
  type ServerOptions,
  type ServerPlugin,
} from "../server/index.js";
import type { Transport } from "../transports/transport.js";
import { Access } from "./access.js";
import { Bridge } from "./bridge.js";
import { CatalogueBuilder } from "./catalogue.js";
import { type GatewayConfig, parseGatewayConfig, type UpstreamConfig } from "./config.js";
import { gatewayHandler, type HandlerDeps, subscribeUpstream } from "./handler.js";
import { Namespace } from "./names.js";
import { SharedSubscriptions } from "./shared-subscriptions.js";
import { Upstream, type UpstreamEvents } from "./upstream.js";

/** Options of {@link createGateway}. */
export interface GatewayOptions
  extends Omit<ServerOptions, "handler" | "serverInfo" | "listChanged" | "subscribe"> {
  /** The config: the `mcpServers` shape plus gateway keys (docs/gateway.md), as parsed JSON or checked. */
  config: unknown;
  /** Name and version the gateway gives its clients (default `mcpkit-gateway`). */
  serverInfo?: Implementation;
  /** Calls waiting for a client's next input round at once (default 256). */
  maxParkedCalls?: number;
  /** How long a call waits for the client's next input round (default 120,000 ms). */
  inputRoundTimeoutMs?: number;
  /**
   * Credentials of HTTP upstreams beyond their static `headers`: by upstream name, an `HttpAuthProvider`, such as
   * mcpkit/auth's `OAuthClient` with a machine grant (`client_credentials`) and its own token store, so each
   * upstream has its own tokens; or a function making one for an upstream of the config (called again for each
   * upstream a reload adds or changes). A name that is no HTTP upstream of the config is refused, and so is an
   * upstream whose entry has `oauth` but gets no provider (`INVALID_CONFIG`): `mcpkit gateway` makes those.
   *
   * @example
   * authProviders: { search: new OAuthClient({ grant: { type: "client_credentials", clientId, clientSecret } }) }
   */
  authProviders?:
    | { readonly [upstream: string]: HttpAuthProvider }
    | ((upstream: UpstreamConfig, config: GatewayConfig) => HttpAuthProvider | undefined);
  /**
   * Wraps the transport of each upstream (called once per connection, each start and restart, with the
   * upstream's name): mcpkit/otel's `otelClientTransport`, with `otelServerPlugin()` in `plugins`, makes a
   * client's call, the gateway's call to the upstream and the upstream's own span one trace (docs/gateway.md).
   * The gateway imports nothing of OpenTelemetry: without this option its upstreams' transports are used as they are.
   *
   * @example
   * createGateway({ config, plugins: [otelServerPlugin()], upstreamTransport: (t) => otelClientTransport(t) });
   */
  upstreamTransport?: (transport: Transport, upstream: string) => Transport;
  /**
   * How HTTP upstreams' host names are resolved, as `net.connect`'s `lookup` (default `dns.lookup`): a resolver of
   * your own (split-horizon DNS, a fixed table). Every address it answers is checked on each new connection:
   * a private or link-local one is refused unless the upstream's `allowPrivateAddress` is set.
   *
   * @example
   * lookup: (host, options, callback) => dns.lookup(host, { ...options, family: 4 }, callback)
   */
  lookup?: LookupFunction;
  /** The clock of restarts and round expiries (tests pass a manual one). */
  clock?: Clock;
}

/** The state of one upstream, as {@link GatewayPlugin.status} reports it. */
export interface UpstreamStatus {
  /** The upstream's name. */
  name: string;
  /** `up`, `down` (waiting to restart), `starting`, or `idle` (lazy, not used yet). */
  state: "up" | "down" | "starting" | "idle";
  /** The protocol version it speaks with the gateway (`2025-11-25` or `2026-07-28`), while it is up. */
  era: Era | undefined;
  /** Tools it serves through the gateway now (after its policy). */
  tools: number;
  /** Calls running on it now. */
  running: number;
  /** Calls waiting for one of its slots now. */
  queued: number;
}

/**
 * The gateway's own plugin (`server.plugin("gateway")`): boots the upstreams marked `start: "boot"` when the
 * server is ready, closes them with the server, and reloads the config.
 */
export interface GatewayPlugin extends ServerPlugin {
  /** Each upstream's state and how many tools it serves now. */
  status(): UpstreamStatus[];
  /**
   * Takes a new config: upstreams whose entry is unchanged keep running (their calls and processes untouched),
   * removed or changed ones are closed, new or changed ones start as their config says. The separator and URI
   * scheme cannot change without a restart (`INVALID_CONFIG`).
   */
  reload(config: unknown): Promise<void>;
}

/**
 * Creates an mcpkit server in front of the upstream MCP servers of a desktop-style config (`mcpServers`):
 * their tools, prompts, resources, templates and completions, namespaced by upstream (`fs__read_file`,
 * `gateway://fs/file:///notes.md`), each upstream in its own era, their requests for input carried to the
 * client, with the config's policy and the `gateway` security preset. Serve it on any transport;
 * `await server.ready` starts the `boot` upstreams, `server.close()` stops them all.
 *
 * @example
 * const server = createGateway({
 *   config: { mcpServers: { everything: { command: "npx", args: ["@modelcontextprotocol/server-everything"] } } },
 * });
 * await server.ready;
 * serveStdio(server);
 */
export function createGateway(options: GatewayOptions): Server {
  const {
    config: input,
    serverInfo,
    maxParkedCalls,
    inputRoundTimeoutMs,
    clock,
    plugins,
    authProviders,
    upstreamTransport,
    lookup,
    ...rest
  } = options;
  if (upstreamTransport !== undefined && typeof upstreamTransport !== "function") {
    throw optionError("upstreamTransport", "must be a function");
  }
  let config = parseGatewayConfig(input);
  checkAuthProviders(authProviders, config);
  if (config.redis !== undefined && rest.cluster === undefined) {
    throw optionError(
      "gateway.redis",
      "is read by `mcpkit gateway`; a program passes the cluster option (mcpkit/redis createRedisCluster)",
    );
  }
  refuseAuth(config);
  const time = clock ?? systemClock;
  const names = new Namespace(config.separator, config.uriScheme);
  const catalogue = new CatalogueBuilder(names);
  const bridge = new Bridge(time, {
    maxParked: positiveInteger(maxParkedCalls, 256, "maxParkedCalls", "gateway option "),
    roundTimeoutMs: positiveInteger(inputRoundTimeoutMs, 120_000, "inputRoundTimeoutMs", "gateway option "),
  });
  let upstreams = new Map<string, Upstream>();
  let server: Server | undefined;
  let logger: ServerLogger | undefined;
  // A cluster whose bus cannot be reached rejects after the local delivery: logged, never unhandled.
  const published = (what: string) => (error: unknown) =>
    logger?.warn(`could not publish ${what}`, { error });
  const notifyAll = () => {
    for (const family of ["tools", "prompts", "resources"] as const) {
      server?.notifyListChanged(family).catch(published(`${family} list_changed`));
    }
  };
  const events: UpstreamEvents = {
    changed: () => notifyAll(),
    resourceUpdated: (upstream, uri) =>
      server?.notifyResourceUpdated(names.uri(upstream.name, uri)).catch(published("a resource update")),
    log: (upstream, message) => bridge.log(upstream.name, message),
  };
  const make = (entry: UpstreamConfig, within = config) =>
    new Upstream(entry, {
      clock: time,
      events,
      restart: config.restart,
      resolver: bridge.resolver(entry.name),
      authProvider: providerOf(authProviders, entry, within),
      wrap: upstreamTransport,
      lookup,
      log: (message, details) => logger?.warn(message, details),
    });
  const boot = (list: Iterable<Upstream>) =>
    Promise.allSettled([...list].filter((u) => u.config.start === "boot").map((u) => u.use())).then(() => {});
  for (const entry of config.upstreams) upstreams.set(entry.name, make(entry));

  let access = new Access(config.access);
  const shared = new SharedSubscriptions(
    rest.cluster?.bus,
    (name, uri) => void upstreams.get(name)?.want(uri),
    (message, details) => logger?.warn(message, details),
  );
  const deps: HandlerDeps = {
    upstreams: () => upstreams,
    access: () => access,
    names,
    catalogue,
    bridge,
    clock: time,
    shareSubscription: (upstream, uri) => shared.share(upstream, uri),
  };
  const plugin: GatewayPlugin = {
    name: "gateway",
    setup(host) {
      logger = host.logger;
    },
    // 2025-11-25 `resources/subscribe`: the upstream subscribes first, so a refusal reaches the client.
    async admit(call) {
      if (call.method !== "resources/subscribe") return;
      const uri = call.params.uri;
      if (typeof uri === "string") await subscribeUpstream(deps, uri, call.identity);
    },
    ready: async () => {
      await shared.start();
      await boot(upstreams.values());
    },
    async close() {
      bridge.close();
      await shared.close();
      await Promise.allSettled([...upstreams.values()].map((u) => u.close()));
    },
    status: () =>
      [...upstreams.values()].map((u) => ({
        name: u.name,
        state: u.state,
        era: u.era,
        tools: u.lists.tools.filter((t) => catalogue.serves(u, t)).length,
        running: u.limiter.active,
        queued: u.limiter.queued,
      })),
    async reload(next) {
      // Auth providers of upstreams a reload removes stay unused.
      const checked: GatewayConfig = parseGatewayConfig(next);
      refuseAuth(checked);
      if (
        checked.separator !== config.separator ||
        checked.uriScheme !== config.uriScheme ||
        JSON.stringify(checked.redis) !== JSON.stringify(config.redis) ||
        checked.tasks !== config.tasks
      ) {
        throw optionError(
          "gateway",
          "separator, uriScheme, redis and tasks cannot change on reload; restart the gateway",
        );
      }
      checkAuthProviders(authProviders, checked);
      const kept = new Map<string, Upstream>();
      const stale: Upstream[] = [];
      for (const entry of checked.upstreams) {
        const old = upstreams.get(entry.name);
        if (old !== undefined && JSON.stringify(old.config) === JSON.stringify(entry))
          kept.set(entry.name, old);
        else kept.set(entry.name, make(entry, checked));
      }
      for (const [name, old] of upstreams) if (kept.get(name) !== old) stale.push(old);
      config = checked;
      upstreams = kept;
      access = new Access(checked.access);
      notifyAll();
      await Promise.allSettled(stale.map((u) => u.close()));
      await boot([...kept.values()].filter((u) => u.state === "idle"));
    },
  };

  // A call waiting in an upstream's limiter holds an engine slot: the engine has one for every call the limiters
  // admit (running and queued), plus room for lists, so a hung upstream fills its own limiter and nothing else.
  // The sizes are fixed at creation: upstreams a reload adds share the headroom.
  const admitted = config.upstreams.reduce((sum, u) => sum + u.policy.maxConcurrent + u.policy.maxQueued, 0);
  const slowest = Math.max(...config.upstreams.map((u) => u.policy.timeoutMs), 60_000);
  server = createServer({
    maxConcurrentHandlers: Math.max(256, admitted + 64),
    maxQueuedHandlers: 1_024,
    // An upstream's own deadline ends its calls first, with an error naming it.
    handlerTimeoutMs: slowest + 5_000,
    ...(config.tasks ? { tasks: true } : {}),
    ...rest,
    serverInfo: serverInfo ?? { name: "mcpkit-gateway", version: "0.1.0" },
    handler: gatewayHandler(deps),
    listChanged: { tools: true, prompts: true, resources: true },
    subscribe: true,
    policy: rest.policy ?? { preset: "gateway" },
    plugins: [plugin, ...(plugins ?? [])],
  });
  return server;
}

type AuthProviders = GatewayOptions["authProviders"];

/**
 * Each auth provider of a record names an HTTP upstream of the config, and is one; every upstream whose entry has
 * `oauth` gets one (a function is asked, and what it makes is checked, when the upstream is made).
 */
/** `gateway.auth` is `mcpkit gateway`'s: a program that forgot its own `authenticate` would serve everyone. */
function refuseAuth(config: GatewayConfig): void {
  if (config.auth === undefined) return;
  throw optionError(
    "gateway.auth",
    "is read by `mcpkit gateway`; a program puts mcpkit/auth's requireBearer in front (docs/gateway.md)",
  );
}

function checkAuthProviders(providers: AuthProviders, config: GatewayConfig): void {
  if (typeof providers === "function") return;
  for (const [name, provider] of Object.entries(providers ?? {})) {
    const upstream = config.upstreams.find((u) => u.name === name);
    if (upstream?.target.kind !== "http") {
      throw optionError(`authProviders.${name}`, "names no HTTP upstream of the config");
    }
    if (!isAuthProvider(provider)) {
      throw optionError(`authProviders.${name}`, "must have headers() and onChallenge()");
    }
  }
  for (const upstream of config.upstreams) {
    if (upstream.target.kind === "http" && upstream.target.oauth !== undefined) {
      providerOf(providers, upstream, config);
    }
  }
}

/** The provider of one upstream; one whose entry has `oauth` must get one. */
function providerOf(
  providers: AuthProviders,
  upstream: UpstreamConfig,
  config: GatewayConfig,
): HttpAuthProvider | undefined {
  const provider =
    upstream.target.kind !== "http"
      ? undefined
      : typeof providers === "function"
        ? providers(upstream, config)
        : providers?.[upstream.name];
  if (provider !== undefined && !isAuthProvider(provider)) {
    throw optionError(`authProviders.${upstream.name}`, "must have headers() and onChallenge()");
  }
  if (provider === undefined && upstream.target.kind === "http" && upstream.target.oauth !== undefined) {
    throw optionError(
      `authProviders.${upstream.name}`,
      `is required: mcpServers.${upstream.name}.oauth is set (mcpkit gateway makes one from it; a program passes it)`,
    );
  }
  return provider;
}
