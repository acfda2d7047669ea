import { McpkitError } from "../jsonrpc/errors.js";

/**
 * How long the event loop keeps polling after a frame is written (in ms), by default: never. Polling trades CPU
 * (up to the window per write, spent spinning) for latency, so it is the caller's choice; 0.1 ms is enough for
 * a nearby peer's prompt answer (see docs/stdio.md).
 */
export const POLL_WINDOW_MS = 0;
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
 * window is read without the process ever going to sleep. Bounded: at most `windowMs` of polling per write,
 * nothing once the window has passed or `stop()` was called.
 */
export class PollWindow {
  private until = 0;
  private running = false;

  constructor(private readonly windowMs: number = POLL_WINDOW_MS) {}

  /** True while the loop is being kept turning. */
  get active(): boolean {
    return this.running;
  }

  /** Starts, or moves the end of, the window: now plus `windowMs`. */
  extend(): void {
    if (this.windowMs <= 0) return;
    this.until = performance.now() + this.windowMs;
    if (this.running) return;
    this.running = true;
    setImmediate(this.turn);
  }

  /** Ends the window at the next turn. */
  stop(): void {
    this.until = 0;
  }

  private readonly turn = (): void => {
    if (performance.now() < this.until) setImmediate(this.turn);
    else this.running = false;
  };
}
