import { afterEach, describe, expect, it, vi } from "vitest";
import { PollWindow, pollWindowOption } from "./poll-window.js";

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
});

describe("pollWindowOption", () => {
  it("defaults to 0 (never polls) and takes 0 to 10", () => {
    expect(pollWindowOption(undefined)).toBe(0);
    expect(pollWindowOption(0.1)).toBe(0.1);
    expect(pollWindowOption(0)).toBe(0);
    expect(pollWindowOption(10)).toBe(10);
  });

  it.each([-1, 10.5, Number.NaN, Number.POSITIVE_INFINITY, "1"])("refuses %s", (value) => {
    expect(() => pollWindowOption(value)).toThrow(
      expect.objectContaining({ code: "INVALID_CONFIG", details: { key: "pollAfterWriteMs" } }),
    );
  });
});
