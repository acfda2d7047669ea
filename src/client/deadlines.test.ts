import { describe, expect, it } from "vitest";
import { connectFake, fakePair, ok, TEST_CLIENT_INFO } from "../../test/support/fake-server.js";
import { useWireValidation } from "../../test/support/validating-transport.js";
import { McpkitError } from "../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../jsonrpc/message.js";
import type { Transport, TransportHandlers } from "../transports/transport.js";
import { Client } from "./client.js";

useWireValidation();

const tick = (ms = 5) => new Promise<void>((resolve) => setTimeout(() => resolve(), ms));

describe.each(["modern", "legacy"] as const)("one deadline per operation (%s)", (era) => {
  it("rejects TIMEOUT, sends notifications/cancelled and drops the late answer", async () => {
    const warnings: string[] = [];
    const { server, client } = await connectFake({
      era,
      client: { requestTimeoutMs: 30, logger: { warn: (message) => warnings.push(message) } },
      setup: (s) => s.on("tools/call", () => undefined),
    });
    const error = await client.callTool("slow").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpkitError);
    expect(error).toMatchObject({ code: "TIMEOUT", details: { timeoutMs: 30 } });
    const request = server.requests("tools/call")[0];
    if (!request) throw new Error("no request");
    await tick();
    const [cancelled] = server.notifications("notifications/cancelled");
    const envelope = {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": TEST_CLIENT_INFO,
      },
    };
    expect(cancelled?.params).toEqual({
      requestId: request.id,
      reason: "tools/call timed out after 30 ms",
      ...(era === "modern" ? envelope : {}),
    });

    await server.respond(request.id, ok({ content: [] }));
    await tick();
    expect(warnings).toEqual(["dropped a response for an unknown request id"]);
    await expect(client.listTools()).resolves.toHaveProperty("tools");
  });

  it("uses the per-call timeoutMs over the client default", async () => {
    const { client } = await connectFake({ era, setup: (s) => s.on("tools/list", () => undefined) });
    await expect(client.listTools({}, { timeoutMs: 20 })).rejects.toMatchObject({
      code: "TIMEOUT",
      details: { timeoutMs: 20 },
    });
  });

  it("rejects ABORTED when the caller's signal aborts, and sends notifications/cancelled", async () => {
    const { server, client } = await connectFake({ era, setup: (s) => s.on("tools/call", () => undefined) });
    const controller = new AbortController();
    const calling = client.callTool("slow", {}, { signal: controller.signal });
    const request = await server.waitForRequest("tools/call");
    controller.abort("user pressed stop");
    const error = await calling.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "ABORTED" });
    expect((error as Error).cause).toBe("user pressed stop");
    await tick();
    expect(server.notifications("notifications/cancelled")[0]?.params).toMatchObject({
      requestId: request.id,
      reason: "tools/call was aborted",
    });
  });

  it("sends nothing for an already aborted signal", async () => {
    const { server, client } = await connectFake({ era });
    const before = server.received.length;
    await expect(client.listTools({}, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: "ABORTED",
    });
    expect(server.received).toHaveLength(before);
  });

  it("rejects a bad per-call timeoutMs with INVALID_CONFIG", async () => {
    const { client } = await connectFake({ era });
    await expect(client.listTools({}, { timeoutMs: 0 })).rejects.toMatchObject({
      code: "INVALID_CONFIG",
      details: { key: "timeoutMs" },
    });
  });

  it("fails the 1,025th pending request at once with CAPACITY, and close() fails the rest with CLOSED", async () => {
    const { server, client } = await connectFake({ era, setup: (s) => s.on("tools/call", () => undefined) });
    const calls = Array.from({ length: 1024 }, (_, i) => client.callTool(`t${i}`).catch((e: unknown) => e));
    await expect(client.callTool("one too many")).rejects.toMatchObject({
      code: "CAPACITY",
      details: { option: "maxPendingRequests", limit: 1024, size: 1025 },
    });
    await tick();
    expect(server.requests("tools/call")).toHaveLength(1024);
    await client.close();
    const errors = await Promise.all(calls);
    expect(errors.every((e) => e instanceof McpkitError && e.code === "CLOSED")).toBe(true);
    expect(server.closed).toBe(true);
  });

  it("honours a smaller maxPendingRequests", async () => {
    const { client } = await connectFake({
      era,
      client: { maxPendingRequests: 2 },
      setup: (s) => s.on("tools/list", () => undefined),
    });
    const pending = [client.listTools().catch(() => {}), client.listTools().catch(() => {})];
    await expect(client.listTools()).rejects.toMatchObject({ code: "CAPACITY" });
    await client.close();
    await Promise.all(pending);
  });
});

describe("cancellation by transport kind", () => {
  it("sends no notifications/cancelled in 2026 on a transport that cancels by closing the stream", async () => {
    const pair = await fakePair();
    pair.server.modern().on("tools/list", () => undefined);
    const streamed = Object.assign(wrap(pair.clientTransport), { cancelsByStream: true });
    const client = new Client({ transport: streamed, clientInfo: TEST_CLIENT_INFO, requestTimeoutMs: 20 });
    await client.connect();
    await expect(client.listTools()).rejects.toMatchObject({ code: "TIMEOUT" });
    await tick();
    expect(pair.server.notifications("notifications/cancelled")).toEqual([]);
  });
});

describe("close", () => {
  it("is idempotent", async () => {
    const { server, client } = await connectFake();
    await Promise.all([client.close(), client.close()]);
    await client.close();
    expect(server.closed).toBe(true);
  });

  it("fails pending operations with CLOSED, citing the transport's error, when the transport dies", async () => {
    const pair = await fakePair();
    pair.server.modern().on("tools/call", () => undefined);
    let handlers: TransportHandlers | undefined;
    const transport: Transport = {
      start: (h) => {
        handlers = h;
        return pair.clientTransport.start(h);
      },
      send: (m: JsonRpcMessage) => pair.clientTransport.send(m),
      close: () => pair.clientTransport.close(),
    };
    const client = new Client({ transport, clientInfo: TEST_CLIENT_INFO });
    await client.connect();
    const calling = client.callTool("slow").catch((e: unknown) => e);
    await pair.server.waitForRequest("tools/call");
    const cause = new Error("stdout closed");
    handlers?.close({ kind: "error", error: cause });
    const error = await calling;
    expect(error).toMatchObject({ code: "CLOSED", details: { kind: "error" } });
    expect((error as Error).cause).toBe(cause);
    await expect(client.listTools()).rejects.toMatchObject({ code: "CLOSED" });
    await client.close();
  });

  it("fails pending operations with CLOSED when the server closes the connection", async () => {
    const { server, client } = await connectFake({ setup: (s) => s.on("tools/call", () => undefined) });
    const calling = client.callTool("slow");
    await server.waitForRequest("tools/call");
    await server.close();
    await expect(calling).rejects.toMatchObject({ code: "CLOSED", details: { kind: "remote" } });
  });

  it("rejects with TRANSPORT when the transport's cleanup fails", async () => {
    const pair = await fakePair();
    pair.server.modern();
    const broken: Transport = {
      ...wrap(pair.clientTransport),
      close: () => Promise.reject(new Error("kill failed")),
    };
    const client = new Client({ transport: broken, clientInfo: TEST_CLIENT_INFO });
    await client.connect();
    const first = client.close();
    await expect(first).rejects.toMatchObject({ code: "TRANSPORT" });
    expect(client.close()).toBe(first);
    await first.catch(() => {});
  });
});

function wrap(inner: Transport): Transport {
  return {
    start: (handlers) => inner.start(handlers),
    send: (message) => inner.send(message),
    close: () => inner.close(),
  };
}
