import type { TaskStore } from "../state/task-store.js";

/**
 * The message bus every instance of a server shares: publish/subscribe on named channels. Request forwarding
 * to an instance (a 2025-11-25 session's owner) is built on it: each HTTP handler subscribes to a channel of
 * its own, and `publish` says how many instances received a message, so an owner that is gone is known at once
 * (0 receivers). Messages are strings; delivery is at most once, in order per publisher and channel.
 *
 * A method that cannot reach the shared service rejects (promptly: implementations bound every call) with
 * {@link clusterUnavailable}'s error, never hangs.
 *
 * @example
 * const bus: ClusterBus = new MemoryBus(); // one process; mcpkit/redis has the shared one
 * const stop = await bus.subscribe("news", (message) => console.log(message));
 * await bus.publish("news", "hello"); // 1
 */
export interface ClusterBus {
  /** Sends `message` to every subscriber of `channel`, this instance's included; resolves to their number. */
  publish(channel: string, message: string): Promise<number>;
  /** Calls `listener` with every later message of `channel`; resolves, once subscribed, to the unsubscriber. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
}

/**
 * The key-value store every instance of a server shares: string values with a time to live, and the atomic
 * operations the server needs (an insert that only one caller wins, a read-and-delete that only one caller
 * gets). Keys are namespaced by the caller; an implementation may add its own prefix.
 *
 * @example
 * const store: SharedStore = new MemoryStore();
 * await store.add("rs:nonce", "1", 60_000); // true: this call inserted it
 * await store.take("rs:nonce"); // "1", and the key is gone
 */
export interface SharedStore {
  /** The live value of `key`, or `undefined`. */
  get(key: string): Promise<string | undefined>;
  /** Sets `key` to `value` for `ttlMs` (replacing any value). */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Sets `key` only when it holds no live value, atomically: true for the one call that set it. */
  add(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Removes `key` and returns its live value, atomically: of racing takes, one gets the value. */
  take(key: string): Promise<string | undefined>;
  /** Removes `key`; true when it held a live value. */
  delete(key: string): Promise<boolean>;
}

/**
 * What the instances of one server share: a {@link ClusterBus}, a {@link SharedStore} and, for servers with
 * tasks, a {@link TaskStore}. Pass it as the server's `cluster` option: `notifyListChanged`,
 * `notifyResourceUpdated` and `notify` then reach the subscribers held by every instance, `singleUseState: true`
 * spends nonces in the shared store, tasks live in the shared task store (any instance serves `tasks/*`), and
 * the HTTP handler keeps its 2025-11-25 sessions in a shared directory (see docs/deployment.md).
 *
 * @example
 * import { createRedisCluster } from "mcpkit/redis";
 * const cluster = await createRedisCluster({ url: "redis://127.0.0.1:6379" });
 * const server = createServer({ serverInfo, handler, cluster, stateKey: process.env.STATE_KEY });
 */
export interface Cluster {
  readonly bus: ClusterBus;
  readonly store: SharedStore;
  /** Where the tasks of a server with `tasks` live; needed by such a server unless `tasks.store` is given. */
  readonly tasks?: TaskStore;
}

/** Message of the `-32603` (HTTP 503) a request gets when it needs the cluster and the cluster is unreachable. */
export {
  CLUSTER_UNAVAILABLE_MESSAGE,
  clusterUnavailable,
  clusterUnavailableRpc,
  isClusterUnavailable,
} from "../core/errors.js";

/** True for an object with the bus and the store a {@link Cluster} needs. */
export function isCluster(value: unknown): value is Cluster {
  if (typeof value !== "object" || value === null) return false;
  const { bus, store } = value as { bus?: Partial<ClusterBus>; store?: Partial<SharedStore> };
  return (
    typeof bus?.publish === "function" &&
    typeof bus.subscribe === "function" &&
    ["get", "set", "add", "take", "delete"].every(
      (method) => typeof (store as { [key: string]: unknown } | undefined)?.[method] === "function",
    )
  );
}

/** A random id for one instance (a server's or a handler's), 96 bits as hex. */
export function instanceId(): string {
  let id = "";
  for (const byte of crypto.getRandomValues(new Uint8Array(12))) id += byte.toString(16).padStart(2, "0");
  return id;
}
