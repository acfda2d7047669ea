import { checkKeys, nonNegativeInteger, optionError, positiveInteger } from "../jsonrpc/config-check.js";
import { isObject } from "../jsonrpc/message.js";
import { type AccessRule, parseAccess } from "./access.js";
import { checkGlobs } from "./glob.js";
import {
  type GatewayAuth,
  parseGatewayAuth,
  parseTokenStore,
  parseUpstreamOAuth,
  type UpstreamOAuth,
} from "./oauth-config.js";
import { isPrivateAddress } from "./private-address.js";

/** How one upstream is reached: a command run over stdio, or a Streamable HTTP endpoint. */
export type UpstreamTarget =
  | {
      readonly kind: "stdio";
      readonly command: string;
      readonly args: readonly string[];
      readonly env: { readonly [name: string]: string };
      readonly cwd: string | undefined;
      /** Variables of the gateway's own environment passed on (the `gateway` stdio preset passes none else). */
      readonly inheritEnv: readonly string[];
    }
  | {
      readonly kind: "http";
      readonly url: string;
      readonly headers: { readonly [name: string]: string };
      /** Its OAuth (`oauth`), absent for static `headers` only. */
      readonly oauth?: UpstreamOAuth;
      /** Private and link-local addresses allowed, in the URL and in what its host name resolves to. */
      readonly allowPrivateAddress: boolean;
    };

/** The policy and bounds of one upstream, after defaults. */
export interface UpstreamPolicy {
  /** Tool name globs (upstream's own names) that may be used; empty: all. */
  readonly allow: readonly string[];
  /** Tool name globs refused, even when allowed. */
  readonly deny: readonly string[];
  /** Only tools annotated `readOnlyHint: true` are listed and callable. */
  readonly readOnly: boolean;
  /** Largest `arguments` of a call, as JSON bytes. */
  readonly maxArgumentBytes: number;
  /** Largest result of a call, read or prompt, as JSON bytes. */
  readonly maxResultBytes: number;
  /** Deadline of one call to this upstream. */
  readonly timeoutMs: number;
  /** How long starting it may take (launch and handshake); past it, it is down and restarted later. */
  readonly startTimeoutMs: number;
  /** Calls running at once against this upstream. */
  readonly maxConcurrent: number;
  /** Calls waiting for a slot against this upstream (past it: refused at once). */
  readonly maxQueued: number;
}

/** One upstream of the config. */
export interface UpstreamConfig {
  /** Its key under `mcpServers`: the namespace of its tools, prompts and URIs. */
  readonly name: string;
  /** How it is reached. */
  readonly target: UpstreamTarget;
  /** Its policy, `gateway.defaults` and the built-in defaults applied. */
  readonly policy: UpstreamPolicy;
  /** `boot`: connected when the gateway starts; `lazy`: on the first request that needs it. */
  readonly start: "boot" | "lazy";
}

/** The whole gateway config, checked. */
export interface GatewayConfig {
  /** What joins an upstream's name and an item's name (`fs__read_file`). */
  readonly separator: string;
  /** Resource URIs are served as `<uriScheme>://<upstream>/<upstream's uri>`. */
  readonly uriScheme: string;
  /** The upstreams, in the file's order (disabled ones left out). */
  readonly upstreams: readonly UpstreamConfig[];
  /** Backoff of a crashed stdio upstream's restart. */
  readonly restart: { readonly initialDelayMs: number; readonly maxDelayMs: number };
  /** Per-principal access rules (`undefined`: everyone may use everything). */
  readonly access: readonly AccessRule[] | undefined;
  /** `gateway.tokenStore.dir`: where `mcpkit gateway` keeps the upstreams' OAuth tokens, as written (`~/...`). */
  readonly tokenDir: string | undefined;
  /**
   * The Redis that several instances share (`mcpkit gateway` connects to it with mcpkit/redis; a program passes
   * the `cluster` option instead), or `undefined` for one instance.
   */
  readonly redis: GatewayRedis | undefined;
  /** `gateway.tasks`: a call a client makes as a task runs as the gateway's task (default false). */
  readonly tasks: boolean;
  /** `gateway.auth`: the resource server `mcpkit gateway` puts in front (a program refuses it: see createGateway). */
  readonly auth: GatewayAuth | undefined;
}

/** `gateway.redis`: where the instances of a scaled-out `mcpkit gateway` share sessions and notifications. */
export interface GatewayRedis {
  /** `redis://` or `rediss://` URL of the server. */
  readonly url: string;
  /** Prefix of its keys and channels (default mcpkit/redis's `"mcpkit:"`). */
  readonly prefix: string | undefined;
}

const TOP_KEYS = ["mcpServers", "gateway"];
const GATEWAY_KEYS = [
  "separator",
  "uriScheme",
  "restart",
  "defaults",
  "access",
  "tokenStore",
  "redis",
  "tasks",
  "auth",
];
const POLICY_KEYS = [
  "tools",
  "readOnly",
  "maxArgumentBytes",
  "maxResultBytes",
  "timeoutMs",
  "startTimeoutMs",
  "maxConcurrent",
  "maxQueued",
];
// Keys desktop clients and IDEs write that mean nothing to a gateway: accepted, so their files work as they are.
const DESKTOP_KEYS = [
  "type",
  "transportType",
  "disabled",
  "autoApprove",
  "alwaysAllow",
  "timeout",
  "description",
];
const STDIO_KEYS = ["command", "args", "env", "cwd", "inheritEnv", "start", ...POLICY_KEYS, ...DESKTOP_KEYS];
const HTTP_KEYS = [
  "url",
  "headers",
  "oauth",
  "allowPrivateAddress",
  "start",
  ...POLICY_KEYS,
  ...DESKTOP_KEYS,
];
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const SEPARATOR = /^[A-Za-z0-9_.-]{1,4}$/;
const SCHEME = /^[a-z][a-z0-9+.-]{0,31}$/;

/** The defaults of every upstream's policy, unless `gateway.defaults` or the upstream says otherwise. */
export const DEFAULT_UPSTREAM_POLICY: UpstreamPolicy = Object.freeze({
  allow: Object.freeze([]),
  deny: Object.freeze([]),
  readOnly: false,
  maxArgumentBytes: 1_000_000,
  maxResultBytes: 4_000_000,
  timeoutMs: 60_000,
  startTimeoutMs: 10_000,
  maxConcurrent: 16,
  maxQueued: 256,
});

/**
 * Checks a gateway config: the `mcpServers` shape of desktop clients (`command`, `args`, `env`, `cwd` or `url`,
 * `headers` per server) plus the gateway's keys. Throws `McpkitError` `INVALID_CONFIG` naming the key at fault
 * (`mcpServers.fs.tools.allow[1] must be a non-empty string`).
 *
 * @example
 * const config = parseGatewayConfig(JSON.parse(readFileSync("gateway.json", "utf8")));
 */
export function parseGatewayConfig(input: unknown): GatewayConfig {
  if (!isObject(input)) throw optionError("config", "must be an object");
  checkKeys(input, TOP_KEYS);
  const gateway = objectAt(input.gateway, "gateway") ?? {};
  checkKeys(gateway, GATEWAY_KEYS, "", "gateway.");
  const separator = stringAt(gateway.separator, "gateway.separator") ?? "__";
  if (!SEPARATOR.test(separator)) {
    throw optionError("gateway.separator", "must be 1 to 4 of the characters A-Z a-z 0-9 _ - .");
  }
  const uriScheme = stringAt(gateway.uriScheme, "gateway.uriScheme") ?? "gateway";
  if (!SCHEME.test(uriScheme))
    throw optionError("gateway.uriScheme", "must be a URI scheme (a-z, then a-z 0-9 + - .)");
  const restartIn = objectAt(gateway.restart, "gateway.restart") ?? {};
  checkKeys(restartIn, ["initialDelayMs", "maxDelayMs"], "", "gateway.restart.");
  const initialDelayMs = positiveInteger(restartIn.initialDelayMs, 500, "gateway.restart.initialDelayMs");
  const maxDelayMs = positiveInteger(restartIn.maxDelayMs, 30_000, "gateway.restart.maxDelayMs");
  const defaultsIn = objectAt(gateway.defaults, "gateway.defaults") ?? {};
  checkKeys(defaultsIn, POLICY_KEYS, "", "gateway.defaults.");
  const defaults = policyOf(defaultsIn, "gateway.defaults", DEFAULT_UPSTREAM_POLICY);
  const servers = objectAt(input.mcpServers, "mcpServers");
  if (servers === undefined) throw optionError("mcpServers", "is required");
  const upstreams: UpstreamConfig[] = [];
  const folded = new Map<string, string>();
  for (const [name, entry] of Object.entries(servers)) {
    const key = `mcpServers.${name}`;
    if (!NAME.test(name)) throw optionError(key, "must be named with 1 to 64 of A-Z a-z 0-9 _ -");
    // The separator cannot occur in an upstream's name, so namespaced names of two upstreams never collide;
    // nor may two names differ only in case, for clients that fold the case of tool names.
    if (name.includes(separator)) throw optionError(key, `must not contain the separator "${separator}"`);
    const twin = folded.get(name.toLowerCase());
    if (twin !== undefined)
      throw optionError(key, `collides with "${twin}": names must differ in more than case`);
    folded.set(name.toLowerCase(), name);
    const upstream = upstreamOf(name, entry, key, defaults);
    if (upstream !== undefined) upstreams.push(upstream);
  }
  return Object.freeze({
    separator,
    uriScheme,
    upstreams: Object.freeze(upstreams),
    restart: Object.freeze({ initialDelayMs, maxDelayMs: Math.max(maxDelayMs, initialDelayMs) }),
    access: parseAccess(gateway.access),
    tokenDir: parseTokenStore(gateway.tokenStore),
    redis: redisOf(gateway.redis),
    tasks: booleanAt(gateway.tasks, "gateway.tasks") ?? false,
    auth: parseGatewayAuth(gateway.auth),
  });
}

function redisOf(value: unknown): GatewayRedis | undefined {
  const redis = objectAt(value, "gateway.redis");
  if (redis === undefined) return undefined;
  checkKeys(redis, ["url", "prefix"], "", "gateway.redis.");
  const url = stringAt(redis.url, "gateway.redis.url");
  if (url === undefined || !URL.canParse(url) || !/^rediss?:$/.test(new URL(url).protocol)) {
    throw optionError("gateway.redis.url", "must be a redis:// or rediss:// URL");
  }
  const prefix = stringAt(redis.prefix, "gateway.redis.prefix");
  if (prefix === "") throw optionError("gateway.redis.prefix", "must be a non-empty string");
  return Object.freeze({ url, prefix });
}

function upstreamOf(
  name: string,
  entry: unknown,
  key: string,
  defaults: UpstreamPolicy,
): UpstreamConfig | undefined {
  if (!isObject(entry)) throw optionError(key, "must be an object");
  if (entry.disabled === true) return undefined;
  const type = entry.type ?? entry.transportType;
  if (type !== undefined && !["stdio", "http", "streamable-http", "streamableHttp"].includes(String(type))) {
    throw optionError(
      `${key}.type`,
      'must be "stdio" or "http" (the gateway speaks Streamable HTTP, not SSE)',
    );
  }
  const hasCommand = entry.command !== undefined;
  const hasUrl = entry.url !== undefined;
  if (hasCommand === hasUrl)
    throw optionError(key, 'needs either "command" (stdio) or "url" (HTTP), not both');
  checkKeys(entry, hasCommand ? STDIO_KEYS : HTTP_KEYS, "", `${key}.`);
  const start = entry.start ?? "lazy";
  if (start !== "lazy" && start !== "boot") throw optionError(`${key}.start`, 'must be "lazy" or "boot"');
  const policy = policyOf(entry, key, defaults);
  let target: UpstreamTarget;
  if (hasCommand) {
    const command = stringAt(entry.command, `${key}.command`);
    if (!command) throw optionError(`${key}.command`, "must be a non-empty string");
    target = Object.freeze({
      kind: "stdio" as const,
      command,
      args: Object.freeze(stringsAt(entry.args, `${key}.args`, true)),
      env: stringMapAt(entry.env, `${key}.env`),
      cwd: stringAt(entry.cwd, `${key}.cwd`),
      inheritEnv: Object.freeze(
        entry.inheritEnv === undefined ? ["PATH"] : stringsAt(entry.inheritEnv, `${key}.inheritEnv`, false),
      ),
    });
  } else {
    const url = stringAt(entry.url, `${key}.url`) ?? "";
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw optionError(`${key}.url`, "must be an http or https URL");
    }
    if (entry.allowPrivateAddress !== undefined && typeof entry.allowPrivateAddress !== "boolean") {
      throw optionError(`${key}.allowPrivateAddress`, "must be a boolean");
    }
    if (entry.allowPrivateAddress !== true && isPrivateAddress(new URL(url).hostname)) {
      throw optionError(
        `${key}.url`,
        "names a private or link-local address (cloud metadata lives there); set allowPrivateAddress: true to mean it",
      );
    }
    const headers = stringMapAt(entry.headers, `${key}.headers`);
    target = Object.freeze({
      kind: "http" as const,
      url,
      headers,
      ...(entry.oauth === undefined
        ? {}
        : { oauth: parseUpstreamOAuth(entry.oauth, `${key}.oauth`, headers) }),
      allowPrivateAddress: entry.allowPrivateAddress === true,
    });
  }
  return Object.freeze({ name, target, policy, start });
}

function policyOf(input: { [key: string]: unknown }, key: string, base: UpstreamPolicy): UpstreamPolicy {
  const tools = objectAt(input.tools, `${key}.tools`) ?? {};
  checkKeys(tools, ["allow", "deny"], "", `${key}.tools.`);
  const allow = tools.allow === undefined ? base.allow : stringsAt(tools.allow, `${key}.tools.allow`, false);
  const deny = tools.deny === undefined ? base.deny : stringsAt(tools.deny, `${key}.tools.deny`, false);
  checkGlobs(allow, `${key}.tools.allow`);
  checkGlobs(deny, `${key}.tools.deny`);
  if (input.readOnly !== undefined && typeof input.readOnly !== "boolean") {
    throw optionError(`${key}.readOnly`, "must be a boolean");
  }
  return Object.freeze({
    allow: Object.freeze([...allow]),
    deny: Object.freeze([...deny]),
    readOnly: (input.readOnly as boolean | undefined) ?? base.readOnly,
    maxArgumentBytes: positiveInteger(
      input.maxArgumentBytes,
      base.maxArgumentBytes,
      `${key}.maxArgumentBytes`,
    ),
    maxResultBytes: positiveInteger(input.maxResultBytes, base.maxResultBytes, `${key}.maxResultBytes`),
    timeoutMs: positiveInteger(input.timeoutMs, base.timeoutMs, `${key}.timeoutMs`),
    startTimeoutMs: positiveInteger(input.startTimeoutMs, base.startTimeoutMs, `${key}.startTimeoutMs`),
    maxConcurrent: positiveInteger(input.maxConcurrent, base.maxConcurrent, `${key}.maxConcurrent`),
    maxQueued: nonNegativeInteger(input.maxQueued, base.maxQueued, `${key}.maxQueued`),
  });
}

function objectAt(value: unknown, key: string): { [key: string]: unknown } | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw optionError(key, "must be an object");
  return value;
}

function stringAt(value: unknown, key: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw optionError(key, "must be a string");
  return value;
}

function booleanAt(value: unknown, key: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "boolean") throw optionError(key, "must be true or false");
  return value;
}

function stringsAt(value: unknown, key: string, allowEmpty: boolean): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw optionError(key, "must be an array of strings");
  value.forEach((item, index) => {
    if (typeof item !== "string" || (!allowEmpty && item === "")) {
      throw optionError(`${key}[${index}]`, allowEmpty ? "must be a string" : "must be a non-empty string");
    }
  });
  return value as string[];
}

function stringMapAt(value: unknown, key: string): { readonly [name: string]: string } {
  const map = objectAt(value, key) ?? {};
  for (const [name, item] of Object.entries(map)) {
    if (typeof item !== "string") throw optionError(`${key}.${name}`, "must be a string");
  }
  return Object.freeze({ ...(map as { [name: string]: string }) });
}
