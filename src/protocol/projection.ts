import { immutableJson } from "../jsonrpc/json-copy.js";
import { shallowCopy } from "../jsonrpc/shallow-copy.js";
import { MetaKey } from "./meta.js";
import { CACHEABLE_METHODS } from "./methods.js";
import type { CacheHints, Implementation } from "./types/common.js";
import { type Era, MODERN_VERSION } from "./versions.js";

/** Members that only 2026-07-28 results carry. */
const MODERN_ONLY_RESULT_KEYS = ["resultType", "ttlMs", "cacheScope"] as const;

/**
 * 2025-11-25 knows neither the 2026-only members nor the 2026 loosening of JSON Schema and structured content:
 * `structuredContent` must be an object and `outputSchema` an object schema. What a 2025 peer cannot take is
 * left out (the text content still carries a tool's answer), never sent malformed.
 */
function projectLegacy(method: string, result: { [key: string]: unknown }): { [key: string]: unknown } {
  let out = result;
  const edit = () => {
    if (out === result) out = { ...result };
    return out;
  };
  for (const key of MODERN_ONLY_RESULT_KEYS) if (key in out) delete edit()[key];
  if (method === "tools/call" && "structuredContent" in out && !isPlainObject(out.structuredContent)) {
    delete edit().structuredContent;
  }
  if (method === "tools/list" && Array.isArray(out.tools)) {
    const tools = out.tools as unknown[];
    if (tools.some(hasLooseOutputSchema)) {
      edit().tools = tools.map((tool) => {
        if (!hasLooseOutputSchema(tool)) return tool;
        const { outputSchema: _dropped, ...rest } = tool as { [key: string]: unknown };
        return rest;
      });
    }
  }
  return out;
}

function isPlainObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hasLooseOutputSchema(tool: unknown): boolean {
  if (!isPlainObject(tool)) return false;
  const schema = (tool as { outputSchema?: unknown }).outputSchema;
  return schema !== undefined && !(isPlainObject(schema) && (schema as { type?: unknown }).type === "object");
}

/**
 * Shapes a handler's result for the wire of one era. 2026-07-28: `resultType` defaults to `complete`, cacheable
 * complete results get `ttlMs`/`cacheScope` from `cache` (the handler's own values win), server info goes in `_meta`;
 * `cacheable` says whether a custom method's results are cacheable (default: the core table).
 * 2025-11-25: the 2026-only members are removed, whatever the handler returned (see `projectLegacy`).
 */
export function projectResult(
  era: Era,
  method: string,
  result: { [key: string]: unknown },
  cache: CacheHints,
  serverInfo: Implementation,
  cacheable?: boolean | undefined,
): { [key: string]: unknown } {
  if (era !== MODERN_VERSION) return projectLegacy(method, result);
  const out = shallowCopy(result);
  if (out.resultType === undefined) out.resultType = "complete";
  if (out.resultType === "complete" && (cacheable ?? CACHEABLE_METHODS.has(method))) {
    if (out.ttlMs === undefined) out.ttlMs = cache.ttlMs;
    if (out.cacheScope === undefined) out.cacheScope = cache.cacheScope;
  }
  const meta = out._meta;
  if (typeof meta !== "object" || meta === null) out._meta = serverInfoMeta(serverInfo);
  else if (!(MetaKey.serverInfo in meta)) {
    const merged = shallowCopy(meta);
    merged[MetaKey.serverInfo] = serverInfoMeta(serverInfo)[MetaKey.serverInfo];
    out._meta = merged;
  }
  return out;
}

// A server's identity never changes, so the `_meta` that carries it is built once per identity, immutable: the
// in-process pair hands it on without a copy.
const builtMeta = new WeakMap<Implementation, { [key: string]: unknown }>();

function serverInfoMeta(serverInfo: Implementation): { [key: string]: unknown } {
  let meta = builtMeta.get(serverInfo);
  if (meta === undefined) {
    const fresh: { [key: string]: unknown } = {};
    fresh[MetaKey.serverInfo] = serverInfo;
    meta = immutableJson(fresh);
    builtMeta.set(serverInfo, meta);
  }
  return meta;
}
