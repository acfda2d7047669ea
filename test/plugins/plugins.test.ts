import { afterEach, describe, expect, it } from "vitest";
import { auditLog, main, toolRateLimit } from "../../examples/plugins.js";
import { JsonRpcError, McpkitError } from "../../src/jsonrpc/errors.js";
import type { JsonRpcRequest } from "../../src/jsonrpc/message.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import type { PluginCall, PluginSession, ServerPlugin } from "../../src/server/core/plugin.js";
import { pluginAnswer } from "../../src/server/core/plugin.js";
import { createServer, type Server } from "../../src/server/server.js";
import { connectInProcess } from "../support/in-process-client.js";
import { until } from "../support/until.js";

const serverInfo = { name: "p", version: "1.0.0" };
const ERAS: readonly Era[] = [MODERN_VERSION, LEGACY_VERSION];
let closers: Array<() => Promise<unknown>> = [];
const track = (...close: Array<() => Promise<unknown>>) => closers.push(...close);
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

function echoServer(plugins: readonly ServerPlugin[], extra: object = {}): Server {
  return new ServerBuilder({ serverInfo, plugins, ...extra })
    .tool({ name: "echo", inputSchema: { type: "object" } }, (_args, ctx) => ({
      content: [
        { type: "text", text: `${ctx.era} ${JSON.stringify((ctx as { note?: string }).note ?? null)}` },
      ],
    }))
    .build();
}

describe("the example plugins (examples/plugins.ts)", () => {
  it("limits a tool per window and audits every call, in both eras", async () => {
    expect(await main()).toEqual([
      "2026-07-28 echo #1: ok",
      "2026-07-28 echo #2: ok",
      "2026-07-28 echo #3: Rate limit exceeded",
      "2025-11-25 echo #1: ok",
      "2025-11-25 echo #2: ok",
      "2025-11-25 echo #3: Rate limit exceeded",
      "audit: 2026-07-28 echo result, 2026-07-28 echo result, 2026-07-28 echo error, 2025-11-25 echo result, 2025-11-25 echo result, 2025-11-25 echo error",
    ]);
  });

  it("gives the refusal its retry hint, and frees the tool when the window passes (fake clock)", async () => {
    let clock = 1_000;
    const server = echoServer([toolRateLimit({ limits: { echo: 1 }, windowMs: 10_000, now: () => clock })]);
    const client = await connectInProcess(server, {}, track);
    await client.callTool("echo", {});
    clock += 4_000;
    await expect(client.callTool("echo", {})).rejects.toMatchObject({
      code: -32603,
      data: { reason: "rate_limited", tool: "echo", retryAfterMs: 6_000 },
    });
    clock += 6_000;
    await expect(client.callTool("echo", {})).resolves.toMatchObject({
      content: [{ type: "text", text: "2026-07-28 null" }],
    });
  });

  it("keeps the audit log bounded", async () => {
    const entries: Parameters<typeof auditLog>[0] = [];
    const client = await connectInProcess(echoServer([auditLog(entries, 3)]), {}, track);
    for (let i = 0; i < 5; i++) await client.callTool("echo", {});
    expect(entries).toHaveLength(3);
  });
});

describe("the plugin seam", () => {
  it("resolves no hook that no plugin has: a server with only its features needs no call info", () => {
    const server = echoServer([]);
    const { hooks } = server.config;
    expect(hooks.needsCall()).toBe(false);
    expect({
      admit: hooks.admit,
      context: hooks.context,
      response: hooks.response,
      notification: hooks.notification,
      clientRequest: hooks.clientRequest,
      broadcast: hooks.broadcast,
      received: hooks.received,
      subscribed: hooks.subscribed,
      sessionOpened: hooks.sessionOpened,
      sessionClosed: hooks.sessionClosed,
      settles: hooks.settles({ content: [] }),
    }).toEqual({
      admit: undefined,
      context: undefined,
      response: undefined,
      notification: undefined,
      clientRequest: undefined,
      broadcast: undefined,
      received: undefined,
      subscribed: undefined,
      sessionOpened: undefined,
      sessionClosed: undefined,
      settles: false,
    });
    expect(hooks.plugins.map((plugin) => plugin.name)).toEqual(["tasks"]);
    expect(server.plugin("tasks")?.name).toBe("tasks");
    expect(server.plugin("nope")).toBeUndefined();
  });

  it("serves dynamic registration as a plugin, which needs no per-request hook either", async () => {
    const server = new ServerBuilder({ serverInfo }).buildDynamic({ families: ["tools"] });
    const { hooks } = server.config;
    expect(hooks.plugins.map((plugin) => plugin.name)).toEqual(["tasks", "dynamic"]);
    expect(hooks.needsCall()).toBe(false);
    expect(server.plugin("dynamic")).toMatchObject({ tools: server.tools });
    const changes: string[] = [];
    const client = await connectInProcess(
      server,
      { protocolVersion: LEGACY_VERSION, onNotification: (n) => void changes.push(n.method) },
      track,
    );
    server.tools.add({ name: "later", inputSchema: { type: "object" } }, () => ({ content: [] }));
    server.tools.add({ name: "again", inputSchema: { type: "object" } }, () => ({ content: [] }));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["later", "again"]);
    // One list_changed for the two adds of one synchronous run, sent through the plugin's host.
    await until(() => changes.length > 0);
    expect(changes).toEqual(["notifications/tools/list_changed"]);
  });

  it("refuses a plugin without a name, a name twice, an answer kind twice", () => {
    const code = (plugins: unknown) => {
      try {
        createServer({ serverInfo, handler: {}, plugins: plugins as ServerPlugin[] });
      } catch (error) {
        return error instanceof McpkitError ? [error.code, error.message] : error;
      }
      return "built";
    };
    expect(code([{}])).toEqual([
      "INVALID_CONFIG",
      "server option plugins must hold objects with a non-empty string name",
    ]);
    expect(code([{ name: "a" }, { name: "a" }])).toEqual([
      "INVALID_CONFIG",
      'server option plugins hold "a" twice',
    ]);
    expect(code([{ name: "t", answers: { task: async () => ({}) } }])).toEqual([
      "INVALID_CONFIG",
      'server option plugins serve the answer kind "task" twice',
    ]);
    expect(code("nope")).toEqual(["INVALID_CONFIG", "server option plugins must be an array of plugins"]);
  });

  for (const era of ERAS) {
    it(`${era}: runs admit, context, result and response in order, with what each hook needs`, async () => {
      const seen: string[] = [];
      const first: ServerPlugin = {
        name: "first",
        admit: (call) => void seen.push(`admit ${call.era} ${call.method}`),
        context: (call) => (call.method === "tools/call" ? { admitted: true } : undefined),
        result(answer, call, ctx) {
          seen.push(`result ${call.method} ${ctx.method}`);
          const result = answer as { content: { type: string; text: string }[] };
          return { ...result, content: [...result.content, { type: "text", text: "first" }] };
        },
        response(response, call) {
          seen.push(`response ${call.method} ${"result" in response}`);
          return undefined;
        },
      };
      const second: ServerPlugin = {
        name: "second",
        result(answer) {
          const result = answer as { content: { type: string; text: string }[] };
          return { ...result, content: [...result.content, { type: "text", text: "second" }] };
        },
        response(response) {
          return "result" in response
            ? { ...response, result: { ...response.result, stamped: true } }
            : undefined;
        },
      };
      const client = await connectInProcess(echoServer([first, second]), { protocolVersion: era }, track);
      seen.length = 0;
      const result = await client.callTool("echo", {});
      expect(result.content.map((block) => (block.type === "text" ? block.text : ""))).toEqual([
        `${era} null`,
        "first",
        "second",
      ]);
      expect((result as { stamped?: boolean }).stamped).toBe(true);
      expect(seen).toEqual([
        `admit ${era} tools/call`,
        "result tools/call tools/call",
        "response tools/call true",
      ]);
    });

    it(`${era}: an admit hook that throws a JsonRpcError refuses the call before the handler runs`, async () => {
      let ran = 0;
      const server = new ServerBuilder({
        serverInfo,
        plugins: [
          {
            name: "deny",
            admit(call: PluginCall) {
              if (call.method === "tools/call") throw new JsonRpcError(-32600, "denied by policy");
            },
          },
        ],
      })
        .tool({ name: "t", inputSchema: { type: "object" } }, () => {
          ran++;
          return { content: [] };
        })
        .build();
      const client = await connectInProcess(server, { protocolVersion: era }, track);
      await expect(client.callTool("t", {})).rejects.toMatchObject({
        code: -32600,
        message: "denied by policy",
      });
      expect(ran).toBe(0);
    });

    it(`${era}: admit sees every request, and refuses a subscription as it refuses a call`, async () => {
      const seen: string[] = [];
      const server = new ServerBuilder({
        serverInfo,
        plugins: [
          {
            name: "deny-subscriptions",
            admit(call: PluginCall) {
              seen.push(call.method);
              if (call.method === "subscriptions/listen" || call.method === "resources/subscribe") {
                throw new JsonRpcError(-32600, "subscriptions are not allowed here");
              }
            },
          },
        ],
      })
        .resource({ uri: "file:///a", name: "a" }, () => ({ contents: [] }))
        .build();
      const client = await connectInProcess(server, { protocolVersion: era }, track);
      const refused = { code: -32600, message: "subscriptions are not allowed here" };
      if (era === MODERN_VERSION) {
        // The handle comes at once; the refusal ends it, as any error answer to the listen does.
        const subscription = await client.listenSubscriptions({ toolsListChanged: true });
        expect(await subscription.next(5_000)).toMatchObject({
          type: "end",
          end: { reason: "error", error: refused },
        });
        expect(seen).toContain("subscriptions/listen");
      } else {
        await expect(client.subscribeResource("file:///a")).rejects.toMatchObject(refused);
        expect(seen).toContain("resources/subscribe");
      }
    });

    it(`${era}: a plugin answer becomes its plugin's result; one of no plugin's kind is -32603`, async () => {
      const errors: unknown[] = [];
      const server = new ServerBuilder({
        serverInfo,
        logger: { warn: () => {}, error: (message) => void errors.push(message) },
        plugins: [
          {
            name: "later",
            answers: {
              later: async (answer) => ({
                content: [{ type: "text", text: `later ${(answer as unknown as { n: number }).n}` }],
              }),
            },
          },
        ],
      })
        .tool(
          { name: "later", inputSchema: { type: "object" } },
          () => pluginAnswer("later", { n: 7 }) as never,
        )
        .tool({ name: "stray", inputSchema: { type: "object" } }, () => pluginAnswer("stray", {}) as never)
        .build();
      const client = await connectInProcess(server, { protocolVersion: era }, track);
      const result = await client.callTool("later", {});
      expect(result.content).toEqual([{ type: "text", text: "later 7" }]);
      await expect(client.callTool("stray", {})).rejects.toMatchObject({
        code: -32603,
        message: "Internal error",
      });
    });
  }

  it("adds a plugin's capabilities to its era only, and serves its 2025-11-25 methods there only", async () => {
    const plugin: ServerPlugin = {
      name: "acme",
      capabilities: { [LEGACY_VERSION]: { experimental: { acme: { on: true } } } },
      methods: { [LEGACY_VERSION]: { "acme/ping": (params, call) => ({ pong: params.n, era: call.era }) } },
    };
    const server = echoServer([plugin]);
    expect(server.config.capabilitiesByEra[LEGACY_VERSION].experimental).toEqual({ acme: { on: true } });
    expect(server.config.capabilitiesByEra[MODERN_VERSION].experimental).toBeUndefined();
    const session = server.createLegacySession(async () => {});
    const request = (id: number, method: string, params: { [key: string]: unknown }): JsonRpcRequest => ({
      jsonrpc: "2.0",
      id,
      method,
      params,
    });
    await session.handle(
      request(1, "initialize", { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: serverInfo }),
      {},
    );
    expect(await session.handle(request(2, "acme/ping", { n: 3 }), {})).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { pong: 3, era: LEGACY_VERSION },
    });
    const modern = await server.handleModern(
      request(3, "acme/ping", {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
          "io.modelcontextprotocol/clientInfo": serverInfo,
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      }),
      { notify: async () => {} },
    );
    expect(modern).toMatchObject({ error: { code: -32601 } });
  });

  it("tells plugins of 2025-11-25 sessions opening and closing, and of broadcasts; readies and closes them", async () => {
    const events: string[] = [];
    const plugin: ServerPlugin = {
      name: "watch",
      sessionOpened: (session: PluginSession) => void events.push(`open ${typeof session.id}`),
      sessionClosed: () => void events.push("closed"),
      broadcast: async (message) => void events.push(`broadcast ${message.kind}`),
      ready: async () => void events.push("ready"),
      close: async () => void events.push("close"),
      setup: (host) => void events.push(`setup ${typeof host.deliver}`),
    };
    const server = echoServer([plugin], { listChanged: { tools: true } });
    await server.ready;
    const client = await connectInProcess(server, { protocolVersion: LEGACY_VERSION }, () => {});
    await server.notifyListChanged("tools");
    await client.close();
    await server.close();
    expect(events).toEqual(["setup function", "ready", "open string", "broadcast list", "closed", "close"]);
  });

  it("lets a plugin wrap the handler: its families are what the server advertises", async () => {
    const plugin: ServerPlugin = {
      name: "prompts",
      handler: (base) => ({
        ...base,
        listPrompts: () => ({ prompts: [{ name: "hi" }] }),
        getPrompt: () => ({ messages: [] }),
      }),
    };
    const server = echoServer([plugin]);
    expect(server.capabilities.prompts).toEqual({});
    const client = await connectInProcess(server, {}, track);
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(["hi"]);
  });
});
