import { describe, expect, it } from "vitest";
import { configError } from "../../../test/support/config-error.js";
import { ServerBuilder } from "../authoring/builder.js";
import { createServer } from "../server.js";
import { MemoryRequestStateStore } from "../state/store.js";
import type { ServerHandler } from "./handler.js";

const serverInfo = { name: "t", version: "1" };
const tools = { listTools: () => ({ tools: [] }), callTool: () => ({ content: [] }) };

describe("server configuration", () => {
  it.each([
    ["tools", "callTool", { listTools: tools.listTools }],
    ["tools", "listTools", { callTool: tools.callTool }],
    ["resources", "readResource", { listResources: () => ({ resources: [] }) }],
    ["resources", "listResources", { readResource: () => ({ contents: [] }) }],
    ["resources", "listResources", { listResourceTemplates: () => ({ resourceTemplates: [] }) }],
    ["prompts", "getPrompt", { listPrompts: () => ({ prompts: [] }) }],
    ["prompts", "listPrompts", { getPrompt: () => ({ messages: [] }) }],
  ])("rejects a partial %s family missing %s", (family, missing, handler) => {
    const error = configError(() => createServer({ serverInfo, handler: handler as ServerHandler }));
    expect(error.code).toBe("INVALID_CONFIG");
    expect(error.message).toContain(family);
    expect(error.message).toContain(missing);
    expect(error.details).toMatchObject({ reason: "invalid_callback_family", family, missing });
  });

  it("advertises exactly the families it serves", () => {
    expect(createServer({ serverInfo, handler: tools }).capabilities).toEqual({ logging: {}, tools: {} });
    expect(createServer({ serverInfo, handler: {} }).capabilities).toEqual({ logging: {} });
  });

  it.each([
    ["an unknown option", { serverInfo, handler: {}, color: "red" }],
    ["a missing serverInfo", { handler: {} }],
    ["a non-function callback", { serverInfo, handler: { listTools: 3 } }],
    ["a zero timeout", { serverInfo, handler: {}, handlerTimeoutMs: 0 }],
    ["a fractional admission limit", { serverInfo, handler: {}, maxConcurrentHandlers: 1.5 }],
    ["a negative admission queue", { serverInfo, handler: {}, maxQueuedHandlers: -1 }],
    ["a fractional admission queue", { serverInfo, handler: {}, maxQueuedHandlers: 2.5 }],
    ["a negative ttl", { serverInfo, handler: {}, cache: { ttlMs: -1 } }],
    ["an unknown cache scope", { serverInfo, handler: {}, cache: { cacheScope: "shared" } }],
    ["a bare extension id", { serverInfo, handler: {}, extensions: { tasks: {} } }],
    ["a non-object extension setting", { serverInfo, handler: {}, extensions: { "com.example/x": true } }],
    ["listChanged without the family", { serverInfo, handler: {}, listChanged: { tools: true } }],
  ])("rejects %s", (_label, options) => {
    expect(configError(() => createServer(options as never)).code).toBe("INVALID_CONFIG");
  });

  it("is immutable once built: changing the inputs afterwards changes nothing", () => {
    const handler: ServerHandler = { ...tools };
    const info = { name: "before", version: "1" };
    const server = createServer({ serverInfo: info, handler });
    info.name = "after";
    handler.listTools = () => ({ tools: [{ name: "sneaky", inputSchema: { type: "object" } }] });
    expect(server.config.serverInfo.name).toBe("before");
    expect(Object.isFrozen(server.config)).toBe(true);
    expect(Object.isFrozen(server.config.capabilities)).toBe(true);
    expect(() => {
      (server.config.capabilities as { tools?: unknown }).tools = undefined;
    }).toThrow();
  });

  it("keeps a class-based handler's methods bound to it", async () => {
    class Store implements ServerHandler {
      private readonly names = ["a"];
      listTools() {
        return { tools: this.names.map((name) => ({ name, inputSchema: { type: "object" } })) };
      }
      callTool() {
        return { content: [] };
      }
    }
    const server = createServer({ serverInfo, handler: new Store() });
    expect(server.capabilities.tools).toEqual({});
    const listed = await server.config.handler.listTools?.({}, {} as never);
    expect(listed?.tools[0]?.name).toBe("a");
  });
});

describe("ServerBuilder", () => {
  it("rejects duplicates, bad schemas and use after build", () => {
    const builder = new ServerBuilder({ serverInfo }).tool(
      { name: "x", inputSchema: { type: "object" } },
      () => ({
        content: [],
      }),
    );
    expect(
      configError(() => builder.tool({ name: "x", inputSchema: { type: "object" } }, () => ({ content: [] })))
        .code,
    ).toBe("INVALID_CONFIG");
    expect(
      configError(() => builder.tool({ name: "y", inputSchema: { type: "array" } }, () => ({ content: [] })))
        .code,
    ).toBe("INVALID_CONFIG");
    expect(
      configError(() =>
        builder.resourceTemplate({ uriTemplate: "a://{", name: "t" }, () => ({ contents: [] })),
      ).code,
    ).toBe("INVALID_CONFIG");
    builder.build();
    expect(configError(() => builder.build()).code).toBe("INVALID_CONFIG");
  });
});

describe("input rounds and subscriptions options", () => {
  const resources = { listResources: () => ({ resources: [] }), readResource: () => ({ contents: [] }) };

  it("advertises resources.subscribe with subscribe: true, which needs the resources callbacks", () => {
    const server = createServer({
      serverInfo,
      handler: resources,
      subscribe: true,
      listChanged: { resources: true },
    });
    expect(server.capabilities.resources).toEqual({ subscribe: true, listChanged: true });
    expect(createServer({ serverInfo, handler: resources }).capabilities.resources).toEqual({});
    expect(configError(() => createServer({ serverInfo, handler: tools, subscribe: true })).details).toEqual({
      key: "subscribe",
    });
    expect(
      configError(() => createServer({ serverInfo, handler: resources, subscribe: 1 as never })).code,
    ).toBe("INVALID_CONFIG");
  });

  it("takes a stateKey of at least 32 bytes, as text or bytes", () => {
    expect(
      createServer({ serverInfo, handler: tools, stateKey: "k".repeat(32) }).config.stateKey,
    ).toHaveLength(32);
    expect(
      createServer({ serverInfo, handler: tools, stateKey: new Uint8Array(64) }).config.stateKey,
    ).toHaveLength(64);
    expect(
      configError(() => createServer({ serverInfo, handler: tools, stateKey: "short" })).message,
    ).toMatch(/stateKey must be at least 32 bytes/);
    expect(configError(() => createServer({ serverInfo, handler: tools, stateKey: 5 as never })).code).toBe(
      "INVALID_CONFIG",
    );
  });

  it("takes singleUseState as a boolean (off by default) or a store with issue and consume", () => {
    expect(createServer({ serverInfo, handler: tools }).config.stateStore).toBeUndefined();
    expect(
      createServer({ serverInfo, handler: tools, singleUseState: false }).config.stateStore,
    ).toBeUndefined();
    const memory = createServer({ serverInfo, handler: tools, singleUseState: true }).config.stateStore;
    expect(memory).toBeInstanceOf(MemoryRequestStateStore);
    expect((memory as MemoryRequestStateStore).capacity).toBe(10_000);
    const store = { issue: () => true, consume: () => true };
    expect(createServer({ serverInfo, handler: tools, singleUseState: store }).config.stateStore).toBe(store);
    for (const bad of ["yes", 1, null, {}, { issue: () => true }, { issue: 1, consume: () => true }]) {
      const error = configError(() =>
        createServer({ serverInfo, handler: tools, singleUseState: bad as never }),
      );
      expect(error.code).toBe("INVALID_CONFIG");
      expect(error.details).toEqual({ key: "singleUseState" });
    }
  });

  it("has the documented limits, each a positive integer", () => {
    expect(createServer({ serverInfo, handler: tools }).config.limits).toEqual({
      requestStateTtlMs: 600_000,
      maxInputRounds: 16,
      maxClientRequests: 32,
      maxSessionSubscriptions: 1024,
      maxSubscriptions: 1024,
      subscriptionQueueEvents: 256,
      subscriptionQueueBytes: 1_000_000,
      maxNotificationsPerRequest: 256,
      maxNotificationBytes: 1_000_000,
    });
    for (const key of [
      "maxSubscriptions",
      "subscriptionQueueBytes",
      "requestStateTtlMs",
      "maxInputRounds",
      "maxNotificationsPerRequest",
      "maxNotificationBytes",
    ]) {
      for (const bad of [0, -1, 2.5, "10"]) {
        expect(configError(() => createServer({ serverInfo, handler: tools, [key]: bad })).details).toEqual({
          key,
        });
      }
    }
  });

  it("checks the logger and its rate limit (logIntervalMs, a non-negative integer)", () => {
    for (const logger of [{ warn: () => {} }, { error: () => {} }, "console"]) {
      expect(
        configError(() => createServer({ serverInfo, handler: tools, logger: logger as never })).details,
      ).toEqual({ key: "logger" });
    }
    for (const logIntervalMs of [-1, 0.5, Number.NaN, "60000"]) {
      expect(
        configError(() => createServer({ serverInfo, handler: tools, logIntervalMs: logIntervalMs as never }))
          .details,
      ).toEqual({ key: "logIntervalMs" });
    }
    const lines: string[] = [];
    const logger = { warn: (message: string) => lines.push(message), error: () => {} };
    const server = createServer({ serverInfo, handler: tools, logger, logIntervalMs: 0 });
    server.config.logger.warn("same");
    server.config.logger.warn("same");
    expect(lines).toEqual(["same", "same"]);
  });
});
