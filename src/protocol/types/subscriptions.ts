import type { MetaObject, ResultBase } from "./common.js";

/**
 * What a 2026-07-28 `subscriptions/listen` opts in to. Every member is opt-in; `false` is the same as absent.
 * `resourceSubscriptions` lists URIs whose `notifications/resources/updated` the client wants.
 */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

/** The params of `notifications/subscriptions/acknowledged`: the subset of the filter the server honours. */
export interface SubscriptionsAcknowledgedParams {
  notifications: SubscriptionFilter;
  _meta?: MetaObject;
}

/**
 * The result that ends a `subscriptions/listen` gracefully; `_meta` names the subscription
 * (`io.modelcontextprotocol/subscriptionId`, the listen request's id).
 */
export interface SubscriptionsListenResult extends ResultBase {
  _meta: MetaObject;
}
