import { McpkitError } from "../jsonrpc/errors.js";

/**
 * How long the event loop keeps polling after a frame is written (in ms), by default: enough for a nearby
 * peer's prompt answer on a busy machine. Adaptive (see {@link PollWindow}): a peer that does not answer at
 * once soon costs next to nothing.
 */
export const POLL_WINDOW_MS = 0.1;
/** The most writes a run of missed windows makes the poller skip before it tries again. */
export const MAX_POLL_BACKOFF = 256;
/** The longest poll window an option may ask for (in ms). */
export const MAX_POLL_WINDOW_MS = 10;

/** Checks a `pollAfterWriteMs` option: a number from 0 (never poll) to 10; absent means the default. */
export function pollWindowOption(value: unknown): number {
  if (value === undefined) return POLL_WINDOW_MS;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > MAX_POLL_WINDOW_MS) {
    throw new McpkitError(
      "INVALID_CONFIG",
      `pollAfterWriteMs must be a number from 0 to ${MAX_POLL_WINDOW_MS}`,
      { details: { key: "pollAfterWriteMs" } },
    );
  }
  return value;
}

/**
 * Keeps the event loop turning for a short window after each write: one `setImmediate` after another, each
 * turn a non-blocking poll. Blocking in the poll and being woken by the peer's answer can cost more than the
 * whole exchange (an idle virtual CPU halts and needs an interrupt to resume); an answer that comes within the
 * window is read without the process ever going to sleep, which saves CPU as well as time.
 *
 * Adaptive, so that spinning is only done where it pays: a read ends the window (and resets the back-off); a
 * window that ends with nothing read is a miss, after which the next 1, 2, 4, ... up to
 * {@link MAX_POLL_BACKOFF} writes poll not at all. A peer that answers slowly (a real tool, a person, a stream
 * of notifications with no answer) thus costs one window now and then; one that answers at once keeps its
 * windows. Bounded: at most `windowMs` of polling per write, nothing once `stop()` was called.
 */
export class PollWindow {
  private until = 0;
  private running = false;
  private readSeen = false;
  private backoff = 0;
  private skip = 0;
  private stopped = false;

  constructor(private readonly windowMs: number = POLL_WINDOW_MS) {}

  /** True while the loop is being kept turning. */
  get active(): boolean {
    return this.running;
  }

  /** After a write: starts, or moves the end of, the window (now plus `windowMs`), unless backing off. */
  extend(): void {
    if (this.windowMs <= 0 || this.stopped) return;
    if (this.running) {
      if (this.readSeen) this.backoff = 0;
    } else if (this.skip > 0) {
      this.skip--;
      return;
    } else {
      this.running = true;
      setImmediate(this.turn);
    }
    this.readSeen = false;
    this.until = performance.now() + this.windowMs;
  }

  /** After a read: the window served its purpose and ends at the next turn (a write that follows reopens it). */
  read(): void {
    if (!this.running) return;
    this.readSeen = true;
    this.until = 0;
  }

  /** Ends the window at the next turn, and polls no more. */
  stop(): void {
    this.stopped = true;
    this.until = 0;
  }

  private readonly turn = (): void => {
    if (performance.now() < this.until) {
      setImmediate(this.turn);
      return;
    }
    this.running = false;
    if (this.readSeen) {
      this.backoff = 0;
    } else if (!this.stopped) {
      this.backoff = Math.min(this.backoff === 0 ? 1 : this.backoff * 2, MAX_POLL_BACKOFF);
      this.skip = this.backoff;
    }
  };
}
