// Deadlines and slots where a timer may never fire: on Cloudflare Workers a timer armed by a request that has
// ended is dropped (issue 18). Simulated with fake timers whose callbacks are lost while a "request" arms them.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { LazyAbort } from "../../jsonrpc/lazy-abort.js";
import { TimerQueue } from "../../jsonrpc/timer-queue.js";
import { CallbackExecutor, HANDLER_TIMEOUT_MESSAGE } from "./executor.js";

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const fake = () => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });

/** Runs `arm` with every timer it sets lost: the request that armed them ended before they were due. */
function losingTimers<T>(arm: () => T): T {
  const lost = vi.spyOn(globalThis, "setTimeout").mockImplementation((() => ({})) as never);
  try {
    return arm();
  } finally {
    lost.mockRestore();
  }
}

const hang = (abort: LazyAbort) =>
  new Promise<never>((_resolve, reject) => abort.addEventListener("abort", () => reject(abort.reason)));

describe("CallbackExecutor where timers die with their request", () => {
  it("expires a call past its deadline when the next call arrives, and gives its slot to that call", async () => {
    fake();
    const executor = new CallbackExecutor({ timeoutMs: 1_000, maxConcurrent: 1, maxQueued: 0 });
    const abandoned = losingTimers(() => executor.run(hang));
    const outcome = abandoned.catch((error: unknown) => error);
    vi.advanceTimersByTime(5_000);
    expect(executor.running).toBe(1);
    await expect(executor.run(() => "served")).resolves.toBe("served");
    expect(await outcome).toMatchObject({ message: HANDLER_TIMEOUT_MESSAGE });
    expect(executor.running).toBe(0);
  });

  it("arms a timer for a live call when the shared one was armed by an ended request (request-scoped)", async () => {
    fake();
    const executor = new CallbackExecutor({ timeoutMs: 1_000, maxConcurrent: 4 });
    (executor as unknown as { timers: TimerQueue }).timers = new TimerQueue(1_000, true);
    const early = losingTimers(() => executor.run(hang)).catch((error: unknown) => error);
    vi.advanceTimersByTime(500);
    const live = executor.run(hang).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await live).toMatchObject({ message: HANDLER_TIMEOUT_MESSAGE });
    expect(await early).toMatchObject({ message: HANDLER_TIMEOUT_MESSAGE });
    expect(executor.running).toBe(0);
  });

  it("re-arms a timer that is past its time when an entry is added (the default queue)", () => {
    fake();
    const queue = new TimerQueue(1_000);
    const fired: string[] = [];
    losingTimers(() => queue.add(() => fired.push("first")));
    vi.advanceTimersByTime(1_500);
    queue.add(() => fired.push("second"));
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(["first"]);
    vi.advanceTimersByTime(1_000);
    expect(fired).toEqual(["first", "second"]);
  });
});
