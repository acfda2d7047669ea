import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError } from "../jsonrpc/errors.js";
import { type AbortLike, LazyAbort } from "../jsonrpc/lazy-abort.js";
import { type QueuedTimeout, TimerQueue } from "../jsonrpc/timer-queue.js";

/** Message of the error sent when a handler call outlives its deadline. */
export const HANDLER_TIMEOUT_MESSAGE = "handler callback timed out";
/** Message of the error sent when every handler slot is taken. */
export const HANDLER_CAPACITY_MESSAGE = "handler capacity reached";

/** Limits of a {@link CallbackExecutor}. */
export interface ExecutorLimits {
  /** Deadline of one handler call, in ms. */
  timeoutMs: number;
  /** Handler calls that may run at once across every connection of a server. */
  maxConcurrent: number;
}

/**
 * Runs handler callbacks under a deadline and a shared admission limit. A call that finds every slot taken is
 * refused at once (`-32603` "handler capacity reached"); a call past its deadline has its abort fired, then
 * its slot released, and its caller gets `-32603` "handler callback timed out". JavaScript cannot kill a
 * running function, so a handler that ignores its signal keeps running, but it no longer holds a slot and its
 * late result is dropped. Every call's deadline has the same length, so they share one timer.
 */
export class CallbackExecutor {
  private active = 0;
  private readonly timers: TimerQueue;

  constructor(readonly limits: ExecutorLimits) {
    this.timers = new TimerQueue(limits.timeoutMs);
  }

  /** Handler calls running now. */
  get running(): number {
    return this.active;
  }

  /**
   * Runs `callback` with an abort that fires on the deadline or when `cancel` fires (its `AbortSignal` is made
   * only if the callback reads `signal`). Rejects with the callback's own error, or the timeout/capacity
   * `JsonRpcError`.
   */
  run<T>(callback: (abort: LazyAbort) => Promise<T> | T, cancel?: AbortLike): Promise<T> {
    if (this.active >= this.limits.maxConcurrent) {
      return Promise.reject(new JsonRpcError(ErrorCode.InternalError, HANDLER_CAPACITY_MESSAGE));
    }
    this.active++;
    return new ExecutorCall<T>(this, callback, cancel).promise;
  }

  /** @internal */
  release(): void {
    this.active--;
  }

  /** @internal */
  get timerQueue(): TimerQueue {
    return this.timers;
  }
}

/** One handler call: its abort, its slot, its timer and its outcome. */
class ExecutorCall<T> {
  readonly promise: Promise<T>;
  private readonly abort = new LazyAbort();
  private released = false;
  private resolve!: (value: T) => void;
  private reject!: (error: unknown) => void;
  private readonly timeout: QueuedTimeout;
  private readonly onCancel: (() => void) | undefined;

  constructor(
    private readonly executor: CallbackExecutor,
    callback: (abort: LazyAbort) => Promise<T> | T,
    private readonly cancel: AbortLike | undefined,
  ) {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    if (cancel) {
      if (cancel.aborted) this.abort.abort(cancel.reason);
      else {
        this.onCancel = () => this.abort.abort(cancel.reason);
        cancel.addEventListener("abort", this.onCancel, { once: true });
      }
    }
    this.timeout = executor.timerQueue.add(() => this.expire());
    try {
      Promise.resolve(callback(this.abort)).then(
        (value) => this.settle(true, value),
        (error: unknown) => this.settle(false, error),
      );
    } catch (error) {
      this.settle(false, error);
    }
  }

  private expire(): void {
    const error = new JsonRpcError(ErrorCode.InternalError, HANDLER_TIMEOUT_MESSAGE);
    // The signal fires first, then the slot is released: the handler learns it is done before anyone else can
    // take its place.
    this.abort.abort(error);
    this.release();
    this.reject(error);
  }

  private settle(ok: boolean, value: unknown): void {
    this.executor.timerQueue.cancel(this.timeout);
    if (this.released) return;
    this.release();
    if (ok) this.resolve(value as T);
    else this.reject(value);
  }

  private release(): void {
    if (this.released) return;
    this.released = true;
    this.executor.release();
    if (this.onCancel) this.cancel?.removeEventListener("abort", this.onCancel);
  }
}
