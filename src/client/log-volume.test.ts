/**
 * What a misbehaving server can make the client log: each kind of line once per interval (`logIntervalMs`,
 * 60 s by default), then one line with the count.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { connectFake } from "../../test/support/fake-server.js";

afterEach(() => {
  vi.useRealTimers();
});

/** Lets in-process deliveries (one microtask each) run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => queueMicrotask(resolve));
}

describe("client log volume", () => {
  it("logs one line per kind for 10,000 unsolicited responses, malformed progress and bad messages each", async () => {
    const lines: string[] = [];
    const { server } = await connectFake({
      validate: false,
      client: { logger: { warn: (message) => lines.push(message) } },
    });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    for (let i = 0; i < 10_000; i++) {
      void server.send({ jsonrpc: "2.0", id: 1_000_000 + i, result: {} });
      void server.notify("notifications/progress", { progressToken: 1, progress: "half" });
      void server.send({ jsonrpc: "2.0", id: i, bogus: true } as never);
    }
    await flush();
    expect(lines).toEqual([
      "dropped a response for an unknown request id",
      "dropped a malformed notifications/progress",
      "dropped a message that is not valid JSON-RPC",
    ]);
    vi.advanceTimersByTime(60_000);
    expect(lines.slice(3)).toEqual([
      "dropped a response for an unknown request id: 9999 more in the last 60 s",
      "dropped a malformed notifications/progress: 9999 more in the last 60 s",
      "dropped a message that is not valid JSON-RPC: 9999 more in the last 60 s",
    ]);
  });

  it("takes logIntervalMs from the client's options: 0 logs every line, a bad value is refused", async () => {
    const lines: string[] = [];
    const { server } = await connectFake({
      validate: false,
      client: { logger: { warn: (message) => lines.push(message) }, logIntervalMs: 0 },
    });
    for (let i = 0; i < 10; i++) void server.notify("notifications/progress", { progress: 1 });
    await flush();
    expect(lines).toHaveLength(10);
    await expect(connectFake({ client: { logIntervalMs: -5 } })).rejects.toMatchObject({
      code: "INVALID_CONFIG",
      message: "logIntervalMs must be a non-negative integer",
    });
  });
});
