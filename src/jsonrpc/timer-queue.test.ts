import { afterEach, describe, expect, it, vi } from "vitest";
import { TimerQueue } from "./timer-queue.js";

describe("TimerQueue", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const fake = () => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });

  it("fires entries in order once their delay has passed, not before", () => {
    fake();
    const queue = new TimerQueue(30);
    const fired: string[] = [];
    queue.add(() => fired.push("a"));
    vi.advanceTimersByTime(10);
    queue.add(() => fired.push("b"));
    vi.advanceTimersByTime(19);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(["a"]);
    vi.advanceTimersByTime(9);
    expect(fired).toEqual(["a"]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(["a", "b"]);
    expect(queue.size).toBe(0);
  });

  it("never fires a cancelled entry, the head or any other", () => {
    fake();
    const queue = new TimerQueue(20);
    const fired: string[] = [];
    const a = queue.add(() => fired.push("a"));
    const b = queue.add(() => fired.push("b"));
    const c = queue.add(() => fired.push("c"));
    queue.cancel(a);
    queue.cancel(c);
    queue.cancel(c);
    expect(queue.size).toBe(1);
    vi.advanceTimersByTime(40);
    expect(fired).toEqual(["b"]);
    queue.cancel(b);
    expect(queue.size).toBe(0);
  });

  it("re-arms for entries added after the head was cancelled, and after it fired", () => {
    fake();
    const queue = new TimerQueue(20);
    const fired: string[] = [];
    queue.cancel(queue.add(() => fired.push("cancelled")));
    vi.advanceTimersByTime(10);
    queue.add(() => fired.push("late"));
    vi.advanceTimersByTime(19);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(["late"]);
    queue.add(() => fired.push("again"));
    vi.advanceTimersByTime(20);
    expect(fired).toEqual(["late", "again"]);
  });

  it("waits in steps past the longest delay setTimeout takes", () => {
    fake();
    const queue = new TimerQueue(3_000_000_000);
    let fired = false;
    queue.add(() => {
      fired = true;
    });
    vi.advanceTimersByTime(2_999_999_999);
    expect(fired).toBe(false);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(true);
  });

  it("lets a callback add entries, and keeps firing after one throws", () => {
    const queue = new TimerQueue(10);
    const fired: string[] = [];
    const errors: unknown[] = [];
    const original = globalThis.queueMicrotask;
    globalThis.queueMicrotask = (callback) => {
      try {
        callback();
      } catch (error) {
        errors.push(error);
      }
    };
    fake();
    try {
      queue.add(() => {
        throw new Error("boom");
      });
      queue.add(() => {
        fired.push("second");
        queue.add(() => fired.push("chained"));
      });
      vi.advanceTimersByTime(20);
    } finally {
      globalThis.queueMicrotask = original;
    }
    expect(fired).toEqual(["second", "chained"]);
    expect(errors).toMatchObject([{ message: "boom" }]);
  });

  it("keeps the process alive only while entries wait", () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const refs: boolean[] = [];
    const timer = { ref: () => refs.push(true), unref: () => refs.push(false) };
    const spy = vi.spyOn(globalThis, "setTimeout").mockReturnValue(timer as never);
    const queue = new TimerQueue(1000);
    const a = queue.add(() => {});
    queue.cancel(a);
    queue.add(() => {});
    expect(spy).toHaveBeenCalledTimes(1);
    expect(refs).toEqual([false, true]);
    spy.mockRestore();
  });
});
