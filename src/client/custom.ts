import { McpkitError } from "../jsonrpc/errors.js";
import { isObject, type RequestId } from "../jsonrpc/message.js";
import { customMethodProblem } from "../protocol/methods.js";
import { isExtensionId } from "../protocol/types/capabilities.js";
import type { Era } from "../protocol/versions.js";

/** What a custom server-request callback knows about the request it answers. */
export interface ServerRequestContext {
  /** The connection's era (always 2025-11-25: 2026-07-28 has no server-to-client requests). */
  era: Era;
  method: string;
  /** The id of the server's request. */
  requestId: RequestId;
  /** The request's `_meta` (`{}` when absent). */
  meta: { readonly [key: string]: unknown };
  /** Aborted past `callbackTimeoutMs`, when the server cancels its request, or when the client closes. */
  signal: AbortSignal;
}

/**
 * Answers one custom server-to-client request (2025-11-25): a result object, or a thrown `JsonRpcError` to
 * answer with that error (anything else thrown is sent as `-32603`). `params` are the request's, without
 * `_meta`.
 */
export type ServerRequestCallback = (
  params: { [key: string]: unknown },
  context: ServerRequestContext,
) => { [key: string]: unknown } | Promise<{ [key: string]: unknown }>;

/** What a server-notification callback knows about the notification it takes. */
export interface ServerNotificationContext {
  era: Era;
  method: string;
  /** The notification's `_meta` (`{}` when absent). */
  meta: { readonly [key: string]: unknown };
}

/** Takes one server notification; `params` are its params without `_meta`. What it throws is logged. */
export type ServerNotificationCallback = (
  params: { [key: string]: unknown },
  context: ServerNotificationContext,
) => void | Promise<void>;

/**
 * Core server notifications a client may take with a callback of its own, besides custom names: the list
 * changes, resource updates and elicitation completions (otherwise delivered to `onNotification`).
 */
const OBSERVABLE_SERVER_NOTIFICATIONS: ReadonlySet<string> = new Set([
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/resources/list_changed",
  "notifications/resources/updated",
  "notifications/elicitation/complete",
]);

/** Checks a callback map option: an object of functions under names outside the core protocol. */
export function checkCallbackMap<T>(
  key: "requestHandlers" | "notificationHandlers",
  value: unknown,
): { readonly [method: string]: T } {
  // No prototype: a lookup by any received method name reads only what was registered.
  const table: { [method: string]: T } = Object.create(null);
  if (value === undefined) return Object.freeze(table);
  if (!isObject(value)) throw invalid(key, "must be an object of functions by method");
  const observable = key === "notificationHandlers" ? OBSERVABLE_SERVER_NOTIFICATIONS : undefined;
  for (const [method, callback] of Object.entries(value)) {
    const problem = customMethodProblem(method, observable);
    if (problem !== undefined) throw invalid(`${key}["${method}"]`, problem);
    if (typeof callback !== "function") throw invalid(`${key}["${method}"]`, "must be a function");
    table[method] = callback as T;
  }
  return Object.freeze(table);
}

/** Checks `capabilities.extensions`: every key a namespaced id, every value an object. */
export function checkClientExtensions(extensions: unknown): void {
  if (extensions === undefined) return;
  if (!isObject(extensions)) throw invalid("capabilities.extensions", "must be an object");
  for (const [id, settings] of Object.entries(extensions)) {
    if (!isExtensionId(id)) {
      throw invalid(`capabilities.extensions["${id}"]`, "needs a namespace prefix (vendor/name)");
    }
    if (!isObject(settings)) throw invalid(`capabilities.extensions["${id}"]`, "settings must be an object");
  }
}

/** Params as a callback gets them: without `_meta`. */
export function withoutMeta(params: unknown): { [key: string]: unknown } {
  if (!isObject(params)) return {};
  if (!("_meta" in params)) return params;
  const { _meta: _dropped, ...rest } = params;
  return rest;
}

/** The `_meta` of received params (`{}` when absent). */
export function metaOf(params: unknown): { readonly [key: string]: unknown } {
  return isObject(params) && isObject(params._meta) ? params._meta : {};
}

function invalid(key: string, problem: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", `${key} ${problem}`, { details: { key } });
}
