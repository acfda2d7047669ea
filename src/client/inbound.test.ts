import { describe, expect, it } from "vitest";
import { connectFake, ok, progressTokenOf } from "../../test/support/fake-server.js";
import { useWireValidation } from "../../test/support/validating-transport.js";
import type { LoggingMessageParams, ProgressParams } from "../protocol/types/lifecycle.js";
import type { ServerNotification } from "./types.js";

useWireValidation();

const settle = () => new Promise<void>((resolve) => setTimeout(() => resolve(), 5));

function recorder() {
  const warnings: { message: string; details: unknown }[] = [];
  return {
    warnings,
    logger: { warn: (message: string, details?: unknown) => warnings.push({ message, details }) },
  };
}

describe.each(["modern", "legacy"] as const)("server notifications (%s)", (era) => {
  it("routes log messages to onLog and the rest to onNotification", async () => {
    const logs: LoggingMessageParams[] = [];
    const events: ServerNotification[] = [];
    const { server } = await connectFake({
      era,
      client: { onLog: (m) => logs.push(m), onNotification: (n) => events.push(n) },
    });
    await server.notify("notifications/message", { level: "warning", logger: "db", data: { slow: true } });
    await server.notify("notifications/tools/list_changed");
    await server.notify("notifications/resources/updated", { uri: "file:///a.txt" });
    await server.notify("notifications/prompts/list_changed", {});
    await settle();
    expect(logs).toEqual([{ level: "warning", logger: "db", data: { slow: true } }]);
    expect(events).toEqual([
      { method: "notifications/tools/list_changed" },
      { method: "notifications/resources/updated", params: { uri: "file:///a.txt" } },
      { method: "notifications/prompts/list_changed", params: {} },
    ]);
  });

  it("isolates callbacks that throw or reject, reporting them to the logger", async () => {
    const { warnings, logger } = recorder();
    const { server, client } = await connectFake({
      era,
      client: {
        logger,
        onLog: () => {
          throw new Error("onLog broke");
        },
        onNotification: () => Promise.reject(new Error("onNotification broke")),
      },
      setup: (s) =>
        s.on("tools/call", async (request, fake) => {
          const token = progressTokenOf(request);
          await fake.notify("notifications/progress", { progressToken: token ?? -1, progress: 1 });
          return ok({ content: [] });
        }),
    });
    await server.notify("notifications/message", { level: "info", data: "x" });
    await server.notify("notifications/tools/list_changed");
    const result = await client.callTool(
      "t",
      {},
      {
        onProgress: () => {
          throw new Error("onProgress broke");
        },
      },
    );
    await settle();
    expect(result.content).toEqual([]);
    expect(warnings.map((w) => w.message).sort()).toEqual([
      "onLog callback failed",
      "onNotification callback failed",
      "onProgress callback failed",
    ]);
    await expect(client.listTools()).resolves.toHaveProperty("tools");
  });

  it("sends a progressToken with every operation when the client-level onProgress is set", async () => {
    const seen: ProgressParams[] = [];
    const { server, client } = await connectFake({
      era,
      client: { onProgress: (p) => seen.push(p) },
      setup: (s) =>
        s.on("tools/list", async (request, fake) => {
          const token = progressTokenOf(request);
          await fake.notify("notifications/progress", { progressToken: token ?? -1, progress: 0.5 });
          return ok({ tools: [] });
        }),
    });
    await client.listTools();
    const token = progressTokenOf(server.requests("tools/list")[0]);
    expect(seen).toEqual([{ progressToken: token, progress: 0.5 }]);
  });

  it("drops a malformed log message, reporting it", async () => {
    const { warnings, logger } = recorder();
    const logs: unknown[] = [];
    const { server } = await connectFake({
      era,
      validate: false,
      client: { logger, onLog: (m) => logs.push(m) },
    });
    await server.notify("notifications/message", { level: "loud", data: 1 });
    await settle();
    expect(logs).toEqual([]);
    expect(warnings.map((w) => w.message)).toEqual(["dropped a malformed notifications/message"]);
  });
});

describe("server-to-client requests", () => {
  it("answers ping with {} in 2025-11-25", async () => {
    const { server } = await connectFake({ era: "legacy" });
    await expect(server.request("ping")).resolves.toEqual({ jsonrpc: "2.0", id: "s-1", result: {} });
  });

  it("answers other requests with -32601 for now", async () => {
    const { server } = await connectFake({ era: "legacy" });
    const response = await server.request("roots/list");
    expect(response).toMatchObject({ id: "s-1", error: { code: -32601 } });
  });

  it("answers a 2026 ping with -32601: the method does not exist there", async () => {
    const { server } = await connectFake({ era: "modern" });
    await expect(server.request("ping")).resolves.toMatchObject({ error: { code: -32601 } });
  });
});

describe("messages that break JSON-RPC", () => {
  it.each([
    ["a wrong jsonrpc version", { jsonrpc: "1.0", id: 1, result: {} }],
    ["a response for an unknown id", { jsonrpc: "2.0", id: 4242, result: {} }],
    ["a string id the client never used", { jsonrpc: "2.0", id: "1", result: {} }],
    ["an error without an id", { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } }],
    ["a non-object result", { jsonrpc: "2.0", id: 1, result: [1] }],
    [
      "a malformed progress notification",
      { jsonrpc: "2.0", method: "notifications/progress", params: { progress: "x" } },
    ],
    ["an array", [1, 2]],
  ])("drops %s and keeps working", async (_label, message) => {
    const { warnings, logger } = recorder();
    const { server, client } = await connectFake({ validate: false, client: { logger } });
    await server.send(message as never);
    await settle();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(/^dropped /);
    await expect(client.listTools()).resolves.toHaveProperty("tools");
  });
});
