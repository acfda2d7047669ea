import type { JsonRpcNotification, JsonRpcResultResponse, RequestId } from "../../jsonrpc/message.js";
import { isObject } from "../../jsonrpc/message.js";
import { MetaKey } from "../../protocol/meta.js";
import type { ServerCapabilities } from "../../protocol/types/capabilities.js";
import type { SubscriptionFilter } from "../../protocol/types/subscriptions.js";
import { invalidParams } from "./errors.js";

/** The list-changed families a filter can name. */
export type ListFamily = "tools" | "prompts" | "resources";

const FLAGS = ["toolsListChanged", "promptsListChanged", "resourcesListChanged"] as const;

/**
 * Reads `params.notifications` of a `subscriptions/listen`: an object whose known members are booleans (false
 * is the same as absent) and a string array of URIs. Unknown members are ignored (never honoured). Anything
 * else is `-32602`.
 */
export function parseFilter(params: { [key: string]: unknown } | undefined): SubscriptionFilter {
  const notifications = params?.notifications;
  if (!isObject(notifications)) throw invalidParams("notifications must be an object");
  const filter: SubscriptionFilter = {};
  for (const flag of FLAGS) {
    const value = notifications[flag];
    if (value === undefined) continue;
    if (typeof value !== "boolean") throw invalidParams(`notifications.${flag} must be a boolean`);
    if (value) filter[flag] = true;
  }
  const uris = notifications.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((uri) => typeof uri === "string")) {
      throw invalidParams("notifications.resourceSubscriptions must be an array of strings");
    }
    filter.resourceSubscriptions = [...(uris as string[])];
  }
  return filter;
}

/**
 * The part of `requested` the server honours: each list-changed flag the server advertises `listChanged` for,
 * and the resource URIs when it advertises `resources.subscribe`.
 */
export function honouredFilter(
  requested: SubscriptionFilter,
  capabilities: ServerCapabilities,
): SubscriptionFilter {
  const honoured: SubscriptionFilter = {};
  if (requested.toolsListChanged && capabilities.tools?.listChanged) honoured.toolsListChanged = true;
  if (requested.promptsListChanged && capabilities.prompts?.listChanged) honoured.promptsListChanged = true;
  if (requested.resourcesListChanged && capabilities.resources?.listChanged) {
    honoured.resourcesListChanged = true;
  }
  if (requested.resourceSubscriptions !== undefined && capabilities.resources?.subscribe) {
    honoured.resourceSubscriptions = [...requested.resourceSubscriptions];
  }
  return honoured;
}

/** True when a filter takes the list-changed notifications of `family`. */
export function wantsList(filter: SubscriptionFilter, family: ListFamily): boolean {
  return filter[`${family}ListChanged`] === true;
}

/** True when a filter takes `notifications/resources/updated` for `uri`. */
export function wantsResource(filter: SubscriptionFilter, uri: string): boolean {
  return filter.resourceSubscriptions?.includes(uri) ?? false;
}

/** `notifications/subscriptions/acknowledged`: the first message of every subscription, naming what it gets. */
export function acknowledgement(id: RequestId, honoured: SubscriptionFilter): JsonRpcNotification {
  return {
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: { notifications: honoured, _meta: { [MetaKey.subscriptionId]: id } },
  };
}

/** A notification as delivered on the subscription `id`: `_meta` carries the subscription id. */
export function stamped(notification: JsonRpcNotification, id: RequestId): JsonRpcNotification {
  const params = notification.params ?? {};
  const meta = isObject(params._meta) ? params._meta : {};
  return {
    jsonrpc: "2.0",
    method: notification.method,
    params: { ...params, _meta: { ...meta, [MetaKey.subscriptionId]: id } },
  };
}

/** The graceful end of subscription `id`: its `complete` result, naming the subscription in `_meta`. */
export function completion(id: RequestId): JsonRpcResultResponse {
  return { jsonrpc: "2.0", id, result: { resultType: "complete", _meta: { [MetaKey.subscriptionId]: id } } };
}
