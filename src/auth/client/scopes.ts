import type { AuthorizationServer } from "oauth4webapi";

/** The scopes of a space-separated `scope` value (empty entries dropped, order kept, duplicates removed). */
export function splitScopes(scope: string | undefined): string[] {
  if (scope === undefined) return [];
  return [...new Set(scope.split(" ").filter((item) => item !== ""))];
}

/** `a` then the scopes of `b` not in `a`. */
export function unionScopes(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}

/**
 * The scope of a first authorization (MCP's scope selection): the challenge's `scope` when it has one, else
 * every scope of the resource metadata's `scopes_supported`, else none (the `scope` parameter is omitted).
 */
export function initialScopes(
  challengeScope: string | undefined,
  scopesSupported: readonly string[] | undefined,
): string[] {
  const challenged = splitScopes(challengeScope);
  if (challenged.length > 0) return challenged;
  return scopesSupported === undefined ? [] : [...new Set(scopesSupported)];
}

/**
 * Adds `offline_access` when the **authorization server** lists it in `scopes_supported` (never because the
 * resource did) and something else is requested; a refresh token is still never assumed.
 */
export function withOfflineAccess(
  scopes: readonly string[],
  metadata: AuthorizationServer,
  wanted: boolean,
): string[] {
  const supported = metadata.scopes_supported;
  if (!wanted || scopes.length === 0 || !Array.isArray(supported) || !supported.includes("offline_access")) {
    return [...scopes];
  }
  return unionScopes(scopes, ["offline_access"]);
}
