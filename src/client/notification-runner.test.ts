import { describe, expect, it } from "vitest";
import { until } from "../../test/support/until.js";
import { NotificationRunner } from "./notification-runner.js";

function recorder() {
  const lines: { level: "warn" | "debug"; message: string; details: unknown }[] = [];
  return {
    lines,
    warn: (message: string, details?: unknown) => lines.push({ level: "warn", message, details }),
    debug: (message: string, details?: unknown) => lines.push({ level: "debug", message, details }),
  };
}

/** Async callbacks that stay running until released one by one; records start order and peak concurrency. */
function slowCallbacks() {
  const started: number[] = [];
  const release: Array<() => void> = [];
  let active = 0;
  let peak = 0;
  const callback = (n: number) => {
    started.push(n);
    active++;
    peak = Math.max(peak, active);
    return new Promise<void>((resolve) => {
      release.push(() => {
        active--;
        resolve();
      });
    });
  };
  return { callback, started, release, peak: () => peak, active: () => active };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("NotificationRunner", () => {
  it("runs at most maxConcurrent at once, starting them in arrival order, until all are delivered", async () => {
    const runner = new NotificationRunner(
      { maxConcurrent: 32, maxQueued: 1024, timeoutMs: 30_000 },
      recorder(),
    );
    const slow = slowCallbacks();
    for (let n = 0; n < 100; n++) runner.run("onLog", slow.callback, n);
    expect([runner.active, runner.queued, slow.started.length]).toEqual([32, 68, 32]);
    // Release in an order unlike the start order: the newest running first.
    while (slow.release.length > 0) {
      slow.release.pop()?.();
      await settle();
      expect(slow.active()).toBeLessThanOrEqual(32);
    }
    expect(slow.started).toEqual(Array.from({ length: 100 }, (_, n) => n));
    expect(slow.peak()).toBe(32);
    expect([runner.active, runner.queued]).toEqual([0, 0]);
  });

  it("runs synchronous callbacks at once, in order, with no queue and no recursion", () => {
    const runner = new NotificationRunner(
      { maxConcurrent: 1, maxQueued: 10_000, timeoutMs: 30_000 },
      recorder(),
    );
    const seen: number[] = [];
    const slow = slowCallbacks();
    runner.run("onLog", slow.callback, -1); // holds the only slot
    for (let n = 0; n < 5_000; n++) runner.run("onLog", (value: number) => seen.push(value), n);
    expect(runner.queued).toBe(5_000);
    slow.release[0]?.();
    return settle().then(() => {
      expect(seen).toHaveLength(5_000);
      expect(seen.every((value, index) => value === index)).toBe(true);
    });
  });

  it("drops past maxQueued with one warning per burst, and delivers the rest in order", async () => {
    const logger = recorder();
    const runner = new NotificationRunner({ maxConcurrent: 2, maxQueued: 10, timeoutMs: 30_000 }, logger);
    const slow = slowCallbacks();
    for (let n = 0; n < 20; n++) runner.run("onNotification", slow.callback, n);
    expect([runner.active, runner.queued]).toEqual([2, 10]);
    const warnings = () => logger.lines.filter((line) => line.level === "warn");
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]?.details).toMatchObject({ callback: "onNotification", maxQueuedNotifications: 10 });
    while (slow.release.length > 0) {
      slow.release.shift()?.();
      await settle();
    }
    expect(slow.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(logger.lines.filter((line) => line.level === "debug")).toEqual([
      { level: "debug", message: "the notification queue drained", details: { dropped: 8 } },
    ]);
    // A new burst warns again.
    for (let n = 0; n < 13; n++) runner.run("onNotification", slow.callback, 100 + n);
    expect(warnings()).toHaveLength(2);
  });

  it("with maxQueued 0, drops whatever finds every slot taken", () => {
    const runner = new NotificationRunner({ maxConcurrent: 1, maxQueued: 0, timeoutMs: 30_000 }, recorder());
    const slow = slowCallbacks();
    for (let n = 0; n < 3; n++) runner.run("onLog", slow.callback, n);
    expect(slow.started).toEqual([0]);
    expect(runner.queued).toBe(0);
  });

  it("reports a throw or a rejection to the logger, and frees the slot", async () => {
    const logger = recorder();
    const runner = new NotificationRunner({ maxConcurrent: 1, maxQueued: 10, timeoutMs: 30_000 }, logger);
    runner.run(
      "onLog",
      () => {
        throw new Error("sync boom");
      },
      1,
    );
    runner.run("onLog", () => Promise.reject(new Error("async boom")), 2);
    const after: number[] = [];
    runner.run("onLog", (n: number) => after.push(n), 3);
    await until(() => after.length === 1);
    expect(logger.lines.map((line) => line.message)).toEqual([
      "onLog callback failed",
      "onLog callback failed",
    ]);
    expect(runner.active).toBe(0);
  });

  it("frees the slot of a callback that never settles after timeoutMs, with a warning", async () => {
    const logger = recorder();
    const runner = new NotificationRunner({ maxConcurrent: 1, maxQueued: 10, timeoutMs: 5 }, logger);
    runner.run("onProgress", () => new Promise(() => {}), 1);
    const after: number[] = [];
    runner.run("onProgress", (n: number) => after.push(n), 2);
    expect(after).toEqual([]);
    await until(() => after.length === 1);
    expect(logger.lines[0]?.message).toContain("onProgress callback still running after 5 ms");
  });

  it("close() drops what waits, frees the slots and ignores later notifications", () => {
    const runner = new NotificationRunner({ maxConcurrent: 1, maxQueued: 10, timeoutMs: 30_000 }, recorder());
    const slow = slowCallbacks();
    for (let n = 0; n < 5; n++) runner.run("onLog", slow.callback, n);
    runner.close();
    expect(runner.queued).toBe(0);
    runner.run("onLog", slow.callback, 9);
    slow.release[0]?.();
    expect(slow.started).toEqual([0]);
  });
});
