import { describe, expect, it, vi } from "vitest";
import type { JsonRpcNotification, JsonRpcRequest } from "../../jsonrpc/message.js";
import { limitNotifications } from "./notification-caps.js";

const REQUEST: JsonRpcRequest = { jsonrpc: "2.0", id: 9, method: "tools/call", params: {} };

function progress(n: number, message = ""): JsonRpcNotification {
  return {
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: "t", progress: n, message },
  };
}

function capped(maxNotificationsPerRequest: number, maxNotificationBytes: number) {
  const sent: JsonRpcNotification[] = [];
  const warn = vi.fn();
  const sink = limitNotifications(
    async (notification) => {
      sent.push(notification);
    },
    { maxNotificationsPerRequest, maxNotificationBytes },
    { warn, error: () => {} },
    REQUEST,
  );
  return { sink, sent, warn };
}

describe("limitNotifications", () => {
  it("passes the first maxNotificationsPerRequest, drops the rest, and warns once", async () => {
    const { sink, sent, warn } = capped(3, 1_000_000);
    for (let i = 1; i <= 10; i++) await sink(progress(i));
    expect(sent.map((n) => n.params?.progress)).toEqual([1, 2, 3]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(
      "dropped the notifications of a request past maxNotificationsPerRequest",
      {
        id: 9,
        method: "tools/call",
        limit: 3,
        sent: 3,
        sentBytes: 3 * JSON.stringify(progress(1)).length,
      },
    );
  });

  it("counts encoded UTF-8 bytes: exactly maxNotificationBytes passes, one byte more is dropped, and all after", async () => {
    const size = Buffer.byteLength(JSON.stringify(progress(1, "é")));
    const { sink, sent, warn } = capped(100, 2 * size);
    await sink(progress(1, "é"));
    await sink(progress(2, "é"));
    expect(sent).toHaveLength(2);
    // One byte over: dropped, and so is a tiny one after it.
    await sink(progress(3, ""));
    await sink(progress(4));
    expect(sent).toHaveLength(2);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toBe("dropped the notifications of a request past maxNotificationBytes");
    expect(warn.mock.calls[0]?.[1]).toMatchObject({ limit: 2 * size, sent: 2, sentBytes: 2 * size });
  });

  it("drops a single notification larger than maxNotificationBytes", async () => {
    const { sink, sent, warn } = capped(100, 50);
    await sink(progress(1, "x".repeat(100)));
    expect(sent).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("hands a notification JSON cannot encode to the sink uncounted (the transport reports it)", async () => {
    const { sink, sent } = capped(1, 1_000_000);
    const cyclic: { [key: string]: unknown } = {};
    cyclic.self = cyclic;
    await sink({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: cyclic } });
    await sink(progress(1));
    expect(sent).toHaveLength(2);
  });
});
