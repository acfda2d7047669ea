import { type QueuedTimeout, TimerQueue } from "../jsonrpc/timer-queue.js";
import type { ClientLogger } from "./types.js";

export const DEFAULT_MAX_CONCURRENT_NOTIFICATION_CALLBACKS = 32;
export const DEFAULT_MAX_QUEUED_NOTIFICATIONS = 1024;

/** The bounds of a {@link NotificationRunner}. */
export interface NotificationLimits {
  /** Callbacks running at once (a callback runs until the promise it returns settles). */
  maxConcurrent: number;
  /** Notifications waiting for a slot; past it they are dropped. 0: none waits. */
  maxQueued: number;
  /** Longest a running callback holds its slot (`Infinity`: until it settles). */
  timeoutMs: number;
}

interface Job {
  name: string;
  callback: (arg: never) => unknown;
  arg: unknown;
}

/**
 * Runs the client's notification callbacks (`onProgress`, `onLog`, `onNotification`) so that a flood of server
 * notifications cannot grow concurrency or memory without bound: at most `maxConcurrent` run at once, in the
 * order the notifications arrived; the rest wait in a FIFO of `maxQueued`. A notification that finds the queue
 * full is dropped, with one warning per burst (the burst ends when the queue has drained; its count goes to
 * `debug`). A callback that returns a promise holds its slot until the promise settles, at most `timeoutMs`
 * (then its slot is released, with a warning; JavaScript cannot stop it). A throw or rejection is reported to
 * the logger, never thrown into the client. A synchronous callback takes no timer and no queue hop.
 */
export class NotificationRunner {
  private running = 0;
  private readonly queue: Job[] = [];
  private head = 0;
  private pumping = false;
  private closed = false;
  private droppedInBurst = 0;
  private readonly timers: TimerQueue | undefined;
  private readonly timed = new Set<QueuedTimeout>();

  constructor(
    private readonly limits: NotificationLimits,
    private readonly logger: ClientLogger,
  ) {
    this.timers = Number.isFinite(limits.timeoutMs) ? new TimerQueue(limits.timeoutMs) : undefined;
  }

  /** Callbacks running now. */
  get active(): number {
    return this.running;
  }

  /** Notifications waiting for a slot now. */
  get queued(): number {
    return this.queue.length - this.head;
  }

  /** Calls `callback(arg)` (named `name` in reports) now, or once a slot frees; drops it when the queue is full. */
  run<T>(name: string, callback: ((arg: T) => unknown) | undefined, arg: T): void {
    if (callback === undefined || this.closed) return;
    const job: Job = { name, callback: callback as (arg: never) => unknown, arg };
    if (this.running < this.limits.maxConcurrent && this.queued === 0) {
      this.start(job);
      return;
    }
    if (this.queued >= this.limits.maxQueued) {
      this.drop(name);
      return;
    }
    this.queue.push(job);
  }

  /** Drops what waits and frees every slot; later notifications are ignored. Running callbacks run on. */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
    this.head = 0;
    for (const entry of this.timed) this.timers?.cancel(entry);
    this.timed.clear();
  }

  private start(job: Job): void {
    this.running++;
    let returned: unknown;
    try {
      returned = (job.callback as (arg: unknown) => unknown)(job.arg);
    } catch (error) {
      this.failed(job.name, error);
      this.release();
      return;
    }
    if (!isThenable(returned)) {
      this.release();
      return;
    }
    let done = false;
    let entry: QueuedTimeout | undefined;
    const finish = () => {
      if (done) return;
      done = true;
      if (entry !== undefined) {
        this.timers?.cancel(entry);
        this.timed.delete(entry);
      }
      this.release();
    };
    if (this.timers !== undefined) {
      entry = this.timers.add(() => {
        if (entry !== undefined) this.timed.delete(entry);
        if (done) return;
        this.warn(`${job.name} callback still running after ${this.limits.timeoutMs} ms; its slot is freed`, {
          callback: job.name,
        });
        finish();
      });
      this.timed.add(entry);
    }
    try {
      returned.then(finish, (error: unknown) => {
        if (!done) this.failed(job.name, error);
        finish();
      });
    } catch (error) {
      this.failed(job.name, error);
      finish();
    }
  }

  private release(): void {
    this.running--;
    this.pump();
  }

  /** Starts waiting jobs while slots are free; a loop, not recursion, however many finish synchronously. */
  private pump(): void {
    if (this.pumping || this.closed) return;
    this.pumping = true;
    try {
      while (this.running < this.limits.maxConcurrent && this.queued > 0) {
        const job = this.queue[this.head] as Job;
        this.queue[this.head] = undefined as unknown as Job;
        this.head++;
        if (this.head === this.queue.length) {
          this.queue.length = 0;
          this.head = 0;
        } else if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
          this.queue.splice(0, this.head);
          this.head = 0;
        }
        this.start(job);
      }
    } finally {
      this.pumping = false;
    }
    if (this.queued === 0 && this.droppedInBurst > 0) {
      this.logger.debug?.("the notification queue drained", { dropped: this.droppedInBurst });
      this.droppedInBurst = 0;
    }
  }

  private drop(name: string): void {
    if (this.droppedInBurst++ > 0) return;
    this.warn("dropped a server notification: the notification queue is full (maxQueuedNotifications)", {
      callback: name,
      maxQueuedNotifications: this.limits.maxQueued,
      maxConcurrentNotificationCallbacks: this.limits.maxConcurrent,
    });
  }

  private failed(name: string, error: unknown): void {
    this.warn(`${name} callback failed`, { error });
  }

  private warn(message: string, details: { [key: string]: unknown }): void {
    try {
      this.logger.warn(message, details);
    } catch {
      // A logger that throws has nowhere left to report to.
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function"
  );
}
