import { REQUEST_SCOPED_TIMERS } from "./request-scoped-timers.js";

/** What a {@link TimerQueue} may call on timeout besides a function: an object's `onTimeout` (no closure to make). */
export interface TimeoutTarget {
  onTimeout(): void;
}

/** One pending timeout of a {@link TimerQueue}; pass it to `cancel`. */
export interface QueuedTimeout {
  readonly due: number;
  /** @internal */ fire: (() => void) | TimeoutTarget | undefined;
  /** @internal */ prev: QueuedTimeout | undefined;
  /** @internal */ next: QueuedTimeout | undefined;
}

type Timer = ReturnType<typeof setTimeout>;

// setTimeout fires at once for delays above 2^31 - 1 ms; a longer wait is armed in steps.
const MAX_TIMER_MS = 2_147_483_647;

/** Node's timers can be unref'd; elsewhere a timer never keeps a process alive, so there is nothing to do. */
function setRef(timer: Timer, ref: boolean): void {
  const handle = timer as unknown as { ref?: () => void; unref?: () => void };
  if (ref) handle.ref?.();
  else handle.unref?.();
}

/**
 * Timeouts that all share one delay, on one timer. Because every entry waits the same time, they expire in the
 * order they were added: a linked FIFO whose head is the next to fire, with O(1) add and cancel. The one
 * timer is armed for the head; a cancelled head leaves it armed (it re-arms for the new head when it fires),
 * so back-to-back operations do not create and clear a timer each. While the queue is empty the timer does not
 * keep the process alive.
 */
export class TimerQueue {
  private head: QueuedTimeout | undefined;
  private tail: QueuedTimeout | undefined;
  private timer: Timer | undefined;
  /** When `timer` should fire (performance.now() time). */
  private timerDue = 0;
  private refed = false;

  /**
   * With `requestScoped` (default: on Workers, see {@link REQUEST_SCOPED_TIMERS}) every `add` arms a timer of its
   * own, in the adding request, and never clears another's: a timer armed by an ended request never fires there.
   */
  constructor(
    readonly delayMs: number,
    private readonly requestScoped: boolean = REQUEST_SCOPED_TIMERS,
  ) {}

  /**
   * Calls `fire` (a function, or an object's `onTimeout`) once `delayMs` have passed, unless cancelled first.
   */
  add(fire: (() => void) | TimeoutTarget): QueuedTimeout {
    const now = performance.now();
    const entry: QueuedTimeout = {
      due: now + this.delayMs,
      fire,
      prev: this.tail,
      next: undefined,
    };
    if (this.tail) this.tail.next = entry;
    else this.head = entry;
    this.tail = entry;
    // A timer past its time never fired: on Workers a timer dies with the request that armed it. This entry's
    // request is alive, so the timer is armed again here.
    if (this.timer !== undefined && (this.requestScoped || this.timerDue < now)) this.drop();
    if (this.timer === undefined) this.arm(Math.max(1, Math.ceil((this.head ?? entry).due - now)));
    else if (!this.refed) {
      this.refed = true;
      setRef(this.timer, true);
    }
    return entry;
  }

  /** Cancels an entry (no effect once it fired or was cancelled). */
  cancel(entry: QueuedTimeout): void {
    if (entry.fire === undefined) return;
    entry.fire = undefined;
    this.unlink(entry);
    if (this.head === undefined && this.timer !== undefined && this.refed) {
      this.refed = false;
      setRef(this.timer, false);
    }
  }

  /**
   * Fires every entry whose time has come, now, and re-arms a timer past its time. For runtimes where a timer
   * may never fire (Workers drop the timers of a request that has ended): call it when work arrives.
   */
  expireDue(): void {
    if (this.head === undefined || this.head.due > performance.now()) return;
    if (this.timer !== undefined) this.drop();
    this.expire(undefined);
  }

  /** Entries waiting. */
  get size(): number {
    let count = 0;
    for (let entry = this.head; entry; entry = entry.next) count++;
    return count;
  }

  private unlink(entry: QueuedTimeout): void {
    const { prev, next } = entry;
    if (prev) prev.next = next;
    else this.head = next;
    if (next) next.prev = prev;
    else this.tail = prev;
    entry.prev = undefined;
    entry.next = undefined;
  }

  private arm(delay: number): void {
    this.refed = true;
    this.timerDue = performance.now() + delay;
    const timer: Timer = setTimeout(() => this.expire(timer), Math.min(delay, MAX_TIMER_MS));
    this.timer = timer;
  }

  /** Forgets the armed timer (it is past its time, or about to be replaced). */
  private drop(): void {
    // Elsewhere a replaced timer is cleared; on Workers it may be another request's, and is left to lapse.
    if (this.timer !== undefined && !this.requestScoped) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private expire(timer: Timer | undefined): void {
    // A timer replaced by a newer one (it was late) has nothing left to do.
    if (timer !== undefined && timer !== this.timer) return;
    this.timer = undefined;
    const now = performance.now();
    let entry = this.head;
    while (entry !== undefined && entry.due <= now) {
      const fire = entry.fire;
      entry.fire = undefined;
      this.unlink(entry);
      try {
        if (typeof fire === "function") fire();
        else fire?.onTimeout();
      } catch (error) {
        // As a throwing timer callback would be: reported, without stranding the entries behind it.
        queueMicrotask(() => {
          throw error;
        });
      }
      entry = this.head;
    }
    // A callback may have added entries and armed the timer already.
    if (this.head !== undefined && this.timer === undefined) {
      this.arm(Math.max(1, Math.ceil(this.head.due - now)));
    }
  }
}

// Timeouts of the same length share one queue; past this many distinct lengths, a caller arms its own timer.
const MAX_SHARED_LENGTHS = 16;
const sharedQueues = new Map<number, TimerQueue>();

/**
 * The process-wide {@link TimerQueue} of one delay, for timeouts whose length is a setting (a policy's, an
 * option's), never a computed remainder: `undefined` once 16 lengths are in use, and the caller sets a timer.
 */
export function sharedTimerQueue(delayMs: number): TimerQueue | undefined {
  let queue = sharedQueues.get(delayMs);
  if (queue === undefined && sharedQueues.size < MAX_SHARED_LENGTHS) {
    queue = new TimerQueue(delayMs);
    sharedQueues.set(delayMs, queue);
  }
  return queue;
}
