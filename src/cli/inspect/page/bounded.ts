// The page's stores of what a server sends (the wire log, the history, tasks, notifications): each keeps the
// newest entries up to a count (and, for the wire log, a total size), drops the oldest first and counts what it
// dropped, so the page can say so. No DOM here: test/inspect/bounded.test.ts drives them directly.

/**
 * A log of the newest `max` items, and at most `maxWeight` of their summed `weigh(item)`; the oldest go first.
 *
 * @example
 * const log = new BoundedLog<string>(2);
 * log.push("a"); log.push("b"); log.push("c"); // log.items: ["b", "c"], log.dropped: 1
 */
export class BoundedLog<T> {
  private readonly list: T[] = [];
  private readonly weights: number[] = [];
  private total = 0;
  /** How many items were dropped to keep the bounds, since the start or the last clear. */
  dropped = 0;

  constructor(
    readonly max: number,
    readonly maxWeight = Number.POSITIVE_INFINITY,
    private readonly weigh: (item: T) => number = () => 0,
  ) {}

  /** The items, oldest first (the live array: copy it to keep it). */
  get items(): readonly T[] {
    return this.list;
  }

  /** The summed weight of the items kept. */
  get weight(): number {
    return this.total;
  }

  /** Adds items at the new end, dropping the oldest beyond the bounds; returns how many this dropped. */
  push(...items: T[]): number {
    const before = this.dropped;
    for (const item of items) {
      const weight = Math.max(0, this.weigh(item));
      this.list.push(item);
      this.weights.push(weight);
      this.total += weight;
      // The newest item stays even when it alone weighs more than the bound.
      while (this.list.length > this.max || (this.total > this.maxWeight && this.list.length > 1)) {
        this.list.shift();
        this.total -= this.weights.shift() ?? 0;
        this.dropped++;
      }
    }
    return this.dropped - before;
  }

  /** Counts `n` items dropped before they were pushed (an import's entries beyond the bound). */
  noteDropped(n: number): void {
    this.dropped += n;
  }

  clear(): void {
    this.list.length = 0;
    this.weights.length = 0;
    this.total = 0;
    this.dropped = 0;
  }
}

/**
 * A map of the newest `max` keys by first insertion (a task's row, by task id); the oldest go first, and a key
 * dropped once is not taken back by a late update (`has` then says false, `wasDropped` true).
 */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  /** Keys dropped, most recent kept (as many as `max`), so late events about them are ignored. */
  private readonly gone: BoundedLog<K>;
  private readonly goneSet = new Set<K>();
  /** How many keys were dropped to keep the bound. */
  dropped = 0;

  constructor(readonly max: number) {
    this.gone = new BoundedLog<K>(max);
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /** True when `key` was dropped to keep the bound (among the last `max` dropped). */
  wasDropped(key: K): boolean {
    return this.goneSet.has(key);
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }

  /** Adds `key` (or replaces its value); returns the entries dropped to keep the bound, oldest first. */
  set(key: K, value: V): [K, V][] {
    const isNew = !this.map.has(key);
    this.map.set(key, value);
    const out: [K, V][] = [];
    if (!isNew) return out;
    while (this.map.size > this.max) {
      const [oldest, old] = this.map.entries().next().value as [K, V];
      this.map.delete(oldest);
      out.push([oldest, old]);
      this.dropped++;
      const before = this.gone.items[0];
      if (this.gone.push(oldest) > 0 && before !== undefined) this.goneSet.delete(before);
      this.goneSet.add(oldest);
    }
    return out;
  }
}
