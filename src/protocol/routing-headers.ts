import { fromBase64, toBase64 } from "../jsonrpc/base64.js";
import { isObject } from "../jsonrpc/message.js";
import { NAMED_METHODS } from "./methods.js";

/** The HTTP headers of the Streamable HTTP transport (header names are case-insensitive on the wire). */
export const McpHeader = {
  /** Every POST: the protocol revision; in 2026-07-28 it must equal the body's `_meta` version. */
  protocolVersion: "MCP-Protocol-Version",
  /** 2025-11-25 only: the session minted by `initialize`. */
  sessionId: "Mcp-Session-Id",
  /** 2026-07-28: the body's `method`, on every request. */
  method: "Mcp-Method",
  /** 2026-07-28: `params.name` (`tools/call`, `prompts/get`) or `params.uri` (`resources/read`). */
  name: "Mcp-Name",
  /** 2026-07-28: prefix of the headers that mirror `x-mcp-header` tool arguments. */
  paramPrefix: "Mcp-Param-",
} as const;

/** Request headers only the transport sets (lowercase): the MCP headers and `Last-Event-ID`. */
const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  McpHeader.protocolVersion.toLowerCase(),
  McpHeader.sessionId.toLowerCase(),
  McpHeader.method.toLowerCase(),
  McpHeader.name.toLowerCase(),
  "last-event-id",
]);

/**
 * True for a header name the MCP transport owns, compared case-insensitively: `MCP-Protocol-Version`,
 * `Mcp-Session-Id`, `Mcp-Method`, `Mcp-Name`, every `Mcp-Param-*` and `Last-Event-ID`. A caller's extra
 * headers must never set one.
 */
export function isReservedMcpHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return RESERVED_HEADERS.has(lower) || lower.startsWith(McpHeader.paramPrefix.toLowerCase());
}

/** The `inputSchema` property keyword that mirrors an argument into an `Mcp-Param-{Name}` header. */
export const X_MCP_HEADER = "x-mcp-header";

const SENTINEL_PREFIX = "=?base64?";
const SENTINEL_SUFFIX = "?=";
const encoder = new TextEncoder();

/** True when `value` is wrapped in the base64 sentinel, `=?base64?…?=` (markers are case-sensitive). */
function isSentinel(value: string): boolean {
  return (
    value.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length &&
    value.startsWith(SENTINEL_PREFIX) &&
    value.endsWith(SENTINEL_SUFFIX)
  );
}

/** Printable ASCII (space through `~`) with no space at either end: safe to send as a plain field value. */
function isPlainSafe(value: string): boolean {
  if (value === "" || value.startsWith(" ") || value.endsWith(" ")) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

/**
 * Encodes one routing-header value. A safe plain value (printable ASCII, no space at either end) is sent as it
 * is; anything else, and a literal that already looks like the sentinel, is sent as `=?base64?{UTF-8 bytes}?=`.
 *
 * @example
 * encodeHeaderValue("weather"); // "weather"
 * encodeHeaderValue("café"); // "=?base64?Y2Fmw6k=?="
 */
export function encodeHeaderValue(value: string): string {
  if (isPlainSafe(value) && !isSentinel(value)) return value;
  return `${SENTINEL_PREFIX}${toBase64(encoder.encode(value))}${SENTINEL_SUFFIX}`;
}

/**
 * Decodes a received routing-header value (surrounding spaces and tabs are not part of it). A value without the
 * complete sentinel is a literal; a sentinel value must carry strict base64 of valid UTF-8, else the result is
 * `undefined` (the header is undecodable).
 */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = raw.replace(/^[ \t]+|[ \t]+$/g, "");
  if (!isSentinel(value)) return value;
  const bytes = fromBase64(value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length));
  if (bytes === undefined) return undefined;
  try {
    // ignoreBOM: a leading U+FEFF is part of the value, which the encoder sent as UTF-8 like any other character.
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The value a request routes in `Mcp-Name`: `params.name` of `tools/call` and `prompts/get`, `params.uri` of
 * `resources/read`; `undefined` for every other method (and when that member is not a string).
 */
export function routedName(method: string, params: unknown): string | undefined {
  const key = NAMED_METHODS[method];
  if (key === undefined || !isObject(params)) return undefined;
  const value = params[key];
  return typeof value === "string" ? value : undefined;
}

/** One `x-mcp-header` annotation of a tool's input schema. */
export interface HeaderParam {
  /** The `{Name}` of `Mcp-Param-{Name}`, as annotated. */
  readonly name: string;
  /** Property names from the schema root to the annotated property. */
  readonly path: readonly string[];
  readonly type: "string" | "integer" | "boolean";
}

/** What {@link headerParamsOf} found: the annotations, or why the schema's annotations are invalid. */
export type HeaderParamsResult =
  | { readonly ok: true; readonly params: readonly HeaderParam[] }
  | { readonly ok: false; readonly problem: string };

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PARAM_TYPES = new Set(["string", "integer", "boolean"]);
const MAX_DEPTH = 64;
/** Keywords holding one subschema, or an array of them: a `properties` chain never passes through these. */
const SUBSCHEMA_KEYWORDS = [
  "items",
  "prefixItems",
  "additionalProperties",
  "propertyNames",
  "contains",
  "unevaluatedItems",
  "unevaluatedProperties",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
];
/** Keywords holding a map of subschemas: none of them is reached through `properties` either. */
const SUBSCHEMA_MAP_KEYWORDS = [
  "patternProperties",
  "dependentSchemas",
  "dependencies",
  "$defs",
  "definitions",
];

/**
 * Collects and checks the `x-mcp-header` annotations of a tool input schema. An annotation is valid when its
 * name is a non-empty HTTP token, unique case-insensitively, on a property typed `string`, `integer` or
 * `boolean`, reached from the root through `properties` only (never `items`, composition, conditionals or
 * `$ref`/`$defs`). One invalid annotation makes the whole schema invalid.
 */
export function headerParamsOf(schema: unknown): HeaderParamsResult {
  if (!isObject(schema)) return { ok: false, problem: "the input schema is not an object" };
  const params: HeaderParam[] = [];
  const seen = new Set<string>();
  const problem = walk(schema, [], true, 0, params, seen);
  return problem === undefined ? { ok: true, params } : { ok: false, problem };
}

function walk(
  node: unknown,
  path: string[],
  reachable: boolean,
  depth: number,
  params: HeaderParam[],
  seen: Set<string>,
): string | undefined {
  const array = Array.isArray(node);
  if (!array && !isObject(node)) return undefined;
  // Checked for arrays too: nested arrays alone would otherwise recurse without bound.
  if (depth > MAX_DEPTH) return `the schema nests deeper than ${MAX_DEPTH} levels`;
  if (array) {
    for (const item of node) {
      const problem = walk(item, path, false, depth + 1, params, seen);
      if (problem) return problem;
    }
    return undefined;
  }
  const where = path.length === 0 ? "the schema root" : `property ${path.join(".")}`;
  if (X_MCP_HEADER in node) {
    if (!reachable || path.length === 0)
      return `${X_MCP_HEADER} on ${where} is not reached through properties`;
    const name = node[X_MCP_HEADER];
    if (typeof name !== "string" || !TOKEN.test(name))
      return `${X_MCP_HEADER} of ${where} is not an HTTP token`;
    if (seen.has(name.toLowerCase())) return `${X_MCP_HEADER} "${name}" is not unique`;
    if (typeof node.type !== "string" || !PARAM_TYPES.has(node.type)) {
      return `${X_MCP_HEADER} "${name}" is on a property that is not string, integer or boolean`;
    }
    seen.add(name.toLowerCase());
    params.push({ name, path: [...path], type: node.type as HeaderParam["type"] });
  }
  if (isObject(node.properties)) {
    for (const [key, child] of Object.entries(node.properties)) {
      const problem = walk(child, [...path, key], reachable, depth + 1, params, seen);
      if (problem) return problem;
    }
  }
  const unreachable = [
    ...SUBSCHEMA_KEYWORDS.map((keyword) => node[keyword]),
    ...SUBSCHEMA_MAP_KEYWORDS.flatMap((keyword) => {
      const map = node[keyword];
      return isObject(map) ? Object.values(map) : [];
    }),
  ];
  for (const child of unreachable) {
    const problem = walk(child, path, false, depth + 1, params, seen);
    if (problem) return problem;
  }
  return undefined;
}

/** The argument an annotation mirrors (`undefined` when absent on the way). */
export function headerParamValue(args: unknown, param: HeaderParam): unknown {
  let node = args;
  for (const key of param.path) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * How an argument is rendered in its header: a string as it is, an integer (within ±(2^53−1)) in decimal, a
 * boolean as `true`/`false`. `undefined` for `null`, absent, and anything else (no header is sent).
 */
export function renderHeaderParam(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/** True when a decoded header value matches the argument: strings and booleans exactly, integers numerically. */
export function headerParamMatches(decoded: string, value: unknown): boolean {
  if (typeof value === "number") {
    return /^[+-]?\d+$/.test(decoded) && Number(decoded) === value && Number.isSafeInteger(value);
  }
  return renderHeaderParam(value) === decoded;
}

/**
 * The routing headers a client sends with one 2026-07-28 request: `MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name` when the method routes a name, and one `Mcp-Param-{Name}` per annotated argument present.
 */
export function routingHeaders(
  request: { method: string; params?: { [key: string]: unknown } },
  protocolVersion: string,
  params: readonly HeaderParam[] = [],
): { [header: string]: string } {
  const headers: { [header: string]: string } = {
    [McpHeader.protocolVersion]: protocolVersion,
    [McpHeader.method]: encodeHeaderValue(request.method),
  };
  const name = routedName(request.method, request.params);
  if (name !== undefined) headers[McpHeader.name] = encodeHeaderValue(name);
  if (request.method === "tools/call") {
    for (const param of params) {
      const rendered = renderHeaderParam(headerParamValue(request.params?.arguments, param));
      if (rendered !== undefined)
        headers[`${McpHeader.paramPrefix}${param.name}`] = encodeHeaderValue(rendered);
    }
  }
  return headers;
}
