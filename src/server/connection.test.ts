import { afterEach, describe, expect, it, vi } from "vitest";
import type { JsonRpcMessage } from "../jsonrpc/message.js";
import type { Transport, TransportHandlers } from "../transports/transport.js";
import { ServerBuilder } from "./authoring/builder.js";

const PING: JsonRpcMessage = { jsonrpc: "2.0", id: 1, method: "ping" };

async function connectWith(
  send: (message: JsonRpcMessage) => Promise<void>,
  options: { logIntervalMs?: number } = {},
) {
  let handlers: TransportHandlers | undefined;
  const transport = {
    start: async (h: TransportHandlers) => {
      handlers = h;
    },
    send,
    close: async () => {},
  } as unknown as Transport;
  const warn = vi.fn();
  const server = new ServerBuilder({
    serverInfo: { name: "t", version: "1.0.0" },
    logger: { warn, error: () => {} },
    ...options,
  }).build();
  await server.connect(transport);
  return { deliver: (message: JsonRpcMessage) => handlers?.message(message), warn };
}

describe("ServerConnection: a response the transport cannot send", () => {
  it("is logged, not thrown, when send throws", async () => {
    const { deliver, warn } = await connectWith(() => {
      throw new Error("broken pipe");
    });
    deliver(PING);
    await vi.waitFor(() => expect(warn).toHaveBeenCalledWith("could not send a message", expect.any(Error)));
  });

  it("is logged, not thrown, when send rejects", async () => {
    const { deliver, warn } = await connectWith(() => Promise.reject(new Error("closed")));
    deliver(PING);
    await vi.waitFor(() => expect(warn).toHaveBeenCalledWith("could not send a message", expect.any(Error)));
  });

  it("answers requests once its era is pinned", async () => {
    const sent: JsonRpcMessage[] = [];
    const { deliver } = await connectWith(async (message) => {
      sent.push(message);
    });
    deliver({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    });
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    deliver({ jsonrpc: "2.0", method: "notifications/initialized" });
    deliver(PING);
    await vi.waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1]).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
  });
});

describe("ServerConnection: log lines a peer can trigger are rate-limited", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const response = (id: number): JsonRpcMessage => ({ jsonrpc: "2.0", id, result: {} });

  it("logs one of 10,000 unsolicited responses, then one line with the count when the interval ends", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { deliver, warn } = await connectWith(async () => {});
    for (let id = 1; id <= 10_000; id++) deliver(response(id));
    expect(warn.mock.calls).toEqual([["dropped a response to no request", { id: 1 }]]);
    vi.advanceTimersByTime(60_000);
    expect(warn.mock.calls.slice(1)).toEqual([
      ["dropped a response to no request: 9999 more in the last 60 s", { count: 9_999, intervalMs: 60_000 }],
    ]);
    // A steady stream costs two lines per interval.
    for (let id = 1; id <= 1_000; id++) deliver(response(id));
    vi.advanceTimersByTime(60_000);
    expect(warn).toHaveBeenCalledTimes(4);
  });

  it("logs every line with logIntervalMs: 0, and refuses a negative or fractional interval", async () => {
    const { deliver, warn } = await connectWith(async () => {}, { logIntervalMs: 0 });
    for (let id = 1; id <= 5; id++) deliver(response(id));
    expect(warn).toHaveBeenCalledTimes(5);
    for (const logIntervalMs of [-1, 1.5]) {
      expect(() =>
        new ServerBuilder({ serverInfo: { name: "t", version: "1.0.0" }, logIntervalMs }).build(),
      ).toThrow("server option logIntervalMs must be a non-negative integer");
    }
  });
});

describe("ServerConnection: a request cancelled while it waits for a handler slot", () => {
  it("gets no answer, and is not logged as a handler failure (found by the fuzz suite, fuzz/)", async () => {
    const sent: JsonRpcMessage[] = [];
    const errors: unknown[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let handlers: TransportHandlers | undefined;
    const transport = {
      start: async (h: TransportHandlers) => {
        handlers = h;
      },
      send: async (message: JsonRpcMessage) => {
        sent.push(message);
      },
      close: async () => {},
    } as unknown as Transport;
    const server = new ServerBuilder({
      serverInfo: { name: "t", version: "1.0.0" },
      maxConcurrentHandlers: 1,
      logger: { warn: () => {}, error: (message, details) => errors.push([message, details]) },
    })
      .tool({ name: "hold", inputSchema: { type: "object" } }, async () => {
        await held;
        return { content: [{ type: "text", text: "done" }] };
      })
      .build();
    await server.connect(transport);
    const deliver = (message: JsonRpcMessage) => handlers?.message(message);
    const call = (id: number) => ({
      jsonrpc: "2.0" as const,
      id,
      method: "tools/call",
      params: { name: "hold" },
    });
    deliver({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    });
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    deliver(call(2)); // takes the one slot
    await vi.waitFor(() => expect(server.runningHandlers).toBe(1));
    deliver(call(3)); // waits for it
    await vi.waitFor(() => expect(server.queuedHandlers).toBe(1));
    deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } });
    await vi.waitFor(() => expect(server.queuedHandlers).toBe(0));
    release();
    await vi.waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1]).toMatchObject({ id: 2, result: { content: [{ type: "text", text: "done" }] } });
    expect(errors).toEqual([]);
  });
});
