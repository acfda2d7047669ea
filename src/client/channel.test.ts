import { describe, expect, it } from "vitest";
import { McpkitError } from "../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../jsonrpc/message.js";
import type { Transport, TransportHandlers } from "../transports/transport.js";
import { RpcChannel } from "./channel.js";
import { Deadline } from "./deadline.js";

const quiet = { warn: () => {} };

/** A transport whose `send` does what `onSend` says; `answer` delivers a message as received. */
function transportWith(onSend: (message: JsonRpcMessage) => Promise<void> | undefined) {
  let handlers: TransportHandlers | undefined;
  const transport = {
    start: async (h: TransportHandlers) => {
      handlers = h;
    },
    send: (message: JsonRpcMessage) => onSend(message),
    close: async () => {},
  } as unknown as Transport;
  return { transport, answer: (message: JsonRpcMessage) => handlers?.message(message) };
}

async function channelOver(onSend: (message: JsonRpcMessage) => Promise<void> | undefined) {
  const { transport, answer } = transportWith(onSend);
  const channel = new RpcChannel(transport, 10, quiet, {
    notification: () => {},
    request: () => ({ error: { code: -32601, message: "no" } }),
    closed: () => {},
  });
  await channel.start();
  return { channel, answer };
}

function request(channel: RpcChannel, deadline = new Deadline({ timeoutMs: 5_000, what: "test/echo" })) {
  return channel
    .request("test/echo", {}, { deadline, cancelOnAbort: false })
    .finally(() => deadline.dispose());
}

describe("RpcChannel.request and the transport's send", () => {
  it("resolves with the answer when send returns nothing (a plain JavaScript transport)", async () => {
    const sent: JsonRpcMessage[] = [];
    const { channel, answer } = await channelOver((message) => {
      sent.push(message);
      return undefined;
    });
    const pending = request(channel);
    const id = (sent[0] as { id: number }).id;
    answer({ jsonrpc: "2.0", id, result: { ok: true } });
    await expect(pending).resolves.toEqual({ ok: true });
  });

  it("rejects with TRANSPORT, naming the cause, when send throws", async () => {
    const cause = new Error("boom");
    const { channel } = await channelOver(() => {
      throw cause;
    });
    await expect(request(channel)).rejects.toMatchObject({ code: "TRANSPORT", cause });
  });

  it("rejects with the transport's own McpkitError when send rejects", async () => {
    const error = new McpkitError("CLOSED", "gone");
    const { channel } = await channelOver(() => Promise.reject(error));
    await expect(request(channel)).rejects.toBe(error);
  });

  it("stops listening to the deadline once the answer is in", async () => {
    const sent: JsonRpcMessage[] = [];
    const { channel, answer } = await channelOver((message) => {
      sent.push(message);
      return Promise.resolve();
    });
    const deadline = new Deadline({ timeoutMs: 5_000, what: "test/echo" });
    const pending = channel.request("test/echo", {}, { deadline, cancelOnAbort: true });
    answer({ jsonrpc: "2.0", id: (sent[0] as { id: number }).id, result: {} });
    await pending;
    deadline.end(new McpkitError("ABORTED", "late"));
    deadline.dispose();
    // A listener left behind would have sent notifications/cancelled for the finished request.
    expect(sent).toHaveLength(1);
  });

  it("rejects at once, sending nothing, when the deadline has already ended", async () => {
    const sent: JsonRpcMessage[] = [];
    const { channel } = await channelOver((message) => {
      sent.push(message);
      return undefined;
    });
    const deadline = new Deadline({ timeoutMs: 5_000, what: "test/echo" });
    const reason = new McpkitError("ABORTED", "stop");
    deadline.end(reason);
    await expect(request(channel, deadline)).rejects.toBe(reason);
    expect(sent).toHaveLength(0);
  });
});
