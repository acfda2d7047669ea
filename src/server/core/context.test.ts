import { describe, expect, it } from "vitest";
import { LazyAbort } from "../../jsonrpc/lazy-abort.js";
import type { JsonRpcNotification } from "../../jsonrpc/message.js";
import { requestContext } from "./context.js";

function contextWith(abort: LazyAbort, token: unknown = "t1") {
  const sent: JsonRpcNotification[] = [];
  const context = requestContext(
    {
      era: "2026-07-28",
      request: { jsonrpc: "2.0", id: 3, method: "tools/call", params: {} },
      identity: "alice",
      meta: { k: 1 },
      clientCapabilities: {},
      clientInfo: { name: "c", version: "1" },
      input: { inputResponses: undefined, requestState: undefined },
    },
    abort,
    token,
    (level) => level !== "debug",
    async (notification) => {
      sent.push(notification);
    },
  );
  return { context, sent };
}

describe("requestContext", () => {
  it("has every member as an own property, so spreading and destructuring keep working", async () => {
    const abort = new LazyAbort();
    const { context, sent } = contextWith(abort);
    expect(Object.keys(context)).toEqual([
      "era",
      "method",
      "requestId",
      "identity",
      "meta",
      "clientCapabilities",
      "clientInfo",
      "inputResponses",
      "requestState",
      "taskAugmented",
      "pluginData",
      "progress",
      "log",
      "notify",
      "sendRequest",
      "signal",
    ]);
    const { progress, log, signal } = context;
    expect(signal).toBeInstanceOf(AbortSignal);
    expect({ ...context }.signal).toBe(signal);
    await progress(1, 2);
    await log("info", "hello");
    await log("debug", "dropped");
    expect(sent.map((n) => n.params)).toEqual([
      { progressToken: "t1", progress: 1, total: 2 },
      { level: "info", data: "hello" },
    ]);
  });

  it("makes no AbortSignal until the handler reads it, and then one that follows the abort", () => {
    const abort = new LazyAbort();
    const { context } = contextWith(abort);
    expect(Object.getOwnPropertyDescriptor(context, "signal")?.get).toBeTypeOf("function");
    abort.abort(new Error("cancelled"));
    expect(context.signal.aborted).toBe(true);
    expect(context.signal.reason).toBe(abort.reason);
  });

  it("sends nothing once aborted, and no progress without a token", async () => {
    const live = contextWith(new LazyAbort(), null);
    await live.context.progress(1);
    expect(live.sent).toEqual([]);
    const abort = new LazyAbort();
    const ended = contextWith(abort);
    abort.abort("gone");
    await ended.context.progress(1);
    await ended.context.log("error", "late");
    expect(ended.sent).toEqual([]);
  });

  it("notify sends a custom notification, refuses core names, and sends nothing once aborted", async () => {
    const abort = new LazyAbort();
    const { context, sent } = contextWith(abort);
    await context.notify("acme/event", { n: 1 });
    await context.notify("acme/bare");
    await expect(context.notify("notifications/progress", {})).rejects.toMatchObject({ code: "UNSUPPORTED" });
    await expect(context.notify("")).rejects.toMatchObject({ code: "UNSUPPORTED" });
    abort.abort("gone");
    await context.notify("acme/late");
    expect(sent).toEqual([
      { jsonrpc: "2.0", method: "acme/event", params: { n: 1 } },
      { jsonrpc: "2.0", method: "acme/bare" },
    ]);
  });

  it("sendRequest is UNSUPPORTED without a session's requests (2026), and refuses core names", async () => {
    const { context } = contextWith(new LazyAbort());
    await expect(context.sendRequest("acme/ask")).rejects.toMatchObject({ code: "UNSUPPORTED" });
    await expect(context.sendRequest("roots/list")).rejects.toMatchObject({
      code: "UNSUPPORTED",
      details: { reason: "reserved_method" },
    });
  });
});
