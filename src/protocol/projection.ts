import { MetaKey } from "./meta.js";
import { CACHEABLE_METHODS } from "./methods.js";
import type { CacheHints, Implementation } from "./types/common.js";
import { type Era, MODERN_VERSION } from "./versions.js";

/** Members that only 2026-07-28 results carry. */
const MODERN_ONLY_RESULT_KEYS = ["resultType", "ttlMs", "cacheScope"] as const;

/**
 * Shapes a handler's result for the wire of one era. 2026-07-28: `resultType` defaults to `complete`, cacheable
 * complete results get `ttlMs`/`cacheScope` (the handler's own values win), server info goes in `_meta`.
 * 2025-11-25: the 2026-only members are removed, whatever the handler returned.
 */
export function projectResult(
  era: Era,
  method: string,
  result: { [key: string]: unknown },
  options: { cache: CacheHints; serverInfo: Implementation },
): { [key: string]: unknown } {
  if (era !== MODERN_VERSION) {
    if (!MODERN_ONLY_RESULT_KEYS.some((key) => key in result)) return result;
    const out = { ...result };
    for (const key of MODERN_ONLY_RESULT_KEYS) delete out[key];
    return out;
  }
  const out: { [key: string]: unknown } = { ...result };
  if (out.resultType === undefined) out.resultType = "complete";
  if (out.resultType === "complete" && CACHEABLE_METHODS.has(method)) {
    if (out.ttlMs === undefined) out.ttlMs = options.cache.ttlMs;
    if (out.cacheScope === undefined) out.cacheScope = options.cache.cacheScope;
  }
  const meta =
    typeof out._meta === "object" && out._meta !== null ? (out._meta as { [key: string]: unknown }) : {};
  if (!(MetaKey.serverInfo in meta)) out._meta = { ...meta, [MetaKey.serverInfo]: options.serverInfo };
  return out;
}
