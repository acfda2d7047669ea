import { AbortLinks, type AbortTarget } from "../../jsonrpc/abort-links.js";
import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import { type AbortLike, LazyAbort } from "../../jsonrpc/lazy-abort.js";
import { type LimitFacts, limitDetails, limitMessage } from "../../jsonrpc/limit-error.js";
import { type QueuedTimeout, type TimeoutTarget, TimerQueue } from "../../jsonrpc/timer-queue.js";

/** Message of the error sent when a handler call outlives its deadline. */
export const HANDLER_TIMEOUT_MESSAGE = "handler callback timed out";
/** Message of the error sent when every handler slot is taken and the admission queue is full. */
export const HANDLER_CAPACITY_MESSAGE = "handler capacity reached";
/** The `data.retryAfterMs` hint sent with {@link HANDLER_CAPACITY_MESSAGE}. */
export const HANDLER_RETRY_AFTER_MS = 1000;

/** Limits of a {@link CallbackExecutor}. */
export interface ExecutorLimits {
  /** Deadline of one handler call, in ms, counted from its arrival (time spent queued included). */
  timeoutMs: number;
  /** Handler calls that may run at once across every connection of a server. */
  maxConcurrent: number;
  /** Calls that may wait for a slot (default 1,024); one more is refused. */
  maxQueued?: number;
}

/**
 * Runs handler callbacks under a deadline and a shared admission limit. A call that finds every slot taken
 * waits in a FIFO queue of at most `maxQueued` calls; only a call that finds the queue full is refused at once
 * (`-32603` "handler capacity reached", `data: { retryAfterMs }`). The deadline runs from arrival, so waiting
 * counts against it; a queued call whose deadline passes or whose caller cancels leaves the queue at once,
 * without taking a slot. A running call past its deadline has its abort fired, then its slot released, and its
 * caller gets `-32603` "handler callback timed out". JavaScript cannot kill a running function, so a handler
 * that ignores its signal keeps running, but it no longer holds a slot and its late result is dropped. Every
 * call's deadline has the same length, so they share one timer. Each arriving call also expires the calls past
 * their deadline, so deadlines and slots hold where a timer may never fire (Workers).
 */
export class CallbackExecutor {
  private active = 0;
  private readonly maxQueued: number;
  /** What a refusal names: the option that bounds the queue, its value and the call one over it. */
  private readonly queueFacts: LimitFacts;
  // A Set keeps arrival order and removes a cancelled call from the middle in O(1).
  private readonly queue = new Set<ExecutorCall<unknown>>();
  /** @internal Each running call's link to its request's signal. */
  readonly cancelLinks = new AbortLinks<AbortTarget>();
  private readonly timers: TimerQueue;

  constructor(readonly limits: ExecutorLimits) {
    this.timers = new TimerQueue(limits.timeoutMs);
    this.maxQueued = limits.maxQueued ?? 1024;
    this.queueFacts = { option: "maxQueuedHandlers", limit: this.maxQueued, size: this.maxQueued + 1 };
  }

  /** Handler calls running now. */
  get running(): number {
    return this.active;
  }

  /** Handler calls waiting for a slot now. */
  get queued(): number {
    return this.queue.size;
  }

  /**
   * Runs `callback` with an abort that fires on the deadline or when `cancel` fires (its `AbortSignal` is made
   * only if the callback reads `signal`). Rejects with the callback's own error, the timeout/capacity
   * `JsonRpcError`, or `cancel`'s reason when the caller cancels while the call is still queued.
   */
  run<T>(callback: (abort: LazyAbort) => Promise<T> | T, cancel?: AbortLike): Promise<T> {
    // Deadlines are checked on arrival too, not only by the timer: on Workers a timer armed by a request that has
    // ended never fires, and its calls would hold their slots for good.
    this.timers.expireDue();
    if (this.active < this.limits.maxConcurrent) {
      this.active++;
      return new ExecutorCall<T>(this, callback, cancel, false).promise;
    }
    if (cancel?.aborted) return Promise.reject(cancel.reason);
    if (this.queue.size >= this.maxQueued) {
      return Promise.reject(
        new JsonRpcError(
          ErrorCode.InternalError,
          limitMessage(HANDLER_CAPACITY_MESSAGE, this.queueFacts, "queued calls"),
          limitDetails(this.queueFacts, { retryAfterMs: HANDLER_RETRY_AFTER_MS }),
        ),
      );
    }
    const call = new ExecutorCall<T>(this, callback, cancel, true);
    this.queue.add(call as ExecutorCall<unknown>);
    return call.promise;
  }

  /** @internal A running call gave its slot back: the oldest queued call takes it. */
  release(): void {
    if (this.queue.size === 0) {
      this.active--;
      return;
    }
    const next = this.queue.values().next() as IteratorYieldResult<ExecutorCall<unknown>>;
    this.queue.delete(next.value);
    next.value.start();
  }

  /** @internal A queued call left before it ran. */
  dequeue(call: ExecutorCall<unknown>): void {
    this.queue.delete(call);
  }

  /** @internal */
  get timerQueue(): TimerQueue {
    return this.timers;
  }
}

/** One handler call: its abort, its place in the queue or its slot, its timer and its outcome. */
class ExecutorCall<T> implements TimeoutTarget, AbortTarget {
  readonly promise: Promise<T>;
  private readonly abort = new LazyAbort();
  private queued: boolean;
  private done = false;
  private resolve!: (value: T) => void;
  private reject!: (error: unknown) => void;
  private readonly timeout: QueuedTimeout;
  /** The link to the request's signal in the executor's table (0: none); see {@link AbortLinks}. */
  private cancelLink = 0;

  constructor(
    private readonly executor: CallbackExecutor,
    private readonly callback: (abort: LazyAbort) => Promise<T> | T,
    cancel: AbortLike | undefined,
    queued: boolean,
  ) {
    this.queued = queued;
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    if (cancel) {
      if (cancel.aborted) this.abort.abort(cancel.reason);
      else this.cancelLink = executor.cancelLinks.link(this, cancel);
    }
    this.timeout = executor.timerQueue.add(this);
    if (!queued) this.start();
  }

  /** Runs the callback; the caller has given this call a slot. */
  start(): void {
    this.queued = false;
    let result: Promise<T> | T;
    try {
      result = this.callback(this.abort);
    } catch (error) {
      // Settled on a later microtask like any other outcome, so a queue of throwing calls does not recurse.
      result = Promise.reject(error);
    }
    // A promise (an async callback's) is listened to as it is; only another value is wrapped.
    (result instanceof Promise ? result : Promise.resolve(result)).then(
      (value: T) => this.settle(true, value),
      (error: unknown) => this.settle(false, error),
    );
  }

  /** The request's signal aborted ({@link AbortLinks}). */
  abortedBy(reason: unknown): void {
    if (!this.queued) {
      this.abort.abort(reason);
      return;
    }
    // Still waiting: leave the queue without ever taking a slot.
    this.executor.timerQueue.cancel(this.timeout);
    this.finish(false);
    this.reject(reason);
  }

  /** @internal The deadline passed (called by the timer queue). */
  onTimeout(): void {
    const error = new JsonRpcError(ErrorCode.InternalError, HANDLER_TIMEOUT_MESSAGE);
    if (this.queued) {
      this.finish(false);
      this.reject(error);
      return;
    }
    // The signal fires first, then the slot is released: the handler learns it is done before anyone else can
    // take its place. The slot is released even if firing the signal throws.
    try {
      this.abort.abort(error);
    } finally {
      this.finish(true);
      this.reject(error);
    }
  }

  private settle(ok: boolean, value: unknown): void {
    this.executor.timerQueue.cancel(this.timeout);
    if (this.done) return;
    this.finish(true);
    if (ok) this.resolve(value as T);
    else this.reject(value);
  }

  private finish(heldSlot: boolean): void {
    if (this.done) return;
    this.done = true;
    this.executor.cancelLinks.unlink(this.cancelLink);
    this.cancelLink = 0;
    if (heldSlot) this.executor.release();
    else this.executor.dequeue(this as ExecutorCall<unknown>);
  }
}
