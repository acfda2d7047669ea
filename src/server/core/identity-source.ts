import { McpkitError } from "../../jsonrpc/errors.js";
import { authorizationText, NoPrincipalError, principalText } from "../state/fingerprint.js";
import type { ServerConfig } from "./options.js";

/** Server configurations already warned about public cache defaults (warned once, not per request). */
const warnedConfigs = new WeakSet<ServerConfig>();

/**
 * Checks an identity fixed when a transport is made (stdio's `identity`), the way the HTTP `authenticate`
 * hook's answer is checked per request: it must name its principal (`{ principal: string, ... }`, a string, or
 * plain JSON) and any `authorizationContext` must be plain JSON. Throws `McpkitError` `INVALID_CONFIG` (key
 * `key`) otherwise; `undefined` (no identity) passes.
 */
export function checkStaticIdentity(identity: unknown, key: string): void {
  if (identity === undefined) return;
  try {
    principalText(identity);
    authorizationText(identity);
  } catch (error) {
    if (!(error instanceof NoPrincipalError)) throw error;
    throw new McpkitError("INVALID_CONFIG", `${key} ${error.message}`, { details: { key }, cause: error });
  }
}

/**
 * Warns once per server when requests get an identity (an HTTP `authenticate` hook, a stdio `identity`) while
 * the server's cache defaults let clients keep results (`ttlMs > 0`) as `cacheScope: "public"`: a result that
 * depends on who asks must not be shared between users, so it must be `"private"`.
 */
export function warnPublicCacheWithIdentity(config: ServerConfig, source: string): void {
  const { ttlMs, cacheScope } = config.cache;
  if (ttlMs <= 0 || cacheScope !== "public" || warnedConfigs.has(config)) return;
  warnedConfigs.add(config);
  config.logger.warn(
    `${source} gives requests an identity while the server's cache defaults are { ttlMs: ${ttlMs}, cacheScope: "public" }: cacheable output that depends on the identity must use cacheScope "private" (set cache.cacheScope, or cacheScope on such results)`,
    { ttlMs, cacheScope, source },
  );
}
