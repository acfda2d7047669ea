import { checkKeys } from "../../jsonrpc/config-check.js";
import { McpkitError } from "../../jsonrpc/errors.js";
import { isObject } from "../../jsonrpc/message.js";
import { customMethodProblem, OBSERVABLE_CLIENT_NOTIFICATIONS } from "../../protocol/methods.js";
import { isExtensionId } from "../../protocol/types/capabilities.js";
import type { JsonObject } from "../../protocol/types/common.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../../protocol/versions.js";
import {
  type CustomNotification,
  type CustomRequest,
  type NotificationEntry,
  type RequestEntry,
  toCustomNotification,
  toCustomRequest,
} from "./custom.js";
import { checkExtensionResources, type ExtensionResources } from "./extension-resources.js";

const EXTENSION = Symbol.for("mcpkit.Extension");
const ERAS: readonly Era[] = [MODERN_VERSION, LEGACY_VERSION];

/** What {@link defineExtension} takes. */
export interface ExtensionDefinition {
  /** A namespaced id (`com.example/search`), the key under `capabilities.extensions`. */
  id: string;
  /** Its settings, advertised as the value under `capabilities.extensions[id]` (default `{}`). */
  settings?: JsonObject;
  /** The eras it serves (default both): it is advertised, and its methods exist, only there. */
  eras?: readonly Era[];
  /** Its request methods, by name. */
  requests?: { [method: string]: RequestEntry };
  /** Its client-to-server notifications, by name. */
  notifications?: { [method: string]: NotificationEntry };
  /**
   * Resources it serves beside the server's own, merged by the server (`createServer` and the builder alike):
   * listed first, read first, the `resources` capability declared (see {@link ExtensionResources}).
   */
  resources?: ExtensionResources;
}

/** A checked, frozen extension: give it to `ServerOptions.extensions` or `ServerBuilder.extension()`. */
export interface Extension {
  readonly [EXTENSION]: true;
  readonly id: string;
  readonly settings: JsonObject;
  readonly eras: readonly Era[];
  readonly requests: { readonly [method: string]: CustomRequest };
  readonly notifications: { readonly [method: string]: CustomNotification };
  /** The resources it serves beside the server's own, if any. */
  readonly resources?: ExtensionResources;
}

/**
 * Bundles an extension: its id and settings (advertised under `capabilities.extensions` in `server/discover`
 * and `initialize`), its methods and notifications, and the eras it serves. Advertising it adds exactly its
 * methods; in an era it does not serve it is not advertised and its methods answer `-32601`. Throws
 * `McpkitError` `INVALID_CONFIG` for a bare id, a core method name, or a bad handler.
 *
 * @example
 * const search = defineExtension({
 *   id: "com.example/search",
 *   settings: { maxHits: 10 },
 *   requests: { "search/query": defineRequest({ params: z.object({ q: z.string() }) }, ({ q }) => ({ hits: [q] })) },
 * });
 * createServer({ serverInfo, handler: {}, extensions: [search] });
 */
export function defineExtension(definition: ExtensionDefinition): Extension {
  if (!isObject(definition)) throw invalid("extension", "must be an object");
  checkKeys(
    definition,
    ["id", "settings", "eras", "requests", "notifications", "resources"],
    "",
    "extension ",
  );
  const { id } = definition;
  if (typeof id !== "string" || !isExtensionId(id)) {
    throw invalid(`extension "${String(id)}"`, "needs a namespaced id (vendor/name)");
  }
  const settings = definition.settings ?? {};
  if (!isObject(settings)) throw invalid(`extension "${id}" settings`, "must be an object");
  const eras = definition.eras ?? ERAS;
  if (!Array.isArray(eras) || eras.length === 0 || !eras.every((era) => ERAS.includes(era))) {
    throw invalid(`extension "${id}" eras`, `must list one or both of ${ERAS.join(", ")}`);
  }
  const resources =
    definition.resources === undefined
      ? {}
      : { resources: checkExtensionResources(definition.resources, id) };
  return Object.freeze({
    [EXTENSION]: true as const,
    id,
    settings: deepFrozenCopy(settings),
    eras: Object.freeze([...new Set(eras)]),
    requests: requestTable(definition.requests, `extension "${id}" requests`),
    notifications: notificationTable(definition.notifications, `extension "${id}" notifications`),
    ...resources,
  });
}

/** True for an extension made by {@link defineExtension}. */
export function isExtension(value: unknown): value is Extension {
  return typeof value === "object" && value !== null && EXTENSION in value;
}

/** Checks a request map: method names outside the core protocol, entries that are handlers or definitions. */
export function requestTable(
  map: { [method: string]: RequestEntry } | undefined,
  where: string,
): { readonly [method: string]: CustomRequest } {
  // No prototype: a method named `__proto__` stays an own entry.
  const table: { [method: string]: CustomRequest } = Object.create(null);
  if (map === undefined) return Object.freeze(table);
  if (!isObject(map)) throw invalid(where, "must be an object of handlers by method");
  for (const [method, entry] of Object.entries(map)) {
    const problem = customMethodProblem(method);
    if (problem) throw invalid(`${where}["${method}"]`, problem, { method, reason: "reserved_method" });
    table[method] = toCustomRequest(entry, `${where}["${method}"]`);
  }
  return Object.freeze(table);
}

/** Checks a notification map, as {@link requestTable}; `notifications/roots/list_changed` may be observed. */
export function notificationTable(
  map: { [method: string]: NotificationEntry } | undefined,
  where: string,
): { readonly [method: string]: CustomNotification } {
  const table: { [method: string]: CustomNotification } = Object.create(null);
  if (map === undefined) return Object.freeze(table);
  if (!isObject(map)) throw invalid(where, "must be an object of handlers by method");
  for (const [method, entry] of Object.entries(map)) {
    const problem = customMethodProblem(method, OBSERVABLE_CLIENT_NOTIFICATIONS);
    if (problem) throw invalid(`${where}["${method}"]`, problem, { method, reason: "reserved_method" });
    table[method] = toCustomNotification(entry, `${where}["${method}"]`);
  }
  return Object.freeze(table);
}

function deepFrozenCopy(value: JsonObject): JsonObject {
  let copy: JsonObject;
  try {
    copy = structuredClone(value);
  } catch {
    throw invalid("extension settings", "must be plain JSON");
  }
  const freeze = (node: unknown): void => {
    if (typeof node !== "object" || node === null) return;
    Object.freeze(node);
    for (const child of Object.values(node)) freeze(child);
  };
  freeze(copy);
  return copy;
}

function invalid(key: string, problem: string, details: { [key: string]: unknown } = {}): McpkitError {
  return new McpkitError("INVALID_CONFIG", `${key} ${problem}`, { details: { key, ...details } });
}
