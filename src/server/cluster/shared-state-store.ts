import type { RequestStateStore } from "../state/store.js";
import type { SharedStore } from "./cluster.js";

/**
 * The single-use `requestState` store of a cluster: each unspent nonce is a key of the shared store, inserted
 * with its token's expiry as its time to live and spent by an atomic take, so a token opens once across every
 * instance. A server with a `cluster` option and `singleUseState: true` uses it.
 *
 * @example
 * createServer({ serverInfo, handler, stateKey, singleUseState: sharedRequestStateStore(cluster.store) });
 */
export function sharedRequestStateStore(
  store: SharedStore,
  prefix = "rs:",
  now: () => number = Date.now,
): RequestStateStore {
  return {
    issue: (nonce, expiresAt) => store.add(`${prefix}${nonce}`, "1", Math.max(1, expiresAt - now())),
    consume: async (nonce) => (await store.take(`${prefix}${nonce}`)) !== undefined,
  };
}
