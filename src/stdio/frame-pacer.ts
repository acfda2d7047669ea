import type { FrameDecoder } from "./framing.js";

/** Runs a callback on a later turn of the event loop (`setImmediate`: after pending I/O, with timers due). */
export type NextTurn = (callback: () => void) => void;

/** What a {@link FramePacer} tells the reader it paces. */
export interface PacerEvents {
  /** Bytes are held for a later turn: stop reading (pause the stream) until {@link release}. */
  hold(): void;
  /** Every held byte has been framed: reading may go on. */
  release(): void;
  /** The decoder refused the input (a limit crossed, see `FrameDecoder.push`); nothing more is framed. */
  fail(error: unknown): void;
  /** A run of frames handed over in one go has ended (a batch may be delivered now). */
  settled?(): void;
}

const nextImmediate: NextTurn = (callback) => {
  setImmediate(callback);
};

/**
 * Feeds a {@link FrameDecoder} at most `maxFramesPerTurn` frames per turn of the event loop: past the budget,
 * the rest of the chunk (and any chunk the stream emits before it pauses) is held, the reader pauses its
 * stream, and framing goes on at the next turn, after timers and other I/O have had theirs. Frames are handed
 * over in order; held bytes are bounded by the chunks already read, as the stream is paused. The budget counts
 * every frame of one turn, however many chunks brought them.
 *
 * @example
 * const pacer = new FramePacer(decoder, policy.maxFramesPerTurn, {
 *   hold: () => input.pause(),
 *   release: () => input.resume(),
 *   fail: (error) => close(error),
 * });
 * input.on("data", (chunk) => pacer.push(chunk));
 */
export class FramePacer {
  /** Frames handed over in the current turn. */
  private used = 0;
  /** A turn callback is scheduled: it resets `used` and frames what is held. */
  private scheduled = false;
  /** Chunks not yet wholly framed; the first from byte `offset`. */
  private readonly held: Buffer[] = [];
  private offset = 0;
  private stopped = false;
  private readonly resetAt: number;
  /** Callbacks waiting for the held bytes to be framed. */
  private waiting: (() => void)[] = [];

  constructor(
    private readonly decoder: FrameDecoder,
    private readonly maxFramesPerTurn: number,
    private readonly events: PacerEvents,
    private readonly nextTurn: NextTurn = nextImmediate,
  ) {
    this.resetAt = Math.max(1, Math.floor(maxFramesPerTurn / 2));
  }

  /** True while bytes wait for a later turn. */
  get holding(): boolean {
    return this.held.length > 0;
  }

  /** Frames `chunk` now, up to this turn's budget; the rest waits for later turns. */
  push(chunk: Buffer): void {
    if (this.stopped) return;
    this.held.push(chunk);
    // A chunk that came while others are held waits behind them, in order.
    if (this.held.length === 1) this.run();
  }

  /**
   * Runs `callback` once every held byte is framed: at once when nothing is held. A stream's end waits here, so
   * the frames that came before it are handled before it is.
   */
  afterHeld(callback: () => void): void {
    if (this.held.length === 0) callback();
    else this.waiting.push(callback);
  }

  /** Frames nothing more and drops what is held and what waits for it (the reader is done). */
  stop(): void {
    this.stopped = true;
    this.held.length = 0;
    this.waiting = [];
  }

  private run(): void {
    try {
      while (this.used < this.maxFramesPerTurn && !this.stopped) {
        const chunk = this.held[0];
        if (chunk === undefined) break;
        const before = this.decoder.frames;
        const stop = this.decoder.feed(chunk, this.offset, this.maxFramesPerTurn - this.used);
        this.used += this.decoder.frames - before;
        if (stop < chunk.length) this.offset = stop;
        else {
          this.held.shift();
          this.offset = 0;
        }
      }
    } catch (error) {
      this.stop();
      this.events.fail(error);
      return;
    }
    if (this.stopped) return;
    // The count starts over at the next turn, scheduled only once it reaches half the budget: a turn callback
    // per chunk would cost more than a one-frame chunk itself. Frames of earlier turns may thus still count
    // (under half the budget), which can only make the reader yield early, never late.
    if (this.used >= this.resetAt && !this.scheduled) {
      this.scheduled = true;
      this.nextTurn(this.turn);
    }
    this.events.settled?.();
    if (this.held.length > 0) this.events.hold();
  }

  private readonly turn = (): void => {
    this.scheduled = false;
    this.used = 0;
    if (this.stopped || this.held.length === 0) return;
    this.run();
    if (this.stopped || this.held.length > 0) return;
    this.events.release();
    const waiting = this.waiting;
    this.waiting = [];
    for (const callback of waiting) callback();
  };
}
