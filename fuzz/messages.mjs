/**
 * Valid MCP messages of both eras, with good and bad params: the raw material of both generators, before any
 * mutation. Every builder takes the run's `Rng`; none reads mcpkit.
 */
import { LEGACY, LOG_LEVELS, MODERN, NAMES, PROMPTS, RESOURCES, TEMPLATE, TOOLS } from "./catalog.mjs";

export const META_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";

const CLIENT_INFO = { name: "mcpkit-fuzz-client", version: "1.0.0" };

/** A fresh request id of a random valid shape, unique within a run (`counter` is the run's). */
export function freshId(rng, counter) {
  switch (rng.int(6)) {
    case 0:
      return `r${counter}`;
    case 1:
      return -counter;
    case 2:
      return `${rng.pick(["ü", "漢", " ", "\t", "\\", '"', "😀"])}${counter}`;
    case 3:
      return 1_000_000_000_000 + counter;
    default:
      return counter;
  }
}

/** The 2026-07-28 `_meta` envelope, valid or (when `fault` is set) with one fault. */
export function modernMeta(rng, fault = undefined) {
  const meta = { [META_VERSION]: MODERN, [META_CAPABILITIES]: {} };
  if (rng.chance(0.7)) meta[META_CLIENT_INFO] = CLIENT_INFO;
  if (rng.chance(0.1)) meta[META_LOG_LEVEL] = rng.pick(LOG_LEVELS);
  if (rng.chance(0.1)) meta.progressToken = rng.chance(0.5) ? "p" : 7;
  if (rng.chance(0.1)) meta.traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  switch (fault) {
    case "no-version":
      delete meta[META_VERSION];
      break;
    case "version-type":
      meta[META_VERSION] = rng.pick([20260728, null, ["2026-07-28"], true]);
      break;
    case "old-version":
      meta[META_VERSION] = rng.pick([LEGACY, "2025-06-18", "2024-11-05", "2099-01-01", "", "2026-07-28 "]);
      break;
    case "no-capabilities":
      delete meta[META_CAPABILITIES];
      break;
    case "capabilities-type":
      meta[META_CAPABILITIES] = rng.pick([[], "all", 1, null]);
      break;
    case "client-info":
      meta[META_CLIENT_INFO] = rng.pick([{ name: "x" }, "x", { name: 1, version: "1" }, []]);
      break;
    case "log-level":
      meta[META_LOG_LEVEL] = rng.pick(["verbose", 3, "", "INFO"]);
      break;
    default:
  }
  return meta;
}

/** The faults {@link modernMeta} can plant. */
export const META_FAULTS = [
  "no-version",
  "version-type",
  "old-version",
  "no-capabilities",
  "capabilities-type",
  "client-info",
  "log-level",
];

/** Arguments for a tool: valid for its schema, or (when `bad`) violating it. */
export function toolArguments(rng, name, bad) {
  const schema = TOOLS[name]?.inputSchema;
  if (!schema) return rng.chance(0.5) ? {} : { text: rng.word() };
  const args = {};
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const required = schema.required?.includes(key);
    if (!required && rng.chance(0.4)) continue;
    args[key] = valueOfType(rng, property);
  }
  if (rng.chance(0.2)) args[`extra${rng.int(3)}`] = rng.word();
  if (!bad) return args;
  const keys = Object.keys(schema.properties ?? {});
  if (keys.length === 0) return args;
  const key = rng.pick(keys);
  if (rng.chance(0.5) && schema.required?.includes(key)) delete args[key];
  else args[key] = wrongType(rng, schema.properties[key]);
  return args;
}

function valueOfType(rng, property) {
  switch (property.type) {
    case "string":
      return rng.chance(0.9) ? rng.word() : rng.pick(["", "eu-west-1", " padded ", "=?base64?SGVsbG8=?="]);
    case "number":
      return rng.pick([0, 1, -2.5, 1e6, rng.int(1000)]);
    case "integer": {
      if (property.maximum === 10_000) return rng.range(0, 5); // sleep: keep calls fast
      if (property.maximum === 4_000_000) return rng.pick(BIG_SIZES);
      return rng.pick([0, 3, -7, 1000, 2 ** 31]);
    }
    case "boolean":
      return rng.chance(0.5);
    default:
      return null;
  }
}

/** Sizes the `big` tool is asked for: well under, near and past both transports' response limits. */
export const BIG_SIZES = [0, 10, 1_000, 100_000, 200_000, 262_000, 300_000, 990_000, 1_000_000, 1_500_000];

function wrongType(rng, property) {
  const candidates = ["s", 1, 1.5, true, null, [], {}, -1, 99_999_999].filter((value) => {
    if (property.type === "string") return typeof value !== "string";
    if (property.type === "number") return typeof value !== "number";
    if (property.type === "integer") return !Number.isInteger(value) || value > (property.maximum ?? 2 ** 60);
    if (property.type === "boolean") return typeof value !== "boolean";
    return true;
  });
  return rng.pick(candidates);
}

const CURSORS = [undefined, undefined, undefined, "", "abc", "o:999", 5, null, { page: 1 }];
const URIS = [...RESOURCES, "fuzz://items/abc", "fuzz://items/42", "fuzz://items/", "fuzz://missing", "x:y"];

/** One method call of `era` (`legacy` or `modern`) and its params, before any `_meta`. */
export function randomCall(rng, era) {
  const methods = era === "legacy" ? LEGACY_WEIGHTS : MODERN_WEIGHTS;
  const method = rng.weighted(methods);
  const params = {};
  switch (method) {
    case "initialize":
      params.protocolVersion = rng.chance(0.9) ? rng.pick([LEGACY, LEGACY, "2025-06-18", MODERN]) : 20251125;
      params.capabilities = rng.chance(0.9) ? { roots: {} } : "none";
      params.clientInfo = rng.chance(0.9) ? CLIENT_INFO : { name: "x" };
      break;
    case "tools/list":
    case "prompts/list":
    case "resources/list":
    case "resources/templates/list": {
      const cursor = rng.pick(CURSORS);
      if (cursor !== undefined) params.cursor = cursor;
      break;
    }
    case "tools/call": {
      const name = rng.chance(0.9) ? rng.pick(TOOL_NAMES) : rng.pick(["nope", "", 7, null]);
      params.name = name;
      if (rng.chance(0.95)) params.arguments = toolArguments(rng, name, rng.chance(0.3));
      else params.arguments = rng.pick([null, [], "text", 3]);
      break;
    }
    case "prompts/get": {
      params.name = rng.chance(0.9) ? rng.pick(Object.keys(PROMPTS)) : rng.pick(["nope", 5]);
      if (rng.chance(0.8)) {
        params.arguments = rng.chance(0.8) ? { name: rng.pick(NAMES) } : rng.pick([{}, { name: 5 }, [], "x"]);
        if (rng.chance(0.3) && typeof params.arguments === "object") params.arguments.tone = "dry";
      }
      break;
    }
    case "resources/read":
      params.uri = rng.chance(0.9) ? rng.pick(URIS) : rng.pick([5, null, ["fuzz://static"]]);
      break;
    case "resources/subscribe":
    case "resources/unsubscribe":
      params.uri = rng.chance(0.9) ? rng.pick(URIS) : 5;
      break;
    case "completion/complete":
      params.ref = rng.pick([
        { type: "ref/prompt", name: "greet" },
        { type: "ref/prompt", name: "plain" },
        { type: "ref/prompt", name: "nope" },
        { type: "ref/resource", uri: TEMPLATE },
        { type: "ref/resource", uri: "fuzz://nope/{x}" },
        { type: "ref/other" },
        "greet",
      ]);
      params.argument = rng.pick([
        { name: "name", value: "a" },
        { name: "tone", value: "" },
        { name: "id", value: "4" },
        { name: "name" },
        null,
      ]);
      break;
    case "logging/setLevel":
      params.level = rng.chance(0.8) ? rng.pick(LOG_LEVELS) : rng.pick(["loud", 1, null]);
      break;
    case "subscriptions/listen":
      params.notifications = rng.pick([
        { toolsListChanged: true },
        { resourceSubscriptions: ["fuzz://static"] },
        {},
        { toolsListChanged: "yes" },
        { resourceSubscriptions: "fuzz://static" },
        [],
      ]);
      break;
    case "unknown":
      return {
        method: rng.pick(UNKNOWN_METHODS),
        params,
      };
    default:
  }
  return { method, params };
}

const TOOL_NAMES = Object.keys(TOOLS);

/** Method names no server of either era serves as requests. */
export const UNKNOWN_METHODS = [
  "foo/bar",
  "tools/unknown",
  "sampling/createMessage",
  "roots/list",
  "notifications/initialized",
  "Tools/List",
  "tools/list ",
  "rpc.discover",
  "server/discover/",
  "💥",
];

const COMMON_WEIGHTS = {
  "tools/list": 6,
  "tools/call": 20,
  "prompts/list": 3,
  "prompts/get": 6,
  "resources/list": 3,
  "resources/templates/list": 2,
  "resources/read": 6,
  "completion/complete": 4,
  unknown: 4,
};
const LEGACY_WEIGHTS = {
  ...COMMON_WEIGHTS,
  initialize: 2,
  ping: 6,
  "logging/setLevel": 3,
  "resources/subscribe": 2,
  "resources/unsubscribe": 2,
  "server/discover": 1,
};
const MODERN_WEIGHTS = {
  ...COMMON_WEIGHTS,
  "server/discover": 5,
  initialize: 1,
  ping: 2,
  "logging/setLevel": 1,
  "resources/subscribe": 1,
};

/** A random notification a client could send. */
export function randomNotification(rng) {
  const method = rng.pick([
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
    "notifications/unknown",
  ]);
  const params =
    method === "notifications/cancelled"
      ? { requestId: `never-${rng.int(1000)}`, reason: "fuzz" }
      : method === "notifications/progress"
        ? { progressToken: "p", progress: 1 }
        : undefined;
  return params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
}

/** A random response a client could send (to a server request that never was). */
export function randomResponse(rng, id) {
  return rng.chance(0.5)
    ? { jsonrpc: "2.0", id, result: rng.pick([{}, { roots: [] }]) }
    : { jsonrpc: "2.0", id: rng.chance(0.8) ? id : null, error: { code: -32601, message: "no" } };
}

/** A request message: `params` gets the 2026 `_meta` when `meta` is given. */
export function requestMessage(id, method, params, meta) {
  const withMeta = meta === undefined ? params : { ...params, _meta: meta };
  return Object.keys(withMeta).length === 0 && meta === undefined
    ? { jsonrpc: "2.0", id, method }
    : { jsonrpc: "2.0", id, method, params: withMeta };
}

/** The `initialize` that opens a 2025-11-25 session. */
export function initializeMessage(id) {
  return requestMessage(id, "initialize", {
    protocolVersion: LEGACY,
    capabilities: {},
    clientInfo: CLIENT_INFO,
  });
}
