/**
 * The transports' port into the server engine: everything `src/http/server`, `src/stdio` and `src/node` use of
 * `src/server` beyond its public index, and nothing else (test/architecture/transport-port.test.ts keeps it so).
 * What the engine's rooms hold may move; this list is the contract the transports are written against.
 */
import type { Cluster } from "./cluster/cluster.js";
import { clusterOfPlugins } from "./cluster/plugin.js";
import type { Server } from "./server.js";

export { BusSubscription } from "./cluster/bus-subscription.js";
export {
  CLUSTER_UNAVAILABLE_MESSAGE,
  type Cluster,
  type ClusterBus,
  clusterUnavailable,
  instanceId,
} from "./cluster/cluster.js";
export { checkStaticIdentity, warnPublicCacheWithIdentity } from "./core/identity-source.js";
export type { ServerLogger } from "./core/logger.js";
export { COMPLETE_GRACE_MS, completeWithin, SUBSCRIPTION_CAPACITY_MESSAGE } from "./core/publisher.js";
export { errorResponse } from "./core/respond.js";
export type { Subscription, SubscriptionChannel } from "./core/subscription.js";
export type { CustomMethods } from "./custom/methods.js";
export type { LegacySession } from "./eras/legacy.js";
export { servesModern } from "./eras/modern.js";
export { Server } from "./server.js";
export {
  ANONYMOUS_FINGERPRINT,
  authorizationText,
  identityFingerprint,
  NoPrincipalError,
  principalText,
  sha256Hex,
} from "./state/fingerprint.js";

/** The cluster a server's instances share (its `cluster` option), if any. */
export function clusterOf(server: Server): Cluster | undefined {
  return clusterOfPlugins(server.config.hooks.plugins);
}
