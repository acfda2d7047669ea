import { describe, expect, it } from "vitest";
import { LazyAbort } from "./lazy-abort.js";

describe("LazyAbort", () => {
  it("aborts once, running its listeners in order, and keeps the first reason", () => {
    const abort = new LazyAbort();
    const calls: string[] = [];
    abort.addEventListener("abort", () => calls.push("one"));
    abort.addEventListener("abort", () => calls.push(`two:${String(abort.reason)}`));
    expect(abort.aborted).toBe(false);
    abort.abort("first");
    abort.abort("second");
    expect(abort.aborted).toBe(true);
    expect(abort.reason).toBe("first");
    expect(calls).toEqual(["one", "two:first"]);
    expect(() => abort.throwIfAborted()).toThrow();
  });

  it("makes its AbortSignal on first read, already aborted when it is", () => {
    const late = new LazyAbort();
    late.abort(new Error("gone"));
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toBe(late.reason);
    const early = new LazyAbort();
    const signal = early.signal;
    expect(early.signal).toBe(signal);
    let fired: unknown;
    signal.addEventListener("abort", () => {
      fired = signal.reason;
    });
    early.abort("why");
    expect(fired).toBe("why");
  });

  it("fires the signal before its own listeners", () => {
    const abort = new LazyAbort();
    const order: string[] = [];
    abort.addEventListener("abort", () => order.push("listener"));
    abort.signal.addEventListener("abort", () => order.push("signal"));
    abort.abort(1);
    expect(order).toEqual(["signal", "listener"]);
  });

  it("removes listeners, ignores duplicates and listeners added after the abort", () => {
    const abort = new LazyAbort();
    let count = 0;
    const listener = () => count++;
    const other = () => count++;
    abort.addEventListener("abort", listener);
    abort.addEventListener("abort", listener);
    abort.addEventListener("abort", other);
    abort.removeEventListener("abort", other);
    abort.removeEventListener("abort", () => {});
    abort.abort(0);
    abort.addEventListener("abort", listener);
    expect(count).toBe(1);
  });

  it("reports a throwing listener without skipping the rest", async () => {
    const abort = new LazyAbort();
    let after = false;
    abort.addEventListener("abort", () => {
      throw new Error("listener broke");
    });
    abort.addEventListener("abort", () => {
      after = true;
    });
    const reported = new Promise<unknown>((resolve) => {
      const original = globalThis.queueMicrotask;
      globalThis.queueMicrotask = (callback) => {
        globalThis.queueMicrotask = original;
        try {
          callback();
        } catch (error) {
          resolve(error);
        }
      };
    });
    abort.abort(0);
    expect(after).toBe(true);
    await expect(reported).resolves.toMatchObject({ message: "listener broke" });
  });
});
