import { checkKeys, nonNegativeInteger, optionError, positiveInteger } from "../../jsonrpc/config-check.js";
import type { McpkitError } from "../../jsonrpc/errors.js";
import { DEFAULT_LOG_INTERVAL_MS, limitLogger } from "../../jsonrpc/log-limiter.js";
import { isObject } from "../../jsonrpc/message.js";
import type { ExtensionMap, ServerCapabilities } from "../../protocol/types/capabilities.js";
import type { CacheHints, Implementation, JsonObject } from "../../protocol/types/common.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../../protocol/versions.js";
import type { CustomRequestHandler, NotificationEntry, RequestEntry } from "../custom/custom.js";
import type { Extension } from "../custom/extension.js";
import { withExtensionResources } from "../custom/extension-resources.js";
import {
  buildCustomSurface,
  type CustomMethods,
  type CustomSurface,
  mergeCustomSurface,
} from "../custom/methods.js";
import { stateSecret } from "../state/request-state.js";
import { isRequestStateStore, MemoryRequestStateStore, type RequestStateStore } from "../state/store.js";
import { type CallbackFamily, checkHandler, HANDLER_CALLBACKS, type ServerHandler } from "./handler.js";
import type { ServerLogger } from "./logger.js";
import type { ServerPlugin } from "./plugin.js";
import { PluginHooks } from "./plugins.js";
import { type ServerPolicyInput, type ServerSecurityPolicy, serverPolicy } from "./policy.js";

export type { ServerLogger } from "./logger.js";

/**
 * The options of the server engine: everything of `ServerOptions` but the features that join it as plugins
 * (`tasks`, `cluster`).
 */
export interface EngineOptions {
  /** Name and version sent to clients (`initialize` result, or `_meta` of every 2026 result). */
  serverInfo: Implementation;
  /** The callbacks that answer requests. */
  handler: ServerHandler;
  /** Text that tells a model how to use this server. */
  instructions?: string;
  /**
   * Extensions: an array of {@link Extension}s (`defineExtension`: id, settings, methods, eras), or a map of
   * namespaced ids to settings (`{}` = no settings), advertised in both eras and adding no methods. Each is
   * advertised under `capabilities.extensions` in `server/discover` and `initialize` of the eras it serves.
   */
  extensions?: ExtensionMap | readonly Extension[];
  /**
   * Custom request methods served in both eras, by name: a handler or a `defineRequest` definition. Core MCP
   * method names and `rpc.*` are refused with `INVALID_CONFIG`.
   */
  requests?: { [method: string]: RequestEntry };
  /**
   * Handlers of client-to-server notifications, by name (custom names, and
   * `notifications/roots/list_changed`); run under the handler executor, failures logged.
   */
  notifications?: { [method: string]: NotificationEntry };
  /** `experimental` capabilities, sent as they are. */
  experimental?: { [key: string]: JsonObject };
  /** Advertise `listChanged` for these families (you then call `server.notifyListChanged`). */
  listChanged?: { tools?: boolean; resources?: boolean; prompts?: boolean };
  /** Default cache hints of 2026 cacheable results (default `{ ttlMs: 0, cacheScope: "public" }`). */
  cache?: Partial<CacheHints>;
  /** Deadline of one handler call (default 30,000 ms). */
  handlerTimeoutMs?: number;
  /** Handler calls running at once across every connection (default 32). */
  maxConcurrentHandlers?: number;
  /**
   * Handler calls that may wait for a slot when all are taken (default 1,024; 0 refuses at once). Waiting counts
   * against `handlerTimeoutMs`; a call that finds the queue full gets `-32603` "handler capacity reached" with
   * `data.retryAfterMs` (over HTTP in a 200 with `Retry-After`, which the official clients handle; a 503 they
   * do not).
   */
  maxQueuedHandlers?: number;
  /** Where problems that cannot reach a peer are reported (default: `console.warn` / `console.error`). */
  logger?: ServerLogger;
  /**
   * Rate limit of the logger, so that a peer cannot drive log volume (default 60,000 ms; 0 logs every line): the
   * first line of a kind is logged, further ones within this interval are only counted, and one line then says
   * how many (`dropped a response to no request: 9999 more in the last 60 s`).
   */
  logIntervalMs?: number;
  /**
   * Advertise `resources.subscribe`: 2025-11-25 `resources/subscribe` and the 2026-07-28 `resourceSubscriptions`
   * filter (you then call `server.notifyResourceUpdated(uri)`). Needs the resources callbacks.
   */
  subscribe?: boolean;
  /**
   * The key that seals `requestState` (HMAC-SHA256), at least 32 bytes. Default: 32 random bytes per server, drawn when
   * the first state is sealed or opened (not at `build()`: Workers forbid random values at module scope), so a
   * state only opens on the server instance that sealed it: give every instance behind a load balancer the same
   * key.
   */
  stateKey?: string | Uint8Array;
  /**
   * Keys that sealed `requestState` before the current `stateKey` (at most 4, each at least 32 bytes): tokens
   * they sealed still open until they expire; new tokens are sealed with `stateKey` only (default none). To
   * rotate without breaking rounds in flight, deploy the new key as `stateKey` with the old one here, and drop
   * the old one after `requestStateTtlMs`.
   *
   * @example
   * createServer({ serverInfo, handler, stateKey: env.STATE_KEY, previousStateKeys: [env.STATE_KEY_PREVIOUS] });
   */
  previousStateKeys?: readonly (string | Uint8Array)[];
  /** How long a sealed `requestState` stays valid (default 600,000 ms). */
  requestStateTtlMs?: number;
  /**
   * 2026-07-28: a sealed `requestState` opens for one handler round only (default `false`: it opens until it
   * expires). `true` keeps the unspent nonces in a {@link MemoryRequestStateStore} (10,000 at most; past that a
   * call that asks for input gets `-32603` "State capacity reached"); or pass your own {@link RequestStateStore},
   * shared by every instance behind a load balancer. A replay gets `-32602` (`data.reason` `used`).
   */
  singleUseState?: boolean | RequestStateStore;
  /**
   * 2025-11-25: handler calls (rounds) one request may take; a handler that still answers `inputRequired()` on
   * the last one fails the request with `-32603` (default 16).
   */
  maxInputRounds?: number;
  /** 2025-11-25: server-to-client requests awaiting an answer at once, per session (default 32). */
  maxClientRequests?: number;
  /** 2025-11-25: `resources/subscribe` URIs per session (default 1,024). */
  maxSessionSubscriptions?: number;
  /** 2026-07-28: `subscriptions/listen` streams open at once on this server (default 1,024). */
  maxSubscriptions?: number;
  /** 2026-07-28: events queued per subscription before it overflows and ends (default 256). */
  subscriptionQueueEvents?: number;
  /** 2026-07-28: bytes queued per subscription before it overflows and ends (default 1,000,000). */
  subscriptionQueueBytes?: number;
  /**
   * Notifications (progress, log messages) one request may send while it is served, on every transport
   * (default 256). Past it, and past `maxNotificationBytes`, the request's further notifications are dropped:
   * the handler goes on and its response is sent; the drop is logged once per request as a warning.
   */
  maxNotificationsPerRequest?: number;
  /** Bytes of JSON one request's notifications may add up to (default 1,000,000); see `maxNotificationsPerRequest`. */
  maxNotificationBytes?: number;
  /**
   * Plugins (docs/plugins.md): features that join the server through its hooks, capabilities and methods, in
   * this order.
   */
  plugins?: readonly ServerPlugin[];
  /**
   * The security policy: a preset (`default`, `gateway`) and overrides (see {@link serverPolicy}). `gateway`
   * keeps the text of errors a tool throws out of its answers (`toolErrors: "generic"`).
   *
   * @example
   * new ServerBuilder({ serverInfo, policy: { preset: "gateway" } });
   */
  policy?: ServerPolicyInput;
}

/** The bounds of input rounds, subscriptions, server-to-client requests and request notifications. */
export interface ServerLimits {
  readonly requestStateTtlMs: number;
  readonly maxInputRounds: number;
  readonly maxClientRequests: number;
  readonly maxSessionSubscriptions: number;
  readonly maxSubscriptions: number;
  readonly subscriptionQueueEvents: number;
  readonly subscriptionQueueBytes: number;
  readonly maxNotificationsPerRequest: number;
  readonly maxNotificationBytes: number;
}

/** The immutable, checked configuration a server runs on. */
export interface ServerConfig {
  readonly serverInfo: Implementation;
  readonly handler: ServerHandler;
  readonly instructions: string | undefined;
  /** What the server advertises: every extension, whichever era it serves. */
  readonly capabilities: ServerCapabilities;
  /** What each era advertises (`server/discover`, `initialize`): only that era's extensions. */
  readonly capabilitiesByEra: { readonly [era in Era]: ServerCapabilities };
  /** The custom request and notification handlers, by era. */
  readonly custom: CustomMethods;
  readonly families: { readonly [family in CallbackFamily]: boolean };
  readonly cache: CacheHints;
  readonly handlerTimeoutMs: number;
  readonly maxConcurrentHandlers: number;
  readonly maxQueuedHandlers: number;
  readonly logger: ServerLogger;
  /** The security policy in force. */
  readonly policy: ServerSecurityPolicy;
  readonly limits: ServerLimits;
  /**
   * The `requestState` HMAC key; `undefined` for the default, 32 random bytes drawn on first use (not at
   * build(): Workers forbid random values at module scope, where servers are built).
   */
  readonly stateKey: Uint8Array | undefined;
  /** Keys that open `requestState` sealed before a rotation (never used to seal). */
  readonly previousStateKeys: readonly Uint8Array[];
  /** Where single-use states are spent; `undefined` when states open until they expire. */
  readonly stateStore: RequestStateStore | undefined;
  /** @internal The plugins' hooks, resolved once. */
  readonly hooks: PluginHooks;
}

const LIMIT_DEFAULTS: ServerLimits = {
  requestStateTtlMs: 600_000,
  maxInputRounds: 16,
  maxClientRequests: 32,
  maxSessionSubscriptions: 1024,
  maxSubscriptions: 1024,
  subscriptionQueueEvents: 256,
  subscriptionQueueBytes: 1_000_000,
  maxNotificationsPerRequest: 256,
  maxNotificationBytes: 1_000_000,
};

const OPTION_KEYS = new Set([
  "serverInfo",
  "handler",
  "instructions",
  "extensions",
  "requests",
  "notifications",
  "experimental",
  "listChanged",
  "cache",
  "handlerTimeoutMs",
  "maxConcurrentHandlers",
  "maxQueuedHandlers",
  "logger",
  "logIntervalMs",
  "subscribe",
  "stateKey",
  "singleUseState",
  "previousStateKeys",
  "plugins",
  "policy",
  ...Object.keys(LIMIT_DEFAULTS),
]);

/** Checks options and freezes them into a {@link ServerConfig}. Throws `INVALID_CONFIG` naming the fault. */
export function buildServerConfig(
  options: EngineOptions,
  features: (logger: ServerLogger, policy: ServerSecurityPolicy) => readonly ServerPlugin[] = () => [],
): ServerConfig {
  if (!isObject(options)) throw invalid("options", "must be an object");
  checkKeys(options, OPTION_KEYS, SCOPE);
  const info = options.serverInfo;
  if (!isObject(info) || typeof info.name !== "string" || typeof info.version !== "string") {
    throw invalid("serverInfo", "must have string name and version");
  }
  if (!isObject(options.handler)) throw invalid("handler", "must be an object");
  checkHandler(options.handler);
  if (options.instructions !== undefined && typeof options.instructions !== "string") {
    throw invalid("instructions", "must be a string");
  }
  const handlerTimeoutMs = positiveInteger(options.handlerTimeoutMs, 30_000, "handlerTimeoutMs", SCOPE);
  const maxConcurrentHandlers = positiveInteger(
    options.maxConcurrentHandlers,
    32,
    "maxConcurrentHandlers",
    SCOPE,
  );
  const maxQueuedHandlers = nonNegativeInteger(options.maxQueuedHandlers, 1024, "maxQueuedHandlers", SCOPE);
  const logIntervalMs = nonNegativeInteger(
    options.logIntervalMs,
    DEFAULT_LOG_INTERVAL_MS,
    "logIntervalMs",
    SCOPE,
  );
  const logger = options.logger ?? consoleLogger;
  if (!isObject(logger) || typeof logger.warn !== "function" || typeof logger.error !== "function") {
    throw invalid("logger", "must have warn(message, details) and error(message, details) methods");
  }
  const cache = checkCache(options.cache);
  const policy = serverPolicy(options.policy ?? {});
  if (options.plugins !== undefined && !Array.isArray(options.plugins)) {
    throw invalid("plugins", "must be an array of plugins");
  }
  const limited = limitLogger(logger, logIntervalMs);
  const hooks = new PluginHooks([...features(limited, policy), ...(options.plugins ?? [])]);
  const pluginExtensions = hooks.plugins.flatMap((plugin) => plugin.extensions ?? []);
  const surface = buildCustomSurface(
    pluginExtensions.length === 0
      ? options
      : mergeCustomSurface(options, { requests: {}, notifications: {}, extensions: pluginExtensions }),
  );
  for (const plugin of hooks.plugins) {
    if (plugin.customRequest !== undefined) surface.methods.wrapRequests(customWrap(plugin));
  }
  // Extensions that serve resources of their own (skills) are merged into the handler: listed, read first.
  const own =
    surface.claims.length === 0 ? options.handler : withExtensionResources(options.handler, surface.claims);
  const handler = hooks.plugins.reduce((base, plugin) => pluginHandler(plugin, base), own);
  const families = checkHandler(handler);
  const capabilities = deepFreeze(buildCapabilities({ ...options, handler }, families, surface.all));
  const limits: { [key: string]: number } = {};
  for (const [key, fallback] of Object.entries(LIMIT_DEFAULTS)) {
    limits[key] = positiveInteger(options[key as keyof ServerLimits], fallback, key, SCOPE);
  }
  return Object.freeze({
    serverInfo: deepFreeze(structuredClone(info)),
    handler: bindHandler(handler),
    instructions: options.instructions,
    capabilities,
    capabilitiesByEra: Object.freeze(withPluginCapabilities(byEra(capabilities, surface), hooks.plugins)),
    custom: surface.methods,
    families: Object.freeze(families),
    cache: Object.freeze(cache),
    handlerTimeoutMs,
    maxConcurrentHandlers,
    maxQueuedHandlers,
    logger: limited,
    policy,
    limits: Object.freeze(limits as unknown as ServerLimits),
    stateKey: checkStateKey(options.stateKey),
    previousStateKeys: checkPreviousKeys(options.previousStateKeys),
    stateStore: checkStateStore(options.singleUseState, hooks.plugins),
    hooks,
  });
}

/** Each era's capabilities: the same object unless an extension serves one era only. */
function byEra(all: ServerCapabilities, surface: CustomSurface): { [era in Era]: ServerCapabilities } {
  const out = { [MODERN_VERSION]: all, [LEGACY_VERSION]: all } as { [era in Era]: ServerCapabilities };
  if (surface.all === undefined) return out;
  const count = Object.keys(surface.all).length;
  for (const era of [MODERN_VERSION, LEGACY_VERSION] as const) {
    const advertised = surface.advertised[era] ?? {};
    if (Object.keys(advertised).length === count) continue;
    const { extensions: _all, ...rest } = all;
    out[era] = deepFreeze(Object.keys(advertised).length === 0 ? rest : { ...rest, extensions: advertised });
  }
  return out;
}

/** A plugin's `customRequest` hook, checked to return a function. */
function customWrap(
  plugin: ServerPlugin,
): (handler: CustomRequestHandler<never>, method: string) => CustomRequestHandler<never> {
  return (handler, method) => {
    const wrapped = plugin.customRequest?.(handler, method);
    if (typeof wrapped !== "function") {
      throw invalid("plugins", `"${plugin.name}" customRequest() must return a handler function`);
    }
    return wrapped;
  };
}

/** The handler a plugin wraps `base` into (`base` without a `handler` hook). */
function pluginHandler(plugin: ServerPlugin, base: ServerHandler): ServerHandler {
  if (plugin.handler === undefined) return base;
  const wrapped = plugin.handler(base);
  if (!isObject(wrapped)) throw invalid("plugins", `"${plugin.name}" handler() must return a handler`);
  return wrapped;
}

/** Each era's capabilities with what the plugins add to it, key by key. */
function withPluginCapabilities(
  byEra: { [era in Era]: ServerCapabilities },
  plugins: readonly ServerPlugin[],
): { [era in Era]: ServerCapabilities } {
  const out = { ...byEra };
  for (const plugin of plugins) {
    for (const era of [MODERN_VERSION, LEGACY_VERSION] as const) {
      const more = plugin.capabilities?.[era];
      if (more === undefined) continue;
      if (!isObject(more)) throw invalid("plugins", `"${plugin.name}" capabilities must be objects`);
      out[era] = deepFreeze({ ...out[era], ...structuredClone(more) });
    }
  }
  return out;
}

function buildCapabilities(
  options: EngineOptions,
  families: { [family in CallbackFamily]: boolean },
  extensions: ExtensionMap | undefined,
): ServerCapabilities {
  const capabilities: ServerCapabilities = { logging: {} };
  const listChanged = options.listChanged ?? {};
  if (families.tools) capabilities.tools = listChanged.tools ? { listChanged: true } : {};
  if (families.resources) capabilities.resources = listChanged.resources ? { listChanged: true } : {};
  if (families.prompts) capabilities.prompts = listChanged.prompts ? { listChanged: true } : {};
  if (options.subscribe !== undefined && typeof options.subscribe !== "boolean") {
    throw invalid("subscribe", "must be a boolean");
  }
  if (options.subscribe) {
    if (!families.resources) throw invalid("subscribe", "needs the resources callbacks");
    capabilities.resources = { subscribe: true, ...capabilities.resources };
  }
  if (options.handler.complete) capabilities.completions = {};
  for (const family of ["tools", "resources", "prompts"] as const) {
    if (listChanged[family] && !families[family]) {
      throw invalid(`listChanged.${family}`, `needs the ${family} callbacks`);
    }
  }
  if (options.experimental !== undefined) {
    if (!isObject(options.experimental)) throw invalid("experimental", "must be an object");
    capabilities.experimental = structuredClone(options.experimental);
  }
  if (extensions !== undefined) capabilities.extensions = structuredClone(extensions);
  return capabilities;
}

function checkCache(cache: Partial<CacheHints> | undefined): CacheHints {
  if (cache === undefined) return { ttlMs: 0, cacheScope: "public" };
  if (!isObject(cache)) throw invalid("cache", "must be an object");
  const ttlMs = nonNegativeInteger(cache.ttlMs, 0, "cache.ttlMs", SCOPE);
  const cacheScope = cache.cacheScope ?? "public";
  if (cacheScope !== "public" && cacheScope !== "private") {
    throw invalid("cache.cacheScope", 'must be "public" or "private"');
  }
  return { ttlMs, cacheScope };
}

function checkStateKey(key: string | Uint8Array | undefined): Uint8Array | undefined {
  if (key === undefined) return undefined;
  if (typeof key !== "string" && !(key instanceof Uint8Array)) {
    throw invalid("stateKey", "must be a string or a Uint8Array");
  }
  const secret = stateSecret(key);
  if (secret.byteLength < 32) throw invalid("stateKey", "must be at least 32 bytes");
  return secret;
}

/** Most keys `previousStateKeys` may hold: each one is tried in turn on a token the current key refuses. */
export const MAX_PREVIOUS_STATE_KEYS = 4;

function checkPreviousKeys(keys: readonly (string | Uint8Array)[] | undefined): readonly Uint8Array[] {
  if (keys === undefined) return [];
  if (!Array.isArray(keys)) throw invalid("previousStateKeys", "must be an array of keys");
  if (keys.length > MAX_PREVIOUS_STATE_KEYS) {
    throw invalid("previousStateKeys", `must hold at most ${MAX_PREVIOUS_STATE_KEYS} keys`);
  }
  return Object.freeze(
    keys.map((key) => {
      if (typeof key !== "string" && !(key instanceof Uint8Array)) {
        throw invalid("previousStateKeys", "must hold strings or Uint8Arrays");
      }
      const secret = stateSecret(key);
      if (secret.byteLength < 32) throw invalid("previousStateKeys", "must hold keys of at least 32 bytes");
      return secret;
    }),
  );
}

function checkStateStore(
  option: boolean | RequestStateStore | undefined,
  plugins: readonly ServerPlugin[],
): RequestStateStore | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) {
    const shared = plugins.find((plugin) => plugin.stateStore !== undefined)?.stateStore;
    return shared ?? new MemoryRequestStateStore();
  }
  if (!isRequestStateStore(option)) {
    throw invalid("singleUseState", "must be a boolean or a store with issue and consume methods");
  }
  return option;
}

function invalid(key: string, problem: string): McpkitError {
  return optionError(key, problem, SCOPE);
}

const SCOPE = "server option ";

const consoleLogger: ServerLogger = {
  warn: (message, details) => console.warn(`[mcpkit] ${message}`, details ?? ""),
  error: (message, details) => console.error(`[mcpkit] ${message}`, details ?? ""),
};

/** A frozen copy of the handler's callbacks, bound to it, so replacing a method later changes nothing. */
function bindHandler(handler: ServerHandler): ServerHandler {
  const bound: { [key: string]: unknown } = {};
  for (const name of HANDLER_CALLBACKS) {
    const callback = handler[name];
    if (typeof callback === "function") bound[name] = callback.bind(handler);
  }
  return Object.freeze(bound) as ServerHandler;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) {
      if (typeof child === "object") deepFreeze(child);
    }
  }
  return value;
}
