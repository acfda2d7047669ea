import { describe, expect, it } from "vitest";
import { McpkitError } from "../jsonrpc/errors.js";
import { CallbackRunner } from "./callbacks.js";
import { Deadline } from "./deadline.js";

const never = () => new Promise<never>(() => {});

describe("CallbackRunner", () => {
  it("returns what the callback returns, sync or async, and frees its slot", async () => {
    const runner = new CallbackRunner(1, 1_000);
    await expect(runner.run("sync", () => 1)).resolves.toBe(1);
    await expect(runner.run("async", async () => 2)).resolves.toBe(2);
    expect(runner.active).toBe(0);
  });

  it("hands a throw or a rejection back to the caller", async () => {
    const runner = new CallbackRunner(2, 1_000);
    const boom = new Error("boom");
    await expect(
      runner.run("sync", () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    await expect(runner.run("async", () => Promise.reject(boom))).rejects.toBe(boom);
    expect(runner.active).toBe(0);
  });

  it("refuses a call past the limit at once with CAPACITY", async () => {
    const runner = new CallbackRunner(2, 1_000);
    const first = runner.run("a", never);
    const second = runner.run("b", never);
    await expect(runner.run("c", () => 3)).rejects.toMatchObject({
      code: "CAPACITY",
      details: { option: "maxConcurrentCallbacks", limit: 2, size: 3, callback: "c" },
    });
    expect(runner.active).toBe(2);
    runner.close(new McpkitError("CLOSED", "closed"));
    await expect(first).rejects.toMatchObject({ code: "CLOSED" });
    await expect(second).rejects.toMatchObject({ code: "CLOSED" });
  });

  it("times a hanging callback out, aborting its signal and releasing its slot", async () => {
    const runner = new CallbackRunner(1, 30);
    let signal: AbortSignal | undefined;
    await expect(
      runner.run("onRoots", (s) => {
        signal = s;
        return never();
      }),
    ).rejects.toMatchObject({ code: "TIMEOUT", message: "onRoots timed out after 30 ms" });
    expect(signal?.aborted).toBe(true);
    expect(runner.active).toBe(0);
  });

  it("ends with the parent deadline or the given signal, whichever comes first", async () => {
    const runner = new CallbackRunner(4, 10_000);
    const parent = new Deadline({ timeoutMs: 20, what: "tools/call" });
    await expect(runner.run("r", never, { parent })).rejects.toMatchObject({
      code: "TIMEOUT",
      message: "tools/call timed out after 20 ms",
    });
    const controller = new AbortController();
    const cancelled = runner.run("r", never, { signal: controller.signal });
    const reason = new McpkitError("ABORTED", "the server cancelled its request");
    controller.abort(reason);
    await expect(cancelled).rejects.toBe(reason);
  });

  it("refuses every call once closed", async () => {
    const runner = new CallbackRunner(4, 1_000);
    runner.close(new McpkitError("CLOSED", "the client was closed"));
    await expect(runner.run("r", () => 1)).rejects.toMatchObject({ code: "CLOSED" });
  });
});
