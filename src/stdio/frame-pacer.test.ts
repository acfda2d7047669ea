import { describe, expect, it } from "vitest";
import { FramePacer, type PacerEvents } from "./frame-pacer.js";
import { FrameDecoder, type InvalidUtf8Frame } from "./framing.js";

/** `count` frames `"0"`, `"1"`, ... in one buffer, starting at `from`. */
function frames(count: number, from = 0): Buffer {
  return Buffer.from(Array.from({ length: count }, (_, i) => `${from + i}\n`).join(""));
}

/** A pacer over a real decoder, with turns run by hand and every event recorded. */
function paced(maxFramesPerTurn: number, limits = { maxFrameBytes: 1_000, maxPendingBytes: 1_000 }) {
  const got: (string | InvalidUtf8Frame)[] = [];
  const events: string[] = [];
  const turns: (() => void)[] = [];
  const decoder = new FrameDecoder(limits, (frame) => got.push(frame));
  const handlers: PacerEvents = {
    hold: () => events.push("hold"),
    release: () => events.push("release"),
    fail: (error) => events.push(`fail: ${(error as Error).message}`),
    settled: () => events.push(`settled ${got.length}`),
  };
  const pacer = new FramePacer(decoder, maxFramesPerTurn, handlers, (callback) => turns.push(callback));
  /** Runs the turn callbacks scheduled so far (one turn of the loop); false when none was scheduled. */
  const turn = () => {
    const due = turns.splice(0);
    for (const callback of due) callback();
    return due.length > 0;
  };
  return { pacer, got, events, turn };
}

describe("FramePacer", () => {
  it("frames a chunk of N frames in ceil(N / maxFramesPerTurn) turns, in order, paused in between", () => {
    const { pacer, got, events, turn } = paced(100);
    pacer.push(frames(250));
    expect(got).toHaveLength(100);
    expect(pacer.holding).toBe(true);
    expect(events).toEqual(["settled 100", "hold"]);
    expect(turn()).toBe(true);
    expect(got).toHaveLength(200);
    expect(turn()).toBe(true);
    expect(got).toHaveLength(250);
    expect(pacer.holding).toBe(false);
    expect(events).toEqual(["settled 100", "hold", "settled 200", "hold", "settled 250", "release"]);
    expect(got).toEqual(Array.from({ length: 250 }, (_, i) => String(i)));
    // The last turn only resets the count.
    expect(turn()).toBe(true);
    expect(turn()).toBe(false);
  });

  it("counts every chunk of one turn against the same budget, and chunks that come while holding wait in order", () => {
    const { pacer, got, turn } = paced(10);
    pacer.push(frames(6, 0));
    pacer.push(frames(6, 6));
    expect(got).toHaveLength(10);
    pacer.push(frames(3, 12));
    expect(got).toHaveLength(10);
    turn();
    expect(got).toHaveLength(15);
    expect(got).toEqual(Array.from({ length: 15 }, (_, i) => String(i)));
    // A new turn, a fresh budget.
    turn();
    pacer.push(frames(10, 15));
    expect(got).toHaveLength(25);
    expect(pacer.holding).toBe(false);
  });

  it("schedules no turn callback for a trickle until half the budget is used, and yields early rather than late", () => {
    const { pacer, got, turn } = paced(10);
    for (let i = 0; i < 4; i++) {
      pacer.push(frames(1, i));
      // One frame per turn: no callback is scheduled, the count goes on.
      expect(turn()).toBe(false);
    }
    // 4 frames still count: 6 more fit in this turn (never more than 10), the rest comes at the next.
    pacer.push(frames(10, 4));
    expect(got).toHaveLength(10);
    expect(pacer.holding).toBe(true);
    expect(turn()).toBe(true);
    expect(got).toEqual(Array.from({ length: 14 }, (_, i) => String(i)));
  });

  it("keeps a frame split across chunks whole, and does not count blank lines", () => {
    const { pacer, got, turn } = paced(2);
    pacer.push(Buffer.from("\n\n  \na\nb\n\nc"));
    expect(got).toEqual(["a", "b"]);
    turn();
    pacer.push(Buffer.from("d\ne\n"));
    expect(got).toEqual(["a", "b", "cd", "e"]);
  });

  it("reports a limit crossed on a later turn through fail, after the frames before it, and frames no more", () => {
    const { pacer, got, events, turn } = paced(2, { maxFrameBytes: 5, maxPendingBytes: 5 });
    pacer.push(Buffer.from(`a\nb\nc\n${"x".repeat(6)}\nd\n`));
    expect(got).toEqual(["a", "b"]);
    turn();
    expect(got).toEqual(["a", "b", "c"]);
    expect(events.at(-1)).toMatch(/^fail: .*maxFrameBytes/);
    expect(pacer.holding).toBe(false);
    pacer.push(Buffer.from("e\n"));
    turn();
    expect(got).toEqual(["a", "b", "c"]);
  });

  it("runs afterHeld callbacks once the held bytes are framed (at once when none are), after release", () => {
    const { pacer, got, events, turn } = paced(100);
    pacer.afterHeld(() => events.push("now"));
    expect(events).toEqual(["now"]);
    pacer.push(frames(150));
    pacer.afterHeld(() => events.push(`ended after ${got.length}`));
    expect(events.at(-1)).toBe("hold");
    turn();
    expect(events.slice(-2)).toEqual(["release", "ended after 150"]);
  });

  it("drops what it holds once stopped", () => {
    const { pacer, got, events, turn } = paced(1);
    pacer.push(frames(3));
    pacer.stop();
    turn();
    expect(got).toEqual(["0"]);
    expect(events).not.toContain("release");
  });
});
