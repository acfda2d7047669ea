import { type LEGACY_VERSION, MODERN_VERSION } from "./versions.js";

/** Client-to-server request methods of the 2026-07-28 revision. */
export const MODERN_CLIENT_METHODS: ReadonlySet<string> = new Set([
  "server/discover",
  "completion/complete",
  "prompts/get",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "subscriptions/listen",
  "tools/call",
  "tools/list",
]);

/** Client-to-server request methods of the 2025-11-25 revision that mcpkit serves. */
export const LEGACY_CLIENT_METHODS: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "completion/complete",
  "logging/setLevel",
  "prompts/get",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "tools/call",
  "tools/list",
]);

/** Methods that existed in 2025-11-25 and are gone in 2026-07-28: a modern server answers them with -32601. */
export const REMOVED_IN_MODERN: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
]);

/** Results that carry `ttlMs` and `cacheScope` in 2026-07-28. */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);

/** Methods whose `params.name` (or `params.uri`) is routed in the `Mcp-Name` header. */
export const NAMED_METHODS: { readonly [method: string]: "name" | "uri" } = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

export function methodsOf(era: typeof MODERN_VERSION | typeof LEGACY_VERSION): ReadonlySet<string> {
  return era === MODERN_VERSION ? MODERN_CLIENT_METHODS : LEGACY_CLIENT_METHODS;
}
