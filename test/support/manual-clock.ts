/**
 * A clock for tests: time moves only when the test says, and timers due by then run in order.
 *
 * @example
 * const clock = new ManualClock();
 * const handler = createHttpHandler(server, { clock });
 * clock.advance(15 * 60_000); // the idle timeout passes
 */
import type { Clock } from "../../src/jsonrpc/clock.js";

interface Timer {
  at: number;
  seq: number;
  callback: () => void;
}

export class ManualClock implements Clock {
  private time = 1_000_000;
  private seq = 0;
  private readonly timers = new Map<number, Timer>();

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const seq = ++this.seq;
    this.timers.set(seq, { at: this.time + Math.max(0, ms), seq, callback });
    return seq;
  }

  clearTimeout(handle: unknown): void {
    if (typeof handle === "number") this.timers.delete(handle);
  }

  /** Timers not yet run. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, running every timer that comes due (including ones they set). */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = [...this.timers.values()]
        .filter((timer) => timer.at <= end)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers.delete(due.seq);
      this.time = Math.max(this.time, due.at);
      due.callback();
    }
    this.time = end;
  }
}
