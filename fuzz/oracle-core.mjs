/**
 * The oracle's own reading of JSON-RPC 2.0 and MCP, shared by both transports. It decides from the message alone
 * (and the catalog of the target server) what class of answer a request must get. It imports nothing of mcpkit:
 * a disagreement between the two is what the fuzz looks for.
 *
 * Answer classes: `ok` (a result), `tool-error` (a result with `isError: true`), `too-large` (-32603 with
 * `data.reason` `response_too_large`), `ack` (a `subscriptions/listen` that stays open, acknowledged), and
 * `e<code>` for any other error, e.g. `e-32602`.
 */
import { LOG_LEVELS, MODERN, PROMPTS, RESOURCES, TEMPLATE, TEMPLATE_PREFIX, TOOLS } from "./catalog.mjs";
import { META_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_VERSION } from "./messages.mjs";

export const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);
const isId = (id) => typeof id === "string" || (typeof id === "number" && Number.isInteger(id));

/** A stable key for an id: `7` and `"7"` differ. */
export const idKey = (id) => JSON.stringify(id);

/**
 * Classifies a parsed JSON value as JSON-RPC 2.0 sees it (MCP narrows `id` to a string or an integer and `params`
 * to an object). Returns `{ kind: "request" | "notification" | "response" | "invalid", id }`; an invalid
 * message carries the id an answer can name (an object meant as a request, with a valid id), else none.
 */
export function classify(value) {
  if (!isObject(value)) return { kind: "invalid" };
  const hasResult = "result" in value;
  const hasError = "error" in value;
  const readableId = !hasResult && !hasError && isId(value.id) ? value.id : undefined;
  const invalid = { kind: "invalid", id: readableId };
  if (value.jsonrpc !== "2.0") return invalid;
  if ("id" in value && !isId(value.id) && !(hasError && value.id === null)) return invalid;
  if ("method" in value) {
    if (typeof value.method !== "string" || value.method === "") return invalid;
    if ("params" in value && !isObject(value.params)) return invalid;
    if (hasResult || hasError) return invalid;
    return "id" in value ? { kind: "request", id: value.id } : { kind: "notification" };
  }
  if (hasResult) {
    if (!("id" in value) || hasError || !isObject(value.result)) return invalid;
    return { kind: "response" };
  }
  if (hasError) {
    const error = value.error;
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== "string")
      return invalid;
    return { kind: "response" };
  }
  return invalid;
}

/** Methods both eras serve through the catalog's callbacks, and the ones only 2026-07-28 has. */
const HANDLER_METHODS = new Set([
  "tools/list",
  "tools/call",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "completion/complete",
]);
const MODERN_ONLY = new Set(["server/discover", "subscriptions/listen"]);

/** True when a method is a client request of 2026-07-28. */
export const isModernMethod = (method) => HANDLER_METHODS.has(method) || MODERN_ONLY.has(method);

/** True when params carry the 2026 `_meta` envelope (a `_meta` naming a protocol version). */
export const hasModernMeta = (params) => isObject(params?._meta) && META_VERSION in params._meta;

/** The codes a 2026 request's `_meta` faults call for (empty when it is valid). */
export function metaFaults(params) {
  const meta = params?._meta;
  if (!isObject(meta)) return ["e-32602"];
  const faults = new Set();
  const version = meta[META_VERSION];
  if (typeof version !== "string") faults.add("e-32602");
  else if (version !== MODERN) faults.add("e-32022");
  if (!isObject(meta[META_CAPABILITIES])) faults.add("e-32602");
  const info = meta[META_CLIENT_INFO];
  if (
    info !== undefined &&
    !(isObject(info) && typeof info.name === "string" && typeof info.version === "string")
  )
    faults.add("e-32602");
  const level = meta[META_LOG_LEVEL];
  if (level !== undefined && !LOG_LEVELS.includes(level)) faults.add("e-32602");
  return [...faults];
}

/** True for valid `initialize` params. */
export function initializeValid(params) {
  const info = params?.clientInfo;
  return (
    typeof params?.protocolVersion === "string" &&
    isObject(params.capabilities) &&
    isObject(info) &&
    typeof info.name === "string" &&
    typeof info.version === "string"
  );
}

/**
 * What a request of an initialized 2025-11-25 session answers. `limit` is the transport's bound on an answer;
 * the result is a list of allowed classes.
 */
export function legacyAnswer(method, params = {}, id, limit) {
  switch (method) {
    case "initialize":
      return ["e-32600"];
    case "ping":
      return ["ok"];
    case "logging/setLevel":
      return [LOG_LEVELS.includes(params.level) ? "ok" : "e-32602"];
    case "resources/subscribe":
    case "resources/unsubscribe":
      return [typeof params.uri === "string" ? "ok" : "e-32602"];
    default:
      if (HANDLER_METHODS.has(method)) return handlerAnswer(method, params, "legacy", id, limit);
      return sized(["e-32601"], echoSize(id, method), limit);
  }
}

/** What a request of 2026-07-28 answers, `_meta` checks included. */
export function modernAnswer(method, params = {}, id, limit) {
  if (!isModernMethod(method)) return sized(["e-32601"], echoSize(id, method), limit);
  const faults = metaFaults(params);
  if (faults.length > 0) return faults;
  if (method === "server/discover") return ["ok"];
  if (method === "subscriptions/listen") return [listenValid(params) ? "ack" : "e-32602"];
  return handlerAnswer(method, params, "modern", id, limit);
}

function listenValid(params) {
  const filter = params.notifications;
  if (!isObject(filter)) return false;
  for (const flag of ["toolsListChanged", "promptsListChanged", "resourcesListChanged"]) {
    if (filter[flag] !== undefined && typeof filter[flag] !== "boolean") return false;
  }
  const uris = filter.resourceSubscriptions;
  return uris === undefined || (Array.isArray(uris) && uris.every((uri) => typeof uri === "string"));
}

/** The answer of a method served by the catalog, in either era. */
function handlerAnswer(method, params, era, id, limit) {
  switch (method) {
    case "tools/list":
    case "prompts/list":
    case "resources/list":
    case "resources/templates/list":
      // The server's lists fit one page: no cursor it could have handed out is valid.
      return [params.cursor === undefined ? "ok" : "e-32602"];
    case "tools/call":
      return toolAnswer(params, id, limit);
    case "prompts/get":
      return promptAnswer(params, id, limit);
    case "resources/read": {
      const uri = params.uri;
      if (typeof uri !== "string") return ["e-32602"];
      const found = RESOURCES.includes(uri) || templateMatches(uri);
      // An answer repeats the URI (a template's answer twice).
      const size = echoSize(id, uri, found && !RESOURCES.includes(uri) ? uri : undefined);
      // A missing resource: -32602 since 2026-07-28 (SEP-2164), -32002 before.
      return sized([found ? "ok" : era === "legacy" ? "e-32002" : "e-32602"], size, limit);
    }
    case "completion/complete":
      return [completionValid(params) ? "ok" : "e-32602"];
    default:
      return ["e-32601"];
  }
}

/** `{id}` matches one or more characters other than `/`. */
function templateMatches(uri) {
  if (!uri.startsWith(TEMPLATE_PREFIX)) return false;
  const rest = uri.slice(TEMPLATE_PREFIX.length);
  return rest.length > 0 && !rest.includes("/");
}

function completionValid(params) {
  const { ref, argument } = params;
  if (!isObject(ref) || !isObject(argument)) return false;
  if (typeof argument.name !== "string" || typeof argument.value !== "string") return false;
  if (ref.type === "ref/prompt") return typeof ref.name === "string" && Object.hasOwn(PROMPTS, ref.name);
  if (ref.type === "ref/resource") return ref.uri === TEMPLATE;
  return false;
}

function toolAnswer(params, id, limit) {
  const name = params.name;
  if (typeof name !== "string") return ["e-32602"];
  const args = params.arguments ?? {};
  if (!isObject(args)) return ["e-32602"];
  const tool = Object.hasOwn(TOOLS, name) ? TOOLS[name] : undefined;
  if (!tool) return sized(["e-32602"], echoSize(id, name), limit);
  if (!schemaAccepts(tool.inputSchema, args)) return ["tool-error"];
  if (tool.outcome === "big") return sized(["ok"], echoSize(id) + args.bytes, limit);
  if (name === "echo") return sized(["ok"], echoSize(id, args.text), limit);
  return [tool.outcome];
}

function promptAnswer(params, id, limit) {
  const name = params.name;
  if (typeof name !== "string") return ["e-32602"];
  const args = params.arguments ?? {};
  if (!isObject(args) || !Object.values(args).every((value) => typeof value === "string")) return ["e-32602"];
  const prompt = Object.hasOwn(PROMPTS, name) ? PROMPTS[name] : undefined;
  if (!prompt) return sized(["e-32602"], echoSize(id, name), limit);
  for (const argument of prompt.arguments) {
    if (argument.required && args[argument.name] === undefined) return ["e-32602"];
  }
  return sized(["ok"], echoSize(id, JSON.stringify(args)), limit);
}

/** JSON Schema, as far as the catalog's schemas use it: object root, typed properties, required, bounds. */
export function schemaAccepts(schema, args) {
  if (!isObject(args)) return false;
  for (const key of schema.required ?? []) if (!Object.hasOwn(args, key)) return false;
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (!Object.hasOwn(args, key)) continue;
    const value = args[key];
    const typed =
      (property.type === "string" && typeof value === "string") ||
      (property.type === "number" && typeof value === "number") ||
      (property.type === "integer" && Number.isInteger(value)) ||
      (property.type === "boolean" && typeof value === "boolean");
    if (!typed) return false;
    if (property.minimum !== undefined && value < property.minimum) return false;
    if (property.maximum !== undefined && value > property.maximum) return false;
  }
  return true;
}

/** The encoded size of what an answer repeats from the request (its id, names, text), in UTF-8 bytes. */
export function echoSize(id, ...texts) {
  let size = Buffer.byteLength(JSON.stringify(id ?? null));
  for (const text of texts) if (text !== undefined) size += Buffer.byteLength(JSON.stringify(text));
  return size;
}

/**
 * An answer that repeats `size` bytes of the request may pass the transport's bound (`limit`): then it is
 * `too-large`. Near the bound (the envelope's own bytes are not counted exactly), either is right.
 */
export function sized(classes, size, limit) {
  if (limit === undefined || size + 2_000 < limit) return classes;
  if (size > limit) return ["too-large"];
  return [...classes, "too-large"];
}
