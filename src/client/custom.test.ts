import { describe, expect, it } from "vitest";
import { connectFake } from "../../test/support/fake-server.js";
import { useWireValidation } from "../../test/support/validating-transport.js";
import { JsonRpcError, type McpkitError } from "../jsonrpc/errors.js";
import { createInProcessPair } from "../transports/in-process.js";
import { Client } from "./client.js";
import type { ServerRequestContext } from "./custom.js";
import type { ClientOptions } from "./types.js";

useWireValidation();

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function options(extra: Partial<ClientOptions>): ClientOptions {
  return { transport: createInProcessPair()[0], clientInfo: { name: "c", version: "1" }, ...extra };
}

function configError(extra: Partial<ClientOptions>): McpkitError {
  try {
    new Client(options(extra));
  } catch (error) {
    expect((error as McpkitError).code).toBe("INVALID_CONFIG");
    return error as McpkitError;
  }
  throw new Error("expected INVALID_CONFIG");
}

describe("client options: custom callbacks and extensions", () => {
  it("refuses core names, rpc.* and non-functions in requestHandlers", () => {
    for (const method of ["ping", "sampling/createMessage", "roots/list", "tools/call", "rpc.x", ""]) {
      configError({ requestHandlers: { [method]: () => ({}) } });
    }
    configError({ requestHandlers: { "acme/x": "no" as never } });
    configError({ requestHandlers: [] as never });
  });

  it("refuses core notifications the client consumes itself; lets list changes be observed", () => {
    for (const method of ["notifications/progress", "notifications/message", "notifications/cancelled"]) {
      configError({ notificationHandlers: { [method]: () => {} } });
    }
    const noop = () => {};
    new Client(
      options({ notificationHandlers: { "notifications/tools/list_changed": noop, "acme/x": noop } }),
    );
  });

  it("checks capabilities.extensions keys with the namespace rule", () => {
    const error = configError({ capabilities: { extensions: { skills: {} } } });
    expect(error.message).toContain("namespace");
    configError({ capabilities: { extensions: { "com.example/x": true as never } } });
    configError({ capabilities: { extensions: [] as never } });
    new Client(
      options({ capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [] } } } }),
    );
  });
});

describe("2025-11-25 custom server requests", () => {
  it("answers with the callback's result, its JsonRpcError, or -32603 for a bad answer or a throw", async () => {
    const contexts: ServerRequestContext[] = [];
    const { server } = await connectFake({
      era: "legacy",
      client: {
        requestHandlers: {
          "acme/ok": (params, context) => {
            contexts.push(context);
            return { got: params };
          },
          "acme/refuse": () => {
            throw new JsonRpcError(-32050, "not today", { why: "closed" });
          },
          "acme/array": () => [1] as never,
          "acme/throw": () => {
            throw new Error("secret detail");
          },
        },
      },
    });
    const meta = { trace: "t1" };
    await expect(server.request("acme/ok", { x: 1, _meta: meta })).resolves.toMatchObject({
      result: { got: { x: 1 } },
    });
    expect(contexts[0]).toMatchObject({ era: "2025-11-25", method: "acme/ok", meta, requestId: "s-1" });
    await expect(server.request("acme/refuse")).resolves.toMatchObject({
      error: { code: -32050, message: "not today", data: { why: "closed" } },
    });
    await expect(server.request("acme/array")).resolves.toMatchObject({ error: { code: -32603 } });
    const thrown = await server.request("acme/throw");
    expect(thrown).toMatchObject({ error: { code: -32603, message: "client callback failed" } });
    await expect(server.request("acme/unknown")).resolves.toMatchObject({ error: { code: -32601 } });
  });

  it("bounds the callbacks: callbackTimeoutMs, maxConcurrentCallbacks, and a server cancel", async () => {
    const signals: AbortSignal[] = [];
    const { server } = await connectFake({
      era: "legacy",
      client: {
        callbackTimeoutMs: 50,
        maxConcurrentCallbacks: 1,
        requestHandlers: {
          "acme/hang": (_params, context) => {
            signals.push(context.signal);
            return new Promise(() => {});
          },
        },
      },
    });
    const first = server.request("acme/hang");
    while (signals.length === 0) await sleep(1);
    await expect(server.request("acme/hang")).resolves.toMatchObject({
      error: { code: -32603, message: expect.stringContaining("over maxConcurrentCallbacks") },
    });
    await expect(first).resolves.toMatchObject({
      error: { code: -32603, message: "client callback timed out" },
    });
    expect(signals[0]?.aborted).toBe(true);
    void server.request("acme/hang");
    while (signals.length === 1) await sleep(1);
    await server.notify("notifications/cancelled", { requestId: "s-3" });
    await sleep(10);
    expect(signals[1]?.aborted).toBe(true);
    expect(server.received.filter((m) => "id" in m && m.id === "s-3")).toEqual([]);
  });

  it("gets -32601 in 2026-07-28 even with a callback", async () => {
    let calls = 0;
    const { server } = await connectFake({
      client: {
        requestHandlers: {
          "acme/ok": () => {
            calls++;
            return {};
          },
        },
      },
    });
    await expect(server.request("acme/ok")).resolves.toMatchObject({ error: { code: -32601 } });
    expect(calls).toBe(0);
  });
});

describe("custom server notifications", () => {
  it("go to their callback (params without _meta), not to onNotification; failures are logged", async () => {
    const got: unknown[] = [];
    const others: string[] = [];
    const warnings: string[] = [];
    const { server } = await connectFake({
      era: "legacy",
      client: {
        logger: { warn: (message) => warnings.push(message) },
        onNotification: (n) => others.push(n.method),
        notificationHandlers: {
          "acme/event": (params, context) => {
            got.push([params, context.meta, context.era]);
          },
          "notifications/tools/list_changed": () => {
            throw new Error("boom");
          },
        },
      },
    });
    await server.notify("acme/event", { n: 1, _meta: { k: 2 } });
    await server.notify("notifications/tools/list_changed");
    await server.notify("notifications/prompts/list_changed");
    await sleep(10);
    expect(got).toEqual([[{ n: 1 }, { k: 2 }, "2025-11-25"]]);
    expect(others).toEqual(["notifications/prompts/list_changed"]);
    expect(warnings.some((w) => w.includes("notifications/tools/list_changed"))).toBe(true);
  });
});

describe("notify and sendRootsListChanged", () => {
  it("notify: 2026 adds the client's _meta envelope, keeping the caller's keys; refuses core names", async () => {
    const { server, client } = await connectFake();
    await client.notify("acme/seen", { id: 1, _meta: { trace: "x" } });
    await client.notify("acme/bare");
    await sleep(5);
    const [seen, bare] = server.notifications().filter((n) => n.method.startsWith("acme/"));
    expect(seen?.params).toMatchObject({ id: 1, _meta: { trace: "x" } });
    expect(seen?.params?._meta).toHaveProperty(["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    expect(bare?.params?._meta).toHaveProperty(["io.modelcontextprotocol/clientInfo"]);
    for (const method of ["notifications/roots/list_changed", "tools/list", "rpc.x"]) {
      await expect(client.notify(method)).rejects.toMatchObject({ code: "UNSUPPORTED" });
    }
    await expect(client.notify("acme/x", [] as never)).rejects.toMatchObject({ code: "UNSUPPORTED" });
  });

  it("sendRootsListChanged: 2025 with roots.listChanged sends it; otherwise UNSUPPORTED without sending", async () => {
    const { server, client } = await connectFake({
      era: "legacy",
      client: { capabilities: { roots: { listChanged: true } } },
    });
    await client.sendRootsListChanged();
    await sleep(5);
    expect(server.notifications("notifications/roots/list_changed")).toEqual([
      { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
    ]);
    const without = await connectFake({ era: "legacy" });
    await expect(without.client.sendRootsListChanged()).rejects.toMatchObject({ code: "UNSUPPORTED" });
    const modern = await connectFake({ client: { capabilities: { roots: { listChanged: true } } } });
    await expect(modern.client.sendRootsListChanged()).rejects.toMatchObject({ code: "UNSUPPORTED" });
    expect(without.server.notifications("notifications/roots/list_changed")).toEqual([]);
    expect(modern.server.notifications("notifications/roots/list_changed")).toEqual([]);
  });
});
