import { afterEach, describe, expect, it } from "vitest";
import { fixtureServer } from "../../test/support/fixture-server.js";
import { connectRaw, errorOf, resultOf } from "../../test/support/raw-peer.js";
import { until } from "../../test/support/until.js";
import { useWireValidation } from "../../test/support/validating-transport.js";
import { JsonRpcError } from "../jsonrpc/errors.js";
import { CallbackExecutor, HANDLER_CAPACITY_MESSAGE, HANDLER_TIMEOUT_MESSAGE } from "./executor.js";
import type { Server } from "./server.js";

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

  it("refuses a call beyond the admission limit, then admits again once a slot frees", async () => {
    const executor = new CallbackExecutor({ timeoutMs: 10_000, maxConcurrent: 2 });
    const releases: (() => void)[] = [];
    const held = [0, 1].map(() =>
      executor.run(() => new Promise<string>((r) => releases.push(() => r("done")))),
    );
    const refused = executor.run(() => "never");
    await expect(refused).rejects.toBeInstanceOf(JsonRpcError);
    await expect(refused).rejects.toMatchObject({ code: -32603, message: HANDLER_CAPACITY_MESSAGE });
    for (const release of releases) release();
    await Promise.all(held);
    await expect(executor.run(() => "admitted")).resolves.toBe("admitted");
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

  it("refuses the 33rd concurrent call across connections with handler capacity reached", async () => {
    server = fixtureServer();
    const first = await connectRaw(server);
    const second = await connectRaw(server);
    await second.peer.initialize();
    for (let i = 0; i < 16; i++) void first.peer.modern("tools/call", { name: "slow" });
    for (let i = 0; i < 16; i++) void second.peer.request("tools/call", { name: "slow" });
    await until(() => server.runningHandlers === 32);
    expect(
      errorOf(await first.peer.modern("tools/call", { name: "add", arguments: { a: 1, b: 1 } })),
    ).toEqual({
      code: -32603,
      message: HANDLER_CAPACITY_MESSAGE,
    });
    expect(errorOf(await second.peer.request("tools/list"))).toEqual({
      code: -32603,
      message: HANDLER_CAPACITY_MESSAGE,
    });
    // Cheap protocol methods do not need a handler slot.
    expect(resultOf(await second.peer.request("ping"))).toEqual({});
    await first.peer.close();
    await until(() => server.runningHandlers === 16);
    expect(resultOf(await second.peer.request("tools/list")).tools).toBeInstanceOf(Array);
  });
});
