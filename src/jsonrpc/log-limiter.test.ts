import { describe, expect, it } from "vitest";
import { ManualClock } from "../../test/support/manual-clock.js";
import { type LogLevel, LogLimiter, limitLogger } from "./log-limiter.js";

type Line = [LogLevel, string, unknown?];

function recorder(intervalMs = 60_000) {
  const lines: Line[] = [];
  const clock = new ManualClock();
  const limiter = new LogLimiter(
    (level, message, details) => lines.push([level, message, details]),
    intervalMs,
    clock,
  );
  return { lines, clock, limiter };
}

describe("LogLimiter", () => {
  it("logs the first line of a kind, counts the rest of the interval, then says how many in one line", () => {
    const { lines, clock, limiter } = recorder();
    for (let i = 0; i < 10_000; i++) limiter.log("warn", "dropped a response to no request", { id: i });
    expect(lines).toEqual([["warn", "dropped a response to no request", { id: 0 }]]);
    clock.advance(59_999);
    expect(lines).toHaveLength(1);
    clock.advance(1);
    expect(lines[1]).toEqual([
      "warn",
      "dropped a response to no request: 9999 more in the last 60 s",
      { count: 9999, intervalMs: 60_000 },
    ]);
    // The next line after the interval is logged in full and opens a new one.
    limiter.log("warn", "dropped a response to no request", { id: "again" });
    expect(lines[2]).toEqual(["warn", "dropped a response to no request", { id: "again" }]);
    expect(lines).toHaveLength(3);
  });

  it("writes no summary for an interval without repeats, and leaves no timer behind", () => {
    const { lines, clock, limiter } = recorder(1_500);
    limiter.log("error", "request handler failed", new Error("boom"));
    clock.advance(1_500);
    expect(lines).toHaveLength(1);
    expect(clock.pending).toBe(0);
    limiter.log("error", "request handler failed");
    limiter.log("error", "request handler failed");
    clock.advance(1_500);
    expect(lines.at(-1)).toEqual([
      "error",
      "request handler failed: 1 more in the last 1.5 s",
      { count: 1, intervalMs: 1_500 },
    ]);
  });

  it("limits each kind on its own, at its own level", () => {
    const { lines, clock, limiter } = recorder();
    for (let i = 0; i < 100; i++) {
      limiter.log("warn", "dropped a malformed notifications/progress");
      limiter.log("debug", "a client went away during its upload");
    }
    expect(lines.map(([level, message]) => `${level} ${message}`)).toEqual([
      "warn dropped a malformed notifications/progress",
      "debug a client went away during its upload",
    ]);
    clock.advance(60_000);
    expect(lines.slice(2).map(([level, message]) => `${level} ${message}`)).toEqual([
      "warn dropped a malformed notifications/progress: 99 more in the last 60 s",
      "debug a client went away during its upload: 99 more in the last 60 s",
    ]);
  });

  it("counts kinds past 256 at once under one shared kind", () => {
    const { lines, clock, limiter } = recorder();
    for (let i = 0; i < 1_000; i++) limiter.log("warn", `kind ${i}`);
    expect(lines).toHaveLength(257);
    expect(lines.at(-1)?.[1]).toBe("kind 256");
    clock.advance(60_000);
    expect(lines.at(-1)?.[1]).toBe("(other log lines): 743 more in the last 60 s");
  });

  it("logs every line with an interval of 0", () => {
    const { lines, clock, limiter } = recorder(0);
    for (let i = 0; i < 5; i++) limiter.log("warn", "same");
    expect(lines).toHaveLength(5);
    expect(clock.pending).toBe(0);
  });

  it("survives a logger that throws from the summary's timer", () => {
    const clock = new ManualClock();
    let calls = 0;
    const limiter = new LogLimiter(
      () => {
        calls++;
        if (calls > 1) throw new Error("logger down");
      },
      60_000,
      clock,
    );
    limiter.log("warn", "x");
    limiter.log("warn", "x");
    expect(() => clock.advance(60_000)).not.toThrow();
    expect(calls).toBe(2);
  });
});

describe("limitLogger", () => {
  it("limits every level the logger has and keeps the levels it lacks absent", () => {
    const clock = new ManualClock();
    const seen: string[] = [];
    const logger = limitLogger(
      {
        warn: (message: string) => seen.push(`warn ${message}`),
        error: (message: string) => seen.push(`error ${message}`),
      },
      60_000,
      clock,
    );
    expect("debug" in logger).toBe(false);
    for (let i = 0; i < 3; i++) {
      logger.warn("w");
      logger.error("e");
    }
    clock.advance(60_000);
    expect(seen).toEqual([
      "warn w",
      "error e",
      "warn w: 2 more in the last 60 s",
      "error e: 2 more in the last 60 s",
    ]);
  });

  it("calls the logger's own methods with it as this", () => {
    const clock = new ManualClock();
    const logger = {
      lines: [] as string[],
      warn(message: string) {
        this.lines.push(message);
      },
      debug(message: string) {
        this.lines.push(`debug ${message}`);
      },
    };
    const limited = limitLogger(logger, 60_000, clock);
    limited.warn("a");
    limited.debug?.("b");
    expect(logger.lines).toEqual(["a", "debug b"]);
  });
});
