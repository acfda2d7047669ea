import type { AbortLike } from "../../jsonrpc/lazy-abort.js";

/** At most `capacity` holders at once; waiters queue in order and leave when their signal aborts. */
export class Slots {
  private used = 0;
  private readonly waiters: Array<{ grant: () => void; fail: (reason: unknown) => void }> = [];

  constructor(private readonly capacity: number) {}

  /** A release function when a slot is free now, else undefined. */
  tryAcquire(): (() => void) | undefined {
    if (this.used >= this.capacity || this.waiters.length > 0) return undefined;
    this.used++;
    return this.releaser();
  }

  /** Resolves with a release function once a slot is free. */
  acquire(signal: AbortLike | undefined): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.tryAcquire();
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          this.used++;
          resolve(this.releaser());
        },
        fail: (reason: unknown) => {
          signal?.removeEventListener("abort", onAbort);
          reject(reason);
        },
      };
      const onAbort = () => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Every waiter leaves with `reason`. */
  failAll(reason: unknown): void {
    for (const waiter of this.waiters.splice(0)) waiter.fail(reason);
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used--;
      this.waiters.shift()?.grant();
    };
  }
}
