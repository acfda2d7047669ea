import { afterEach, describe, expect, it, vi } from "vitest";
import { fixtureServer } from "../../../test/support/fixture-server.js";
import { connectRaw, errorOf, resultOf } from "../../../test/support/raw-peer.js";
import { until } from "../../../test/support/until.js";
import { useWireValidation } from "../../../test/support/validating-transport.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import type { Server } from "../server.js";
import {
  CallbackExecutor,
  HANDLER_CAPACITY_MESSAGE,
  HANDLER_RETRY_AFTER_MS,
  HANDLER_TIMEOUT_MESSAGE,
} from "./executor.js";

useWireValidation();

describe("CallbackExecutor", () => {
  it("fires the signal before releasing the slot on a timeout", async () => {
    const executor = new CallbackExecutor({ timeoutMs: 20, maxConcurrent: 1 });
    let runningWhenAborted = -1;
    const call = executor.run(
      (signal) =>
        new Promise<never>(() => {
          signal.addEventListener("abort", () => {
            runningWhenAborted = executor.running;
          });
        }),
    );
    await expect(call).rejects.toMatchObject({ code: -32603, message: HANDLER_TIMEOUT_MESSAGE });
    expect(runningWhenAborted).toBe(1);
    expect(executor.running).toBe(0);
    await expect(executor.run(() => "next")).resolves.toBe("next");
  });

  it("releases the slot of a timed-out call even when firing its signal throws (Workers, another request)", async () => {
    // Workers throw "Cannot perform I/O on behalf of a different request" when a later request fires the
    // AbortSignal an abandoned call's handler made; the slot must come back all the same.
    const executor = new CallbackExecutor({ timeoutMs: 20, maxConcurrent: 1 });
    const refused = new Error("Cannot perform I/O on behalf of a different request");
    const abort = vi.spyOn(AbortController.prototype, "abort").mockImplementation(() => {
      throw refused;
    });
    const reported: unknown[] = [];
    const original = globalThis.queueMicrotask;
    const queueMicrotask = vi.spyOn(globalThis, "queueMicrotask").mockImplementation((callback) =>
      original(() => {
        try {
          callback();
        } catch (error) {
          reported.push(error);
        }
      }),
    );
    let outcome: string;
    try {
      const call = executor.run((lazy) => {
        lazy.signal; // the handler made its AbortSignal
        return new Promise<never>(() => {});
      });
      // A hang guard only: the deadline is 20 ms.
      const guard = new Promise<string>((resolve) => setTimeout(() => resolve("never settled"), 2_000));
      outcome = await Promise.race([call.then(String, (error: Error) => error.message), guard]);
      await Promise.resolve();
    } finally {
      abort.mockRestore();
      queueMicrotask.mockRestore();
    }
    expect(outcome).toBe(HANDLER_TIMEOUT_MESSAGE);
    expect(executor.running).toBe(0);
    expect(reported).toEqual([refused]);
    await expect(executor.run(() => "next")).resolves.toBe("next");
  });

  it("queues a call beyond the admission limit and runs it once a slot frees", async () => {
    const executor = new CallbackExecutor({ timeoutMs: 10_000, maxConcurrent: 2 });
    const releases: (() => void)[] = [];
    const held = [0, 1].map(() =>
      executor.run(() => new Promise<string>((r) => releases.push(() => r("done")))),
    );
    let ran = false;
    const waiting = executor.run(() => {
      ran = true;
      return "admitted";
    });
    expect(executor.queued).toBe(1);
    expect(ran).toBe(false);
    releases[0]?.();
    await expect(waiting).resolves.toBe("admitted");
    expect(executor.queued).toBe(0);
    releases[1]?.();
    await Promise.all(held);
    expect(executor.running).toBe(0);
  });

  it("refuses the call that crosses the queue bound, with a retry hint", async () => {
    const executor = new CallbackExecutor({ timeoutMs: 10_000, maxConcurrent: 1, maxQueued: 2 });
    let release = () => {};
    const held = executor.run(() => new Promise<string>((r) => (release = () => r("held"))));
    const queued = [executor.run(() => "q1"), executor.run(() => "q2")];
    expect(executor.queued).toBe(2);
    const refused = executor.run(() => "never");
    await expect(refused).rejects.toBeInstanceOf(JsonRpcError);
    await expect(refused).rejects.toMatchObject({
      code: -32603,
      message: expect.stringMatching(new RegExp(`^${HANDLER_CAPACITY_MESSAGE}: `)),
      data: { retryAfterMs: HANDLER_RETRY_AFTER_MS },
    });
    release();
    await expect(Promise.all([held, ...queued])).resolves.toEqual(["held", "q1", "q2"]);
    expect(executor.running).toBe(0);
  });

  it("refuses at once when maxQueued is 0", async () => {
    const executor = new CallbackExecutor({ timeoutMs: 10_000, maxConcurrent: 1, maxQueued: 0 });
    let release = () => {};
    const held = executor.run(() => new Promise<string>((r) => (release = () => r("held"))));
    await expect(executor.run(() => "never")).rejects.toMatchObject({
      message: `${HANDLER_CAPACITY_MESSAGE}: 1 queued calls, over maxQueuedHandlers (0)`,
    });
    release();
    await held;
  });

  it("runs a burst of instant calls far beyond the slot count without refusing any", async () => {
    const executor = new CallbackExecutor({ timeoutMs: 10_000, maxConcurrent: 4 });
    const results = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => executor.run(() => i)));
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    expect(executor.running).toBe(0);
  });

  it("lets a queued call whose caller cancels leave the queue without taking a slot", async () => {
    const executor = new CallbackExecutor({ timeoutMs: 10_000, maxConcurrent: 1 });
    let release = () => {};
    const held = executor.run(() => new Promise<string>((r) => (release = () => r("held"))));
    const cancel = new AbortController();
    let ran = false;
    const waiting = executor.run(() => {
      ran = true;
    }, cancel.signal);
    const behind = executor.run(() => "behind");
    cancel.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
    expect(executor.queued).toBe(1);
    expect(executor.running).toBe(1);
    release();
    await expect(behind).resolves.toBe("behind");
    await held;
    expect(ran).toBe(false);
    expect(executor.running).toBe(0);
  });

  it("counts time spent queued against the deadline", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const executor = new CallbackExecutor({ timeoutMs: 100, maxConcurrent: 1 });
      const held = executor.run(() => new Promise<never>(() => {}));
      held.catch(() => {});
      await vi.advanceTimersByTimeAsync(50);
      let started = false;
      const waiting = executor.run(() => {
        started = true;
        return new Promise<never>(() => {});
      });
      let outcome: unknown;
      waiting.catch((error: unknown) => (outcome = error));
      await vi.advanceTimersByTimeAsync(60);
      // The held call's deadline passed at 100 ms: the queued call took its slot then.
      expect(started).toBe(true);
      expect(outcome).toBeUndefined();
      await vi.advanceTimersByTimeAsync(41);
      // 100 ms after it arrived (not after it started), the queued call is out of time.
      expect(outcome).toMatchObject({ code: -32603, message: HANDLER_TIMEOUT_MESSAGE });
      expect(executor.running).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("passes a handler's own error through and releases its slot", async () => {
    const executor = new CallbackExecutor({ timeoutMs: 1000, maxConcurrent: 1 });
    await expect(executor.run(() => Promise.reject(new Error("own")))).rejects.toThrow("own");
    await expect(
      executor.run(() => {
        throw new Error("sync");
      }),
    ).rejects.toThrow("sync");
    expect(executor.running).toBe(0);
  });

  it("aborts the callback when the caller's cancel signal fires", async () => {
    const executor = new CallbackExecutor({ timeoutMs: 10_000, maxConcurrent: 1 });
    const cancel = new AbortController();
    let aborted = false;
    const call = executor.run(
      (signal) =>
        new Promise<string>((_resolve, reject) =>
          signal.addEventListener("abort", () => {
            aborted = true;
            reject(signal.reason);
          }),
        ),
      cancel.signal,
    );
    cancel.abort(new Error("stop"));
    await expect(call).rejects.toThrow("stop");
    expect(aborted).toBe(true);
    expect(executor.running).toBe(0);
  });
});

describe("server handler limits, over the wire", () => {
  let server: Server;
  afterEach(async () => {
    await server?.close();
  });

  it.each(["2026-07-28", "2025-11-25"] as const)(
    "times out a hung handler and keeps serving (%s)",
    async (era) => {
      server = fixtureServer({ handlerTimeoutMs: 50 });
      const { peer } = await connectRaw(server);
      const call =
        era === "2026-07-28"
          ? peer.modern("tools/call", { name: "slow" })
          : peer.initialize().then(() => peer.request("tools/call", { name: "slow" }));
      expect(errorOf(await call)).toEqual({ code: -32603, message: HANDLER_TIMEOUT_MESSAGE });
      expect(server.runningHandlers).toBe(0);
      const next = era === "2026-07-28" ? peer.modern("tools/list") : peer.request("tools/list");
      expect(resultOf(await next).tools).toBeInstanceOf(Array);
    },
  );

  it("answers 100 instant calls sent at once on one connection, none refused (default limits)", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        peer.modern("tools/call", { name: "add", arguments: { a: i, b: 1 } }),
      ),
    );
    const texts = answers.map((answer) => (resultOf(answer).content as { text: string }[])[0]?.text);
    expect(texts).toEqual(Array.from({ length: 100 }, (_, i) => String(i + 1)));
  });

  it("queues the 33rd concurrent call across connections and refuses past the queue bound", async () => {
    server = fixtureServer({ maxQueuedHandlers: 1 });
    const first = await connectRaw(server);
    const second = await connectRaw(server);
    await second.peer.initialize();
    for (let i = 0; i < 16; i++) void first.peer.modern("tools/call", { name: "slow" });
    for (let i = 0; i < 16; i++) void second.peer.request("tools/call", { name: "slow" });
    await until(() => server.runningHandlers === 32);
    const queued = second.peer.request("tools/list");
    await until(() => server.queuedHandlers === 1);
    expect(
      errorOf(await first.peer.modern("tools/call", { name: "add", arguments: { a: 1, b: 1 } })),
    ).toEqual({
      code: -32603,
      message: `${HANDLER_CAPACITY_MESSAGE}: 2 queued calls, over maxQueuedHandlers (1)`,
      data: { option: "maxQueuedHandlers", limit: 1, size: 2, retryAfterMs: HANDLER_RETRY_AFTER_MS },
    });
    // Cheap protocol methods do not need a handler slot.
    expect(resultOf(await second.peer.request("ping"))).toEqual({});
    await first.peer.close();
    expect(resultOf(await queued).tools).toBeInstanceOf(Array);
    await until(() => server.runningHandlers === 16);
    expect(server.queuedHandlers).toBe(0);
  });
});
