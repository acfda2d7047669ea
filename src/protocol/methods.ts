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
export const NAMED_METHODS: { readonly [method: string]: "name" | "uri" | "taskId" } = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  // The tasks extension (SEP-2663) routes the task id.
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

export function methodsOf(era: typeof MODERN_VERSION | typeof LEGACY_VERSION): ReadonlySet<string> {
  return era === MODERN_VERSION ? MODERN_CLIENT_METHODS : LEGACY_CLIENT_METHODS;
}

/**
 * Request methods of the core protocol in either era, both directions: the client-to-server methods above and
 * the server-to-client ones (`sampling/createMessage`, `elicitation/create`, `roots/list`). A custom handler
 * cannot take one of these names.
 */
export const CORE_REQUEST_METHODS: ReadonlySet<string> = new Set([
  ...MODERN_CLIENT_METHODS,
  ...LEGACY_CLIENT_METHODS,
  "sampling/createMessage",
  "elicitation/create",
  "roots/list",
]);

/** Notification methods of the core protocol in either era, both directions. */
export const CORE_NOTIFICATION_METHODS: ReadonlySet<string> = new Set([
  "notifications/cancelled",
  "notifications/progress",
  "notifications/initialized",
  "notifications/message",
  "notifications/roots/list_changed",
  "notifications/resources/updated",
  "notifications/resources/list_changed",
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/elicitation/complete",
  "notifications/subscriptions/acknowledged",
  "notifications/tasks/status",
]);

/**
 * Core notifications a server may observe with a handler of its own: 2025-11-25
 * `notifications/roots/list_changed`, which mcpkit itself does not consume.
 */
export const OBSERVABLE_CLIENT_NOTIFICATIONS: ReadonlySet<string> = new Set([
  "notifications/roots/list_changed",
]);

/**
 * Why `method` cannot name a custom request or notification, or `undefined` when it can: empty, a core
 * protocol name of either table (unless `observable` lets it through), or `rpc.*` (reserved by JSON-RPC 2.0).
 */
export function customMethodProblem(method: unknown, observable?: ReadonlySet<string>): string | undefined {
  if (typeof method !== "string" || method === "") return "must be a non-empty string";
  if (method.startsWith("rpc.")) return "is reserved by JSON-RPC 2.0 (rpc.*)";
  if (observable?.has(method)) return undefined;
  if (CORE_REQUEST_METHODS.has(method) || CORE_NOTIFICATION_METHODS.has(method)) {
    return "is a core MCP method";
  }
  return undefined;
}
