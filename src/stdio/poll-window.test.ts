import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_POLL_BACKOFF, PollWindow, pollWindowOption } from "./poll-window.js";

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("PollWindow", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("keeps turning the loop until the window has passed, then stops", async () => {
    let now = 1_000;
    vi.spyOn(performance, "now").mockImplementation(() => now);
    const poll = new PollWindow(0.1);
    expect(poll.active).toBe(false);
    poll.extend();
    expect(poll.active).toBe(true);
    await turn();
    await turn();
    expect(poll.active).toBe(true);
    now += 0.2;
    await turn();
    await turn();
    expect(poll.active).toBe(false);
  });

  it("moves the end of the window on each extend", async () => {
    let now = 1_000;
    vi.spyOn(performance, "now").mockImplementation(() => now);
    const poll = new PollWindow(0.1);
    poll.extend();
    now += 0.08;
    poll.extend();
    now += 0.08;
    await turn();
    await turn();
    expect(poll.active).toBe(true);
    now += 0.05;
    await turn();
    await turn();
    expect(poll.active).toBe(false);
  });

  it("ends at the next turn after stop()", async () => {
    vi.spyOn(performance, "now").mockImplementation(() => 1_000);
    const poll = new PollWindow(0.1);
    poll.extend();
    poll.stop();
    await turn();
    await turn();
    expect(poll.active).toBe(false);
  });

  it("never starts with a window of 0", () => {
    const poll = new PollWindow(0);
    poll.extend();
    expect(poll.active).toBe(false);
  });

  it("polls no more once stopped", () => {
    const poll = new PollWindow(0.1);
    poll.stop();
    poll.extend();
    expect(poll.active).toBe(false);
  });

  describe("adaptive", () => {
    let now = 1_000;
    /** Runs one window that ends with nothing read. */
    const miss = async (poll: PollWindow) => {
      poll.extend();
      expect(poll.active).toBe(true);
      now += 0.2;
      await turn();
      await turn();
      expect(poll.active).toBe(false);
    };
    /** Counts the writes that open no window before one does. */
    const skipped = (poll: PollWindow) => {
      let count = 0;
      for (;;) {
        poll.extend();
        if (poll.active) return count;
        count++;
      }
    };

    it("after missed windows skips the next 1, 2, 4, ... writes, up to MAX_POLL_BACKOFF", async () => {
      vi.spyOn(performance, "now").mockImplementation(() => now);
      const poll = new PollWindow(0.1);
      const seen: number[] = [];
      await miss(poll);
      for (let round = 0; round < 10; round++) {
        seen.push(skipped(poll));
        now += 0.2;
        await turn();
        await turn();
      }
      expect(seen).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, MAX_POLL_BACKOFF]);
    });

    it("ends a window at the read, and a read resets the back-off", async () => {
      vi.spyOn(performance, "now").mockImplementation(() => now);
      const poll = new PollWindow(0.1);
      await miss(poll);
      expect(skipped(poll)).toBe(1);
      poll.read();
      await turn();
      await turn();
      expect(poll.active).toBe(false);
      expect(skipped(poll)).toBe(0);
      poll.read();
      await turn();
      await turn();
      expect(skipped(poll)).toBe(0);
    });

    it("a write after a read in the same window counts the read as a hit", async () => {
      vi.spyOn(performance, "now").mockImplementation(() => now);
      const poll = new PollWindow(0.1);
      await miss(poll);
      expect(skipped(poll)).toBe(1);
      now += 0.2;
      await turn();
      await turn();
      // Two misses in a row: the back-off is 2. This window reads, is reopened by a write, then runs out.
      expect(skipped(poll)).toBe(2);
      poll.read();
      poll.extend();
      now += 0.2;
      await turn();
      await turn();
      expect(poll.active).toBe(false);
      expect(skipped(poll)).toBe(1);
    });
  });
});

describe("pollWindowOption", () => {
  it("defaults to 0.1 ms and takes 0 to 10", () => {
    expect(pollWindowOption(undefined)).toBe(0.1);
    expect(pollWindowOption(0)).toBe(0);
    expect(pollWindowOption(10)).toBe(10);
  });

  it.each([-1, 10.5, Number.NaN, Number.POSITIVE_INFINITY, "1"])("refuses %s", (value) => {
    expect(() => pollWindowOption(value)).toThrow(
      expect.objectContaining({ code: "INVALID_CONFIG", details: { key: "pollAfterWriteMs" } }),
    );
  });
});
