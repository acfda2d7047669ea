import { afterEach, describe, expect, it } from "vitest";
import { fixtureLog, fixtureServer, STRUCTURED_VALUES } from "../../../test/support/fixture-server.js";
import { connectRaw, errorOf, modernMeta, resultOf } from "../../../test/support/raw-peer.js";
import { until } from "../../../test/support/until.js";
import { useWireValidation } from "../../../test/support/validating-transport.js";
import type { Server } from "../server.js";

useWireValidation();

let server: Server;
afterEach(async () => {
  await server?.close();
});

describe("2026-07-28 stateless requests", () => {
  it("answers server/discover with versions, capabilities, instructions, server info and cache hints", async () => {
    server = fixtureServer({ extensions: { "com.example/widgets": { level: 2 } } });
    const { peer } = await connectRaw(server);
    const result = resultOf(await peer.modern("server/discover"));
    expect(result.supportedVersions).toEqual(["2026-07-28", "2025-11-25"]);
    expect(result.capabilities).toEqual({
      logging: {},
      tools: {},
      resources: {},
      prompts: {},
      completions: {},
      extensions: { "com.example/widgets": { level: 2 } },
    });
    expect(result.instructions).toBe("Fixture server for mcpkit tests.");
    expect(result.resultType).toBe("complete");
    expect(result.ttlMs).toBe(0);
    expect(result.cacheScope).toBe("public");
    expect(result._meta).toEqual({
      "io.modelcontextprotocol/serverInfo": { name: "fixture", version: "1.2.3" },
    });
    expect(result).not.toHaveProperty("serverInfo");
  });

  it("puts resultType on every result and cache hints on list and read results", async () => {
    server = fixtureServer({ cache: { ttlMs: 5000, cacheScope: "private" } });
    const { peer } = await connectRaw(server);
    for (const method of ["tools/list", "resources/list", "resources/templates/list", "prompts/list"]) {
      const result = resultOf(await peer.modern(method));
      expect(result, method).toMatchObject({ resultType: "complete", ttlMs: 5000, cacheScope: "private" });
    }
    const read = resultOf(await peer.modern("resources/read", { uri: "test://static-text" }));
    expect(read).toMatchObject({ resultType: "complete", ttlMs: 5000, cacheScope: "private" });
    const call = resultOf(await peer.modern("tools/call", { name: "add", arguments: { a: 2, b: 40 } }));
    expect(call).toEqual({
      content: [{ type: "text", text: "42" }],
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "fixture", version: "1.2.3" } },
    });
    expect(call).not.toHaveProperty("ttlMs");
    const prompt = resultOf(await peer.modern("prompts/get", { name: "greet", arguments: { name: "Ada" } }));
    expect(prompt.resultType).toBe("complete");
    expect(prompt).not.toHaveProperty("cacheScope");
    const completion = resultOf(
      await peer.modern("completion/complete", {
        ref: { type: "ref/prompt", name: "greet" },
        argument: { name: "tone", value: "w" },
      }),
    );
    expect(completion).toMatchObject({ completion: { values: ["warmly", "wryly"] }, resultType: "complete" });
  });

  it.each([
    ["no params", undefined],
    ["no _meta", {}],
    ["no protocolVersion", { _meta: { "io.modelcontextprotocol/clientCapabilities": {} } }],
    ["no clientCapabilities", { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }],
    [
      "malformed clientInfo",
      {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": "me",
        },
      },
    ],
  ])("refuses a request with %s with -32602", async (_label, params) => {
    server = fixtureServer();
    const { peer } = await connectRaw(server, { lenient: true });
    const error = errorOf(await peer.request("tools/list", params));
    expect(error.code).toBe(-32602);
  });

  it("refuses an unsupported version with -32022 naming supported and requested", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server, { lenient: true });
    const error = errorOf(
      await peer.modern("tools/list", {}, { "io.modelcontextprotocol/protocolVersion": "2099-01-01" }),
    );
    expect(error.code).toBe(-32022);
    expect(error.data).toEqual({ supported: ["2026-07-28", "2025-11-25"], requested: "2099-01-01" });
  });

  it.each(["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"])(
    "answers the removed method %s with -32601 once the connection is modern",
    async (method) => {
      server = fixtureServer();
      const { peer, connection } = await connectRaw(server, { lenient: true });
      resultOf(await peer.modern("tools/list"));
      expect(connection.era).toBe("2026-07-28");
      const error = errorOf(await peer.modern(method, method === "resources/subscribe" ? { uri: "x" } : {}));
      expect(error.code).toBe(-32601);
    },
  );

  it("answers an unknown method with -32601", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server, { lenient: true });
    expect(errorOf(await peer.modern("tools/frobnicate")).code).toBe(-32601);
  });

  it("answers a missing resource with -32602", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    const error = errorOf(await peer.modern("resources/read", { uri: "test://nope" }));
    expect(error.code).toBe(-32602);
    expect(error.data).toEqual({ uri: "test://nope" });
  });

  it("sends log messages only when the request asks for a level, and only at or above it", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    resultOf(await peer.modern("tools/call", { name: "chatty" }));
    expect(peer.notifications.filter((n) => n.method === "notifications/message")).toEqual([]);
    resultOf(
      await peer.modern("tools/call", { name: "chatty" }, { "io.modelcontextprotocol/logLevel": "info" }),
    );
    const logs = peer.notifications.filter((n) => n.method === "notifications/message");
    expect(logs.map((n) => n.params)).toEqual([
      { level: "info", data: { step: "working" }, logger: "fixture" },
    ]);
  });

  it("sends progress only when the request has a progress token", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    resultOf(await peer.modern("tools/call", { name: "chatty" }));
    expect(peer.notifications.filter((n) => n.method === "notifications/progress")).toEqual([]);
    resultOf(await peer.modern("tools/call", { name: "chatty" }, { progressToken: "p1" }));
    const progress = peer.notifications.filter((n) => n.method === "notifications/progress");
    expect(progress.map((n) => n.params)).toEqual([
      { progressToken: "p1", progress: 1, total: 2, message: "half" },
      { progressToken: "p1", progress: 2, total: 2 },
    ]);
  });

  it("keeps structured content values distinct from absent, and unknown members", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    for (const [kind, value] of Object.entries(STRUCTURED_VALUES)) {
      const result = resultOf(await peer.modern("tools/call", { name: "structured", arguments: { kind } }));
      expect(result).toHaveProperty("structuredContent");
      expect(result.structuredContent, kind).toEqual(value);
      expect(result["x-extra"]).toEqual({ survives: true });
    }
    const absent = resultOf(await peer.modern("tools/call", { name: "add", arguments: { a: 1, b: 2 } }));
    expect(absent).not.toHaveProperty("structuredContent");
  });

  it("refuses a result without structuredContent from a tool that declares an outputSchema", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    const error = errorOf(
      await peer.modern("tools/call", { name: "structured", arguments: { kind: "none" } }),
    );
    expect(error).toEqual({ code: -32603, message: "Internal error" });
    expect(fixtureLog.at(-1)?.details).toMatchObject({
      message: 'tool "structured" declares an outputSchema but returned no structuredContent',
    });
  });

  it("sends tool schemas untouched, $ref and unknown keys included", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    const { tools } = resultOf(await peer.modern("tools/list")) as { tools: { name: string }[] };
    const add = tools.find((t) => t.name === "add");
    expect(add).toMatchObject({
      "x-vendor": { keep: true },
      inputSchema: { $defs: { unused: { $ref: "#/$defs/unused" } }, required: ["a", "b"] },
    });
  });

  it("turns a thrown tool error into an isError result", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    const result = resultOf(await peer.modern("tools/call", { name: "fail" }));
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "tool exploded" }] });
  });

  it("answers an unknown tool with -32602", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    expect(errorOf(await peer.modern("tools/call", { name: "nope" })).code).toBe(-32602);
  });

  it("passes the transport's identity to the handler and never the request's", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server, { identity: { sub: "alice" } });
    const result = resultOf(
      await peer.modern(
        "tools/call",
        { name: "whoami", arguments: { identity: "mallory" } },
        { identity: "eve" },
      ),
    );
    expect(JSON.parse((result.content as { text: string }[])[0]?.text ?? "")).toEqual({
      identity: { sub: "alice" },
      era: "2026-07-28",
    });
  });

  it("aborts a handler on notifications/cancelled and sends no response for it", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    const pending = peer.modern("tools/call", { name: "slow" });
    await until(() => server.runningHandlers === 1);
    await peer.notify("notifications/cancelled", { requestId: 1, reason: "user gave up" });
    await until(() => server.runningHandlers === 0);
    resultOf(await peer.modern("tools/list"));
    expect(peer.responses.has(1)).toBe(false);
    void pending;
  });

  it("refuses a second in-flight request with the same id", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server, { lenient: true });
    void peer.modern("tools/call", { name: "slow" });
    await until(() => server.runningHandlers === 1);
    const duplicate = await peer.request("tools/list", { _meta: modernMeta() }, 1);
    expect(errorOf(duplicate).code).toBe(-32600);
  });
});
