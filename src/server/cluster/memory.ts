import { MemoryTaskStore } from "../state/task-store.js";
import type { Cluster, ClusterBus, SharedStore } from "./cluster.js";

/**
 * The in-process {@link ClusterBus}: every subscriber of a channel in this process gets each message,
 * asynchronously (never inside `publish`). Instances in one process (tests, a server with two HTTP handlers)
 * share one; instances in several processes need a shared one (`mcpkit/redis`).
 *
 * @example
 * const cluster = { bus: new MemoryBus(), store: new MemoryStore() };
 * const a = createServer({ serverInfo, handler, cluster });
 * const b = createServer({ serverInfo, handler, cluster }); // a.notifyListChanged reaches b's listeners
 */
export class MemoryBus implements ClusterBus {
  private readonly channels = new Map<string, Set<(message: string) => void>>();

  async publish(channel: string, message: string): Promise<number> {
    const listeners = [...(this.channels.get(channel) ?? [])];
    queueMicrotask(() => {
      for (const listener of listeners) listener(message);
    });
    return listeners.length;
  }

  async subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    // Each subscription is its own entry, even for one function subscribed twice.
    const entry = (message: string) => listener(message);
    const listeners = this.channels.get(channel) ?? new Set();
    this.channels.set(channel, listeners);
    listeners.add(entry);
    return async () => {
      listeners.delete(entry);
      if (listeners.size === 0 && this.channels.get(channel) === listeners) this.channels.delete(channel);
    };
  }
}

/**
 * The in-process {@link SharedStore}: a map of values with expiry, expired entries dropped as they are met
 * and swept when the map grows. One process only.
 *
 * @example
 * const store = new MemoryStore();
 * await store.set("k", "v", 1_000);
 */
export class MemoryStore implements SharedStore {
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();
  private sweepAt = 1024;

  constructor(private readonly now: () => number = Date.now) {}

  /** Live entries held now. */
  get size(): number {
    this.sweep();
    return this.entries.size;
  }

  async get(key: string): Promise<string | undefined> {
    return this.live(key);
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.put(key, value, ttlMs);
  }

  async add(key: string, value: string, ttlMs: number): Promise<boolean> {
    if (this.live(key) !== undefined) return false;
    this.put(key, value, ttlMs);
    return true;
  }

  async take(key: string): Promise<string | undefined> {
    const value = this.live(key);
    this.entries.delete(key);
    return value;
  }

  async delete(key: string): Promise<boolean> {
    const had = this.live(key) !== undefined;
    this.entries.delete(key);
    return had;
  }

  private live(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.now() < entry.expiresAt) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  private put(key: string, value: string, ttlMs: number): void {
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
    if (this.entries.size >= this.sweepAt) this.sweep();
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (!(now < entry.expiresAt)) this.entries.delete(key);
    this.sweepAt = Math.max(1024, this.entries.size * 2);
  }
}

/**
 * A {@link Cluster} in memory: a {@link MemoryBus}, a {@link MemoryStore} and a {@link MemoryTaskStore}, for
 * instances in one process and for tests. The default of a server without a `cluster` option is no cluster at all (everything is local).
 *
 * @example
 * const cluster = memoryCluster();
 */
export function memoryCluster(): Cluster {
  return { bus: new MemoryBus(), store: new MemoryStore(), tasks: new MemoryTaskStore() };
}
