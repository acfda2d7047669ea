import { McpkitError } from "../jsonrpc/errors.js";

// setTimeout fires at once for delays above 2^31 - 1 ms; such a deadline never fires instead.
const MAX_TIMER_MS = 2_147_483_647;

/** How a {@link Deadline} is set up. */
export interface DeadlineInit {
  /** Milliseconds from now; `Infinity` for none. */
  timeoutMs: number;
  /** The caller's signal: when it aborts, the deadline aborts with `McpkitError` `ABORTED`. */
  signal?: AbortSignal | undefined;
  /** An enclosing deadline: when it aborts, this one aborts with the same reason. */
  parent?: Deadline | undefined;
  /** Names the operation in error messages, e.g. `"tools/call"`. */
  what: string;
}

/**
 * One operation's end: a timer, the caller's signal and an enclosing deadline folded into one `AbortSignal`,
 * whose `reason` is always an `McpkitError` (`TIMEOUT` or `ABORTED`). Call `dispose()` when the operation ends.
 */
export class Deadline {
  readonly signal: AbortSignal;
  readonly expiresAt: number;
  private readonly controller = new AbortController();
  private readonly cleanups: (() => void)[] = [];
  private ownTimeout = false;

  constructor(init: DeadlineInit) {
    this.signal = this.controller.signal;
    const parentEnd = init.parent?.expiresAt ?? Number.POSITIVE_INFINITY;
    this.expiresAt = Math.min(Date.now() + init.timeoutMs, parentEnd);
    if (init.parent) this.follow(init.parent.signal, () => init.parent?.signal.reason);
    if (init.signal) {
      const caller = init.signal;
      this.follow(
        caller,
        () => new McpkitError("ABORTED", `${init.what} was aborted`, { cause: caller.reason }),
      );
    }
    if (!this.signal.aborted && init.timeoutMs <= MAX_TIMER_MS) {
      const timer = setTimeout(() => {
        this.ownTimeout = true;
        this.abort(
          new McpkitError("TIMEOUT", `${init.what} timed out after ${init.timeoutMs} ms`, {
            details: { timeoutMs: init.timeoutMs },
          }),
        );
      }, init.timeoutMs);
      this.cleanups.push(() => clearTimeout(timer));
    }
  }

  /** True when this deadline's own timer fired (not the parent's, not the caller's signal). */
  get timedOut(): boolean {
    return this.ownTimeout;
  }

  /** Milliseconds left, never negative. */
  remainingMs(): number {
    return Math.max(0, this.expiresAt - Date.now());
  }

  /** Throws the abort reason when the deadline has already passed. */
  throwIfEnded(): void {
    if (this.signal.aborted) throw this.signal.reason;
  }

  /**
   * Runs `work` until it settles or the deadline ends, whichever comes first. The work itself is not stopped;
   * use it for steps that take no signal.
   */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.signal.aborted) return Promise.reject(this.signal.reason);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(this.signal.reason);
      this.signal.addEventListener("abort", onAbort, { once: true });
      work.then(
        (value) => {
          this.signal.removeEventListener("abort", onAbort);
          resolve(value);
        },
        (error: unknown) => {
          this.signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      );
    });
  }

  /** Ends the deadline now with `reason` (no effect once ended). */
  end(reason: unknown): void {
    this.abort(reason);
  }

  /** Stops the timer and detaches from the caller's signal and the parent. Idempotent. */
  dispose(): void {
    for (const cleanup of this.cleanups.splice(0)) cleanup();
  }

  private follow(source: AbortSignal, reason: () => unknown): void {
    if (source.aborted) {
      this.abort(reason());
      return;
    }
    const onAbort = () => this.abort(reason());
    source.addEventListener("abort", onAbort, { once: true });
    this.cleanups.push(() => source.removeEventListener("abort", onAbort));
  }

  private abort(reason: unknown): void {
    if (this.signal.aborted) return;
    this.controller.abort(reason);
    this.dispose();
  }
}
