import type { AbortLike } from "./lazy-abort.js";

/** What an {@link AbortLinks} ends when its source aborts. */
export interface AbortTarget {
  /** The source of this target's link aborted with `reason`. */
  abortedBy(reason: unknown): void;
}

interface Link<T> {
  readonly target: T;
  readonly source: AbortLike;
  readonly onAbort: () => void;
}

/**
 * Ends targets when their sources abort (a request when its caller's signal does), without the target and the
 * source pointing at each other: the link lives in this table, keyed by a number, until `unlink`. Why: a
 * request's objects in one layer that held, or were held by, the signal of the layer above made V8 pretenure
 * and promote every request's objects under load (five to ten times the time in garbage collection;
 * docs/performance.md, "Objects that point at each other across layers").
 *
 * @example
 * const links = new AbortLinks<Call>();
 * const id = links.link(call, callerSignal); // call.abortedBy(reason) runs when callerSignal aborts
 * links.unlink(id); // when the call is done
 */
export class AbortLinks<T extends AbortTarget> {
  private readonly links = new Map<number, Link<T>>();
  private last = 0;

  /** Calls `target.abortedBy` when `source` aborts; returns the link's id (never 0). */
  link(target: T, source: AbortLike): number {
    const id = ++this.last;
    const links = this.links;
    const onAbort = () => links.get(id)?.target.abortedBy(source.reason);
    source.addEventListener("abort", onAbort, { once: true });
    links.set(id, { target, source, onAbort });
    return id;
  }

  /** Stops listening for link `id` (no effect for an id already unlinked, or 0). */
  unlink(id: number): void {
    const link = this.links.get(id);
    if (link === undefined) return;
    this.links.delete(id);
    link.source.removeEventListener("abort", link.onAbort);
  }

  /** Links in place. */
  get size(): number {
    return this.links.size;
  }
}
