import { createClient } from "redis";
import { checkKeys, optionError, positiveInteger } from "../jsonrpc/config-check.js";
import {
  type Cluster,
  type ClusterBus,
  clusterUnavailable,
  type SharedStore,
  type TaskStore,
} from "../server/index.js";
import { redisTaskStore } from "./task-store.js";

/** Options of {@link createRedisCluster}. Unknown keys are rejected. */
export interface RedisClusterOptions {
  /** The Redis (or Valkey) server (default `redis://127.0.0.1:6379`). */
  url?: string;
  /** Prefix of every key and channel (default `"mcpkit:"`): one Redis can serve several clusters. */
  prefix?: string;
  /** Longest wait for one command before it fails with `UNAVAILABLE` (default 1,000 ms). */
  operationTimeoutMs?: number;
  /** How long `createRedisCluster` waits for the first connection (default 5,000 ms). */
  connectTimeoutMs?: number;
  /** Longest pause between two reconnection attempts; they back off from 50 ms up to it (default 1,000 ms). */
  reconnectMaxDelayMs?: number;
  /** Told when the connection is lost and when it is back (default: `console.warn`). */
  onStateChange?: (state: "lost" | "restored", error?: unknown) => void;
}

/** A {@link Cluster} on Redis, with its connections. */
export interface RedisCluster extends Cluster {
  readonly tasks: TaskStore;
  /** True while both connections (commands and subscriptions) are up. */
  readonly connected: boolean;
  /** Closes both connections. */
  close(): Promise<void>;
}

const OPTION_KEYS = new Set([
  "url",
  "prefix",
  "operationTimeoutMs",
  "connectTimeoutMs",
  "reconnectMaxDelayMs",
  "onStateChange",
]);

/**
 * Connects to Redis and returns the {@link Cluster} that the instances of a server share: a bus on Redis
 * publish/subscribe (one connection for subscriptions, resubscribed after every reconnection), a store on
 * keys with a time to live (`SET PX`, `SET NX PX`, `GETDEL`, `DEL`) and a task store (JSON values and sorted
 * sets, caps checked in one script, optimistic updates). While Redis is unreachable every call fails
 * at once with `McpkitError` `UNAVAILABLE` (no command is queued offline), none waits longer than
 * `operationTimeoutMs`, and the connections come back by themselves, retrying with a backoff capped at
 * `reconnectMaxDelayMs`. Rejects when Redis cannot be reached within `connectTimeoutMs`.
 *
 * @example
 * import { createRedisCluster } from "mcpkit/redis";
 * const cluster = await createRedisCluster({ url: process.env.REDIS_URL });
 * const server = createServer({ serverInfo, handler, cluster, stateKey: process.env.MCP_STATE_KEY });
 * await serve(createHttpHandler(server), { host: "0.0.0.0", port: 3000 });
 */
export async function createRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const checked = checkOptions(options);
  const { prefix, operationTimeoutMs, reconnectMaxDelayMs } = checked;
  const clientOptions = {
    url: checked.url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: operationTimeoutMs,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 10), reconnectMaxDelayMs),
    },
  };
  const commands = createClient(clientOptions);
  const subscriber = commands.duplicate();
  const up = { commands: false, subscriber: false };
  let lost = false;
  const onState = (state: "lost" | "restored", error?: unknown) => {
    if ((state === "lost") === lost) return;
    lost = state === "lost";
    checked.onStateChange(state, error);
  };
  for (const [name, client] of [
    ["commands", commands],
    ["subscriber", subscriber],
  ] as const) {
    client.on("error", (error: unknown) => {
      up[name] = false;
      onState("lost", error);
    });
    client.on("ready", () => {
      up[name] = true;
      if (up.commands && up.subscriber) onState("restored");
    });
  }
  const bounded = async <T>(
    operation: string,
    call: () => Promise<T>,
    ms = operationTimeoutMs,
  ): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    });
    try {
      return await Promise.race([call(), timeout]);
    } catch (error) {
      throw clusterUnavailable(operation, error);
    } finally {
      clearTimeout(timer);
    }
  };
  try {
    await bounded(
      "connecting",
      () => Promise.all([commands.connect(), subscriber.connect()]),
      checked.connectTimeoutMs,
    );
  } catch (error) {
    commands.destroy();
    subscriber.destroy();
    throw error;
  }
  const bus: ClusterBus = {
    publish: (channel, message) => bounded("publish", () => commands.publish(prefix + channel, message)),
    subscribe: async (channel, listener) => {
      const wrapped = (message: string) => listener(message);
      await bounded("subscribe", () => subscriber.subscribe(prefix + channel, wrapped));
      return () => bounded("unsubscribe", () => subscriber.unsubscribe(prefix + channel, wrapped));
    },
  };
  const store: SharedStore = {
    get: (key) => bounded("get", async () => (await commands.get(prefix + key)) ?? undefined),
    set: (key, value, ttlMs) =>
      bounded("set", async () => {
        await commands.set(prefix + key, value, { expiration: { type: "PX", value: ttlMs } });
      }),
    add: (key, value, ttlMs) =>
      bounded(
        "add",
        async () =>
          (await commands.set(prefix + key, value, {
            condition: "NX",
            expiration: { type: "PX", value: ttlMs },
          })) === "OK",
      ),
    take: (key) => bounded("take", async () => (await commands.getDel(prefix + key)) ?? undefined),
    delete: (key) => bounded("delete", async () => (await commands.del(prefix + key)) > 0),
  };
  return {
    bus,
    store,
    tasks: redisTaskStore(commands, bounded, prefix),
    get connected() {
      return up.commands && up.subscriber;
    },
    close: async () => {
      await Promise.allSettled([commands.close(), subscriber.close()]);
    },
  };
}

function checkOptions(options: RedisClusterOptions): Required<RedisClusterOptions> {
  const prefix = "redis option ";
  const invalid = (key: string, problem: string) => optionError(key, problem, prefix);
  if (typeof options !== "object" || options === null) throw invalid("options", "must be an object");
  checkKeys(options, OPTION_KEYS, prefix);
  for (const key of ["url", "prefix"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "string")
      throw invalid(key, "must be a string");
  }
  if (options.onStateChange !== undefined && typeof options.onStateChange !== "function") {
    throw invalid("onStateChange", "must be a function");
  }
  return {
    url: options.url ?? "redis://127.0.0.1:6379",
    prefix: options.prefix ?? "mcpkit:",
    operationTimeoutMs: positiveInteger(options.operationTimeoutMs, 1_000, "operationTimeoutMs", prefix),
    connectTimeoutMs: positiveInteger(options.connectTimeoutMs, 5_000, "connectTimeoutMs", prefix),
    reconnectMaxDelayMs: positiveInteger(options.reconnectMaxDelayMs, 1_000, "reconnectMaxDelayMs", prefix),
    onStateChange:
      options.onStateChange ??
      ((state, error) =>
        console.warn(`[mcpkit/redis] connection ${state}`, error === undefined ? "" : String(error))),
  };
}
