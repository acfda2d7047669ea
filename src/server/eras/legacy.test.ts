import { afterEach, describe, expect, it } from "vitest";
import { fixtureServer } from "../../../test/support/fixture-server.js";
import { connectRaw, errorOf, resultOf } from "../../../test/support/raw-peer.js";
import { until } from "../../../test/support/until.js";
import { useWireValidation } from "../../../test/support/validating-transport.js";
import type { Server } from "../server.js";

useWireValidation();

let server: Server;
afterEach(async () => {
  await server?.close();
});

describe("2025-11-25 sessions", () => {
  it("answers initialize with the legacy version, capabilities, server info and instructions", async () => {
    server = fixtureServer();
    const { peer, connection } = await connectRaw(server);
    const result = resultOf(await peer.initialize());
    expect(result).toEqual({
      protocolVersion: "2025-11-25",
      capabilities: { logging: {}, tools: {}, resources: {}, prompts: {}, completions: {} },
      serverInfo: { name: "fixture", version: "1.2.3" },
      instructions: "Fixture server for mcpkit tests.",
    });
    expect(connection.era).toBe("2025-11-25");
  });

  it("answers an older requested version with its own", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server, { lenient: true });
    const result = resultOf(
      await peer.request("initialize", {
        protocolVersion: "2024-11-05",
        capabilities: {},
        clientInfo: { name: "old", version: "0" },
      }),
    );
    expect(result.protocolVersion).toBe("2025-11-25");
  });

  it("never sends 2026-only members, even when a handler returns them", async () => {
    server = fixtureServer({ cache: { ttlMs: 100, cacheScope: "private" } });
    const { peer } = await connectRaw(server);
    await peer.initialize();
    for (const method of ["tools/list", "resources/list", "resources/templates/list", "prompts/list"]) {
      const result = resultOf(await peer.request(method));
      for (const key of ["resultType", "ttlMs", "cacheScope"]) expect(result, method).not.toHaveProperty(key);
      expect(result._meta).toBeUndefined();
    }
    const read = resultOf(await peer.request("resources/read", { uri: "test://items/beta/data" }));
    expect(read).toEqual({
      contents: [{ uri: "test://items/beta/data", mimeType: "application/json", text: '{"id":"beta"}' }],
    });
  });

  it("serves every handler method", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    await peer.initialize();
    expect(resultOf(await peer.request("tools/call", { name: "add", arguments: { a: 1, b: 2 } }))).toEqual({
      content: [{ type: "text", text: "3" }],
    });
    expect(resultOf(await peer.request("prompts/get", { name: "simple" }))).toEqual({
      messages: [{ role: "user", content: { type: "text", text: "Say hello" } }],
    });
    expect(
      resultOf(
        await peer.request("completion/complete", {
          ref: { type: "ref/resource", uri: "test://items/{id}/data" },
          argument: { name: "id", value: "g" },
        }),
      ),
    ).toEqual({ completion: { values: ["gamma"] } });
    expect(resultOf(await peer.request("ping"))).toEqual({});
  });

  it("answers a missing resource with the 2025 code -32002", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    await peer.initialize();
    expect(errorOf(await peer.request("resources/read", { uri: "test://nope" })).code).toBe(-32002);
  });

  it("gates log messages by logging/setLevel", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    await peer.initialize();
    resultOf(await peer.request("tools/call", { name: "chatty" }));
    const before = peer.notifications.filter((n) => n.method === "notifications/message").length;
    expect(before).toBe(2);
    resultOf(await peer.request("logging/setLevel", { level: "warning" }));
    resultOf(await peer.request("tools/call", { name: "chatty" }));
    expect(peer.notifications.filter((n) => n.method === "notifications/message").length).toBe(2);
  });

  it("refuses an unknown logging level", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server, { lenient: true });
    await peer.initialize();
    expect(errorOf(await peer.request("logging/setLevel", { level: "loud" })).code).toBe(-32602);
  });

  it("sends progress for a request with a progress token", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    await peer.initialize();
    resultOf(await peer.request("tools/call", { name: "chatty", _meta: { progressToken: 7 } }));
    expect(
      peer.notifications.filter((n) => n.method === "notifications/progress").map((n) => n.params),
    ).toEqual([
      { progressToken: 7, progress: 1, total: 2, message: "half" },
      { progressToken: 7, progress: 2, total: 2 },
    ]);
  });

  it("aborts the handler's signal on notifications/cancelled", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    await peer.initialize();
    void peer.request("tools/call", { name: "slow" }, "slow-1");
    await until(() => server.runningHandlers === 1);
    await peer.notify("notifications/cancelled", { requestId: "slow-1" });
    await until(() => server.runningHandlers === 0);
    resultOf(await peer.request("ping"));
    expect(peer.responses.has("slow-1")).toBe(false);
  });

  it("sends list-changed notifications to ready sessions when advertised", async () => {
    server = fixtureServer({ listChanged: { tools: true, prompts: true } });
    const { peer } = await connectRaw(server);
    const result = resultOf(await peer.initialize());
    expect(result.capabilities).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
    });
    await until(() => true);
    await server.notifyListChanged("tools");
    await server.notifyListChanged("resources");
    await until(() => peer.notifications.length > 0);
    expect(peer.notifications.map((n) => n.method)).toEqual(["notifications/tools/list_changed"]);
  });

  it("refuses a second initialize and 2026 traffic on a pinned session", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server, { lenient: true });
    await peer.initialize();
    expect(errorOf(await peer.initialize()).code).toBe(-32600);
    expect(errorOf(await peer.modern("server/discover")).code).toBe(-32601);
  });

  it("refuses requests before initialize", async () => {
    server = fixtureServer();
    const { peer, connection } = await connectRaw(server, { lenient: true });
    expect(resultOf(await peer.request("ping"))).toEqual({});
    expect(connection.era).toBeUndefined();
    expect(errorOf(await peer.request("tools/list")).code).toBe(-32602);
  });

  it("refuses initialize once a connection is modern", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server, { lenient: true });
    resultOf(await peer.modern("tools/list"));
    expect(errorOf(await peer.initialize()).code).toBe(-32601);
  });

  it("checks initialize params", async () => {
    server = fixtureServer();
    const { peer, connection } = await connectRaw(server, { lenient: true });
    expect(errorOf(await peer.request("initialize", { protocolVersion: "2025-11-25" })).code).toBe(-32602);
    expect(connection.era).toBeUndefined();
  });
});

describe("2025-11-25 projection of 2026-only forms", () => {
  it("leaves out non-object structured content and non-object output schemas", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    await peer.initialize();
    const { tools } = resultOf(await peer.request("tools/list")) as { tools: { name: string }[] };
    expect(tools.find((t) => t.name === "structured")).not.toHaveProperty("outputSchema");
    const scalar = resultOf(
      await peer.request("tools/call", { name: "structured", arguments: { kind: "false" } }),
    );
    expect(scalar).not.toHaveProperty("structuredContent");
    expect(scalar.content).toEqual([{ type: "text", text: "false" }]);
    const object = resultOf(
      await peer.request("tools/call", { name: "structured", arguments: { kind: "object" } }),
    );
    expect(object.structuredContent).toEqual({ nested: { deep: [1, "two", null] } });
  });
});

describe("requests piped behind initialize", () => {
  it("are served in the era the initialize settles, not as 2026 traffic", async () => {
    server = fixtureServer();
    const { peer } = await connectRaw(server);
    const init = peer.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "pipe", version: "1" },
    });
    const list = peer.request("tools/list");
    expect(resultOf(await init).protocolVersion).toBe("2025-11-25");
    expect(resultOf(await list).tools).toBeInstanceOf(Array);
  });
});
