import { describe, expect, it } from "vitest";
import { Deadline } from "./deadline.js";

describe("Deadline", () => {
  it("aborts with TIMEOUT when its own timer fires", async () => {
    const deadline = new Deadline({ timeoutMs: 10, what: "op" });
    await new Promise<void>((resolve) =>
      deadline.signal.addEventListener("abort", () => resolve(), { once: true }),
    );
    expect(deadline.timedOut).toBe(true);
    expect(deadline.signal.reason).toMatchObject({ code: "TIMEOUT", message: "op timed out after 10 ms" });
  });

  it("aborts with ABORTED, citing the caller's reason, when the caller's signal aborts", () => {
    const controller = new AbortController();
    const deadline = new Deadline({ timeoutMs: 10_000, signal: controller.signal, what: "op" });
    controller.abort("stop");
    expect(deadline.signal.reason).toMatchObject({ code: "ABORTED", cause: "stop" });
    expect(deadline.timedOut).toBe(false);
  });

  it("takes its parent's reason and never outlives it", async () => {
    const parent = new Deadline({ timeoutMs: 10, what: "connect" });
    const child = new Deadline({ timeoutMs: 10_000, parent, what: "probe" });
    expect(child.expiresAt).toBe(parent.expiresAt);
    await new Promise<void>((resolve) =>
      child.signal.addEventListener("abort", () => resolve(), { once: true }),
    );
    expect(child.signal.reason).toBe(parent.signal.reason);
    expect(child.timedOut).toBe(false);
  });

  it("never fires for Infinity, and dispose() stops the timer", async () => {
    const forever = new Deadline({ timeoutMs: Number.POSITIVE_INFINITY, what: "op" });
    const disposed = new Deadline({ timeoutMs: 5, what: "op" });
    disposed.dispose();
    await new Promise<void>((resolve) => setTimeout(() => resolve(), 15));
    expect(forever.signal.aborted).toBe(false);
    expect(disposed.signal.aborted).toBe(false);
  });

  it("race() rejects with the reason when the deadline ends first", async () => {
    const deadline = new Deadline({ timeoutMs: 5, what: "start" });
    await expect(deadline.race(new Promise(() => {}))).rejects.toMatchObject({ code: "TIMEOUT" });
    await expect(deadline.race(Promise.resolve(1))).rejects.toMatchObject({ code: "TIMEOUT" });
    const open = new Deadline({ timeoutMs: 1_000, what: "start" });
    await expect(open.race(Promise.resolve(1))).resolves.toBe(1);
    open.dispose();
  });

  it("deadlines of one length share a timer yet each fires on its own, in order", async () => {
    const fired: string[] = [];
    const make = (name: string) => {
      const deadline = new Deadline({ timeoutMs: 20, what: name });
      deadline.addEventListener("abort", () => fired.push(name));
      return deadline;
    };
    make("first");
    const second = make("second");
    second.dispose();
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
    const third = make("third");
    await new Promise<void>((resolve) => third.addEventListener("abort", () => resolve()));
    expect(fired).toEqual(["first", "third"]);
    expect(third.reason).toMatchObject({ code: "TIMEOUT", message: "third timed out after 20 ms" });
    expect(second.aborted).toBe(false);
  });

  it("lengths beyond the shared timers get timers of their own", async () => {
    const many = Array.from({ length: 40 }, (_, i) => new Deadline({ timeoutMs: 30 + i, what: `op${i}` }));
    await new Promise<void>((resolve) => many.at(-1)?.addEventListener("abort", () => resolve()));
    expect(many.every((deadline) => deadline.timedOut)).toBe(true);
  });

  it("ends the parent's children with the parent's reason, without making any signal", () => {
    const parent = new Deadline({ timeoutMs: 10_000, what: "outer" });
    const child = new Deadline({ timeoutMs: 10_000, parent, what: "inner" });
    parent.end(new Error("stop"));
    expect(child.aborted).toBe(true);
    expect(child.reason).toBe(parent.reason);
    child.dispose();
  });
});
