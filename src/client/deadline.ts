import { McpkitError } from "../jsonrpc/errors.js";
import { type AbortLike, LazyAbort } from "../jsonrpc/lazy-abort.js";
import { type QueuedTimeout, sharedTimerQueue, type TimerQueue } from "../jsonrpc/timer-queue.js";

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
 * One operation's end: a timer, the caller's signal and an enclosing deadline folded into one abort, whose
 * `reason` is always an `McpkitError` (`TIMEOUT` or `ABORTED`). Its `AbortSignal` is made only when read
 * (listen with `addEventListener` otherwise). Call `dispose()` when the operation ends.
 */
export class Deadline extends LazyAbort {
  readonly expiresAt: number;
  private readonly timeoutMs: number;
  private readonly what: string;
  private queued: QueuedTimeout | undefined;
  private queue: TimerQueue | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private detach: (() => void)[] | undefined;
  private ownTimeout = false;

  constructor(init: DeadlineInit) {
    super();
    this.timeoutMs = init.timeoutMs;
    this.what = init.what;
    const parent = init.parent;
    this.expiresAt = Math.min(Date.now() + init.timeoutMs, parent?.expiresAt ?? Number.POSITIVE_INFINITY);
    if (parent) this.follow(parent, () => parent.reason);
    if (init.signal) {
      const caller = init.signal;
      this.follow(
        caller,
        () => new McpkitError("ABORTED", `${init.what} was aborted`, { cause: caller.reason }),
      );
    }
    if (!this.aborted && init.timeoutMs <= MAX_TIMER_MS) {
      const onTimeout = () => this.expire();
      const queue = sharedTimerQueue(init.timeoutMs);
      if (queue) {
        this.queue = queue;
        this.queued = queue.add(onTimeout);
      } else this.timer = setTimeout(onTimeout, init.timeoutMs);
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
    if (this.aborted) throw this.reason;
  }

  /**
   * Runs `work` until it settles or the deadline ends, whichever comes first. The work itself is not stopped;
   * use it for steps that take no signal.
   */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.aborted) return Promise.reject(this.reason);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(this.reason);
      this.addEventListener("abort", onAbort);
      work.then(
        (value) => {
          this.removeEventListener("abort", onAbort);
          resolve(value);
        },
        (error: unknown) => {
          this.removeEventListener("abort", onAbort);
          reject(error);
        },
      );
    });
  }

  /** Ends the deadline now with `reason` (no effect once ended). */
  end(reason: unknown): void {
    this.abort(reason);
  }

  /** Runs `cleanup` once when the deadline is disposed (or ends). */
  onDispose(cleanup: () => void): void {
    if (this.detach) this.detach.push(cleanup);
    else this.detach = [cleanup];
  }

  /** Stops the timer and detaches from the caller's signal and the parent. Idempotent. */
  dispose(): void {
    if (this.queued) {
      this.queue?.cancel(this.queued);
      this.queued = undefined;
    }
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const detach = this.detach;
    this.detach = undefined;
    if (detach) for (const cleanup of detach) cleanup();
  }

  override abort(reason: unknown): void {
    if (this.aborted) return;
    super.abort(reason);
    this.dispose();
  }

  private expire(): void {
    this.queued = undefined;
    this.timer = undefined;
    this.ownTimeout = true;
    this.abort(
      new McpkitError("TIMEOUT", `${this.what} timed out after ${this.timeoutMs} ms`, {
        details: { timeoutMs: this.timeoutMs },
      }),
    );
  }

  private follow(source: AbortLike, reason: () => unknown): void {
    if (source.aborted) {
      this.abort(reason());
      return;
    }
    const onAbort = () => this.abort(reason());
    source.addEventListener("abort", onAbort, { once: true });
    const cleanup = () => source.removeEventListener("abort", onAbort);
    if (this.detach) this.detach.push(cleanup);
    else this.detach = [cleanup];
  }
}
