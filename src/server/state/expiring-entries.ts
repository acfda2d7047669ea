/**
 * A bounded map whose entries expire: the engine behind the single-use `requestState` store and state handles.
 * Every operation is synchronous, so reading and removing an entry ({@link take}) is atomic within one
 * JavaScript realm. An entry counts against the capacity until it is taken, deleted, or found expired; room is
 * made only by dropping expired entries, never by evicting live ones.
 */
export class ExpiringEntries<V> {
  private readonly entries = new Map<string, { readonly expiresAt: number; readonly value: V }>();
  // No entry expires before this: a full sweep earlier would find nothing to drop.
  private earliestExpiry = Number.POSITIVE_INFINITY;

  constructor(
    readonly capacity: number,
    private readonly now: () => number,
  ) {}

  /** Entries held (after dropping the expired ones at the old end). */
  get size(): number {
    this.sweepOldest();
    return this.entries.size;
  }

  /**
   * Adds an entry that lives until `expiresAt` (exclusive). False, with nothing changed, when `key` is held and
   * unexpired, or when every slot holds an unexpired entry.
   */
  add(key: string, expiresAt: number, value: V): boolean {
    if (this.get(key) !== undefined) return false;
    if (this.entries.size >= this.capacity) this.makeRoom();
    if (this.entries.size >= this.capacity) return false;
    this.entries.set(key, { expiresAt, value });
    this.earliestExpiry = Math.min(this.earliestExpiry, expiresAt);
    return true;
  }

  /** The unexpired value under `key`, if any. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.now() < entry.expiresAt) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /**
   * Removes the unexpired entry under `key` and returns its value, when `accept` (default: any) takes it; an
   * entry `accept` refuses stays. Of two callers taking the same key, exactly one gets the value.
   */
  take(key: string, accept: (value: V) => boolean = () => true): V | undefined {
    const value = this.get(key);
    if (value === undefined || !accept(value)) return undefined;
    this.entries.delete(key);
    return value;
  }

  private makeRoom(): void {
    this.sweepOldest();
    if (this.entries.size < this.capacity || this.now() < this.earliestExpiry) return;
    // Entries added with a shorter lifetime than older ones (or a clock that stepped back) expire out of order.
    let earliest = Number.POSITIVE_INFINITY;
    const now = this.now();
    for (const [key, entry] of this.entries) {
      if (now >= entry.expiresAt) this.entries.delete(key);
      else earliest = Math.min(earliest, entry.expiresAt);
    }
    this.earliestExpiry = earliest;
  }

  /** Drops expired entries from the oldest end (insertion order), up to the first live one. */
  private sweepOldest(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) {
      if (now < entry.expiresAt) return;
      this.entries.delete(key);
    }
  }
}
