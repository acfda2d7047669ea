/**
 * Interop: the mcpkit client against the official v2 server (`@modelcontextprotocol/server` 2.4.0), served
 * dual-era through `serveStdio(factory, { transport })` over one half of the official in-memory pair. The era is
 * forced with the mcpkit client's `protocolVersion` option, and once left to default negotiation (which must
 * pick 2026-07-28 against this server). The mcpkit side runs over `fromOfficialTransport`, wrapped in a
 * validating transport that checks every message, both ways, against the official schema of its era.
 */
import {
  completable,
  InMemoryTransport,
  McpServer,
  ResourceTemplate,
  Server,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { Client, isResourceNotFound, JsonRpcError, McpkitError } from "../../src/client/index.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/message.js";
import { fromOfficialTransport } from "../support/official-bridge.js";
import { until } from "../support/until.js";
import {
  type Era,
  useWireValidation,
  type WireRecord,
  WireValidator,
  wrapTransport,
} from "../support/validating-transport.js";

useWireValidation();

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const SERVER_INFO = { name: "official-v2", version: "2.4.0" };
const CLIENT_INFO = { name: "mcpkit-interop", version: "0.1.0" };
const INSTRUCTIONS = "Official v2 server for mcpkit interop tests.";

/** Why each call of the official server's `slow` tool was aborted. */
const cancelledCalls: unknown[] = [];

/** A high-level official server: the same factory serves both eras. */
function officialServer(): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  server.registerTool(
    "add",
    { description: "Adds two numbers", inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  server.registerTool(
    "double",
    { inputSchema: z.object({ n: z.number() }), outputSchema: z.object({ doubled: z.number() }) },
    async ({ n }) => ({
      content: [{ type: "text", text: String(2 * n) }],
      structuredContent: { doubled: 2 * n },
    }),
  );
  server.registerTool("boom", { description: "Always fails" }, async () => {
    throw new Error("kaboom");
  });
  server.registerTool("slow", { description: "Waits until cancelled" }, async (ctx) => {
    const signal = ctx.mcpReq.signal;
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    });
    cancelledCalls.push(signal.reason);
    return { content: [{ type: "text", text: "cancelled" }] };
  });
  server.registerResource("config", "config://app", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "text/plain", text: "cfg" }],
  }));
  server.registerResource(
    "user",
    new ResourceTemplate("users://{id}", {
      list: undefined,
      complete: { id: (value) => ["1", "2", "12"].filter((id) => id.startsWith(value)) },
    }),
    { mimeType: "text/plain" },
    async (uri, variables) => ({ contents: [{ uri: uri.href, text: `user ${String(variables.id)}` }] }),
  );
  server.registerPrompt(
    "greet",
    {
      description: "Greets someone",
      argsSchema: z.object({
        name: completable(z.string(), (value) => ["alice", "bob", "alan"].filter((n) => n.startsWith(value))),
        tone: z.string().optional(),
      }),
    },
    ({ name, tone }) => ({
      messages: [{ role: "user", content: { type: "text", text: `hi ${name}, ${tone ?? "plainly"}` } }],
    }),
  );
  return server;
}

const PAGED_TOOLS = ["t1", "t2", "t3", "t4", "t5"].map((name) => ({
  name,
  inputSchema: { type: "object" as const },
  "x-vendor": { tool: name },
}));

/** A low-level official server that pages its tools two at a time and adds unknown members. */
function pagedServer(): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", async (request) => {
    const start = request.params?.cursor ? Number(request.params.cursor) : 0;
    const tools = PAGED_TOOLS.slice(start, start + 2);
    const next = start + 2 < PAGED_TOOLS.length ? { nextCursor: String(start + 2) } : {};
    return { tools, ...next, "x-page": start };
  });
  server.setRequestHandler("tools/call", async (request) => ({
    content: [{ type: "text", text: request.params.name, "x-content": 1 }],
    "x-result": { kept: true },
  }));
  return server;
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.allSettled(cleanups.splice(0).map((cleanup) => cleanup()));
});

interface Setup {
  /** Force an era with the client's `protocolVersion`; absent: default negotiation. */
  protocolVersion?: Era;
  factory?: () => McpServer | Server;
}

async function connect({ protocolVersion, factory = officialServer }: Setup = {}) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const serverErrors: Error[] = [];
  const handle = serveStdio(factory, { transport: serverSide, onerror: (e) => serverErrors.push(e) });
  const validator = protocolVersion === undefined ? WireValidator.auto() : new WireValidator(protocolVersion);
  const messages: WireRecord[] = [];
  const transport = wrapTransport(fromOfficialTransport(clientSide), "client", validator, { messages });
  const client = new Client({
    transport,
    clientInfo: CLIENT_INFO,
    ...(protocolVersion === undefined ? {} : { protocolVersion }),
    requestTimeoutMs: 5_000,
    connectTimeoutMs: 5_000,
  });
  cleanups.push(
    () => client.close(),
    () => handle.close(),
  );
  const info = await client.connect();
  const methods = () =>
    messages.flatMap((r) => (r.from === "client" && "method" in r.message ? [r.message.method] : []));
  const sent = (method: string) =>
    messages.flatMap((r) =>
      r.from === "client" && "method" in r.message && "id" in r.message && r.message.method === method
        ? [r.message]
        : [],
    );
  const answer = (request: JsonRpcMessage | undefined): JsonRpcMessage | undefined =>
    request && "id" in request
      ? messages.find((r) => r.from === "server" && !("method" in r.message) && r.message.id === request.id)
          ?.message
      : undefined;
  return { client, info, validator, messages, methods, sent, answer, serverErrors };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

/** The text of a result's first content block, if it is a text block. */
function textOf(result: unknown): string | undefined {
  const content = (result as { content?: Array<{ type?: string; text?: string }> }).content;
  const first = content?.[0];
  return first?.type === "text" ? first.text : undefined;
}

const CELLS = [
  { label: "2026-07-28 (forced)", protocolVersion: MODERN as Era, era: MODERN as Era },
  { label: "2025-11-25 (forced)", protocolVersion: LEGACY as Era, era: LEGACY as Era },
  { label: "default negotiation", protocolVersion: undefined, era: MODERN as Era },
];

describe.each(CELLS)(
  "mcpkit Client -> official v2 server (serveStdio), $label",
  ({ protocolVersion, era }) => {
    const setup = (extra: Omit<Setup, "protocolVersion"> = {}) =>
      connect(protocolVersion === undefined ? extra : { ...extra, protocolVersion });

    it("connects: era, server info, capabilities, instructions", async () => {
      const { client, info, methods, validator, messages, serverErrors } = await setup();
      expect(info.era).toBe(era);
      expect(info.protocolVersion).toBe(era);
      expect(client.era).toBe(era);
      expect(info.serverInfo).toEqual(SERVER_INFO);
      expect(info.instructions).toBe(INSTRUCTIONS);
      expect(info.capabilities).toMatchObject({
        tools: { listChanged: true },
        resources: { listChanged: true },
        prompts: { listChanged: true },
        completions: {},
      });
      if (era === MODERN) {
        expect(methods()).toEqual(["server/discover"]);
        expect(info.supportedVersions).toEqual([MODERN]);
        expect(info.cache).toEqual({ ttlMs: 0, cacheScope: "private" });
      } else {
        expect(methods()).toEqual(["initialize", "notifications/initialized"]);
        expect(info.supportedVersions).toBeUndefined();
      }
      expect(validator.era).toBe(era);
      expect(validator.count).toBe(messages.length);
      expect(serverErrors).toEqual([]);
    });

    it("lists tools and calls one", async () => {
      const { client } = await setup();
      const { tools, nextCursor } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["add", "double", "boom", "slow"]);
      expect(nextCursor).toBeUndefined();
      const result = await client.callTool("add", { a: 2, b: 40 });
      expect(result.isError).toBeUndefined();
      expect(textOf(result)).toBe("42");
      const doubled = await client.callTool("double", { n: 21 });
      expect(doubled.structuredContent).toEqual({ doubled: 42 });
      if (era === MODERN) expect(doubled.resultType).toBe("complete");
      else expect("resultType" in doubled).toBe(false);
    });

    it("reads a text resource and a templated one", async () => {
      const { client } = await setup();
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual(["config://app"]);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["users://{id}"]);
      const config = await client.readResource("config://app");
      expect(config.contents).toEqual([{ uri: "config://app", mimeType: "text/plain", text: "cfg" }]);
      if (era === MODERN) expect(config).toMatchObject({ ttlMs: 0, cacheScope: "private" });
      const user = await client.readResource("users://7");
      expect(user.contents).toMatchObject([{ uri: "users://7", text: "user 7" }]);
    });

    it("gets a prompt with arguments", async () => {
      const { client } = await setup();
      const { prompts } = await client.listPrompts();
      expect(prompts).toMatchObject([
        {
          name: "greet",
          description: "Greets someone",
          arguments: [
            { name: "name", required: true },
            { name: "tone", required: false },
          ],
        },
      ]);
      const prompt = await client.getPrompt("greet", { name: "ada", tone: "warmly" });
      expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: "hi ada, warmly" } }]);
    });

    it("completes a prompt argument and a template variable", async () => {
      const { client } = await setup();
      const names = await client.complete({
        ref: { type: "ref/prompt", name: "greet" },
        argument: { name: "name", value: "al" },
      });
      expect(names.completion.values).toEqual(["alice", "alan"]);
      const ids = await client.complete({
        ref: { type: "ref/resource", uri: "users://{id}" },
        argument: { name: "id", value: "1" },
      });
      expect(ids.completion.values).toEqual(["1", "12"]);
    });

    it("errors: unknown tool, missing resource, a tool that throws", async () => {
      const { client } = await setup();
      const unknown = await rejection(client.callTool("nope", {}));
      expect(unknown).toBeInstanceOf(JsonRpcError);
      expect((unknown as JsonRpcError).code).toBe(-32602);
      expect((unknown as JsonRpcError).message).toBe("Tool nope not found");

      // The official v2 server sends -32602 with data.uri in both eras (it never sends -32002).
      const missing = await rejection(client.readResource("config://missing"));
      expect(missing).toBeInstanceOf(JsonRpcError);
      expect((missing as JsonRpcError).code).toBe(-32602);
      expect((missing as JsonRpcError).data).toEqual({ uri: "config://missing" });
      expect(isResourceNotFound(missing)).toBe(true);

      const failed = await client.callTool("boom", {});
      expect(failed.isError).toBe(true);
      expect(textOf(failed)).toBe("kaboom");
    });

    it("walks a low-level server's pages with listAllTools; unknown members survive", async () => {
      const { client, sent, answer } = await setup({ factory: pagedServer });
      const all = await client.listAllTools();
      expect(all.map((t) => t.name)).toEqual(["t1", "t2", "t3", "t4", "t5"]);
      expect(sent("tools/list").map((r) => r.params?.cursor)).toEqual([undefined, "2", "4"]);
      // The mcpkit client keeps what it receives: the official server passed these members through.
      expect(all[0]).toEqual({ name: "t1", inputSchema: { type: "object" }, "x-vendor": { tool: "t1" } });

      const first = await client.listTools();
      expect(first.nextCursor).toBe("2");
      expect((first as { [key: string]: unknown })["x-page"]).toBe(0);
      const last = await client.listTools({ cursor: "4" });
      expect(last.tools.map((t) => t.name)).toEqual(["t5"]);
      expect(last.nextCursor).toBeUndefined();

      const result = await client.callTool("t3", {});
      expect((result as { [key: string]: unknown })["x-result"]).toEqual({ kept: true });
      // The official server parses its own tools/call result before sending: the unknown member of the content
      // block is stripped there (it never reaches the wire); the result's top-level member is kept.
      expect(result.content).toEqual([{ type: "text", text: "t3" }]);
      const wire = answer(sent("tools/call")[0]);
      expect(wire && "result" in wire ? wire.result.content : undefined).toEqual([
        { type: "text", text: "t3" },
      ]);
    });

    it("a client-side timeout sends notifications/cancelled, which aborts the official handler", async () => {
      const { client, sent, messages } = await setup();
      cancelledCalls.length = 0;
      const timedOut = await rejection(client.callTool("slow", {}, { timeoutMs: 30 }));
      expect(timedOut).toBeInstanceOf(McpkitError);
      expect((timedOut as McpkitError).code).toBe("TIMEOUT");
      await until(() => cancelledCalls.length === 1);
      const cancelled = messages.find(
        (r) => "method" in r.message && r.message.method === "notifications/cancelled",
      );
      expect(cancelled?.message).toMatchObject({ params: { requestId: sent("tools/call")[0]?.id } });
      // mcpkit's cancellation carries no _meta in either era (a 2026 notification's _meta is optional); the
      // official server honours it all the same.
    });

    it("ping exists only in 2025-11-25", async () => {
      const { client, sent } = await setup();
      if (era === LEGACY) {
        await expect(client.ping()).resolves.toEqual({});
      } else {
        const refused = await rejection(client.ping());
        expect(refused).toBeInstanceOf(McpkitError);
        expect((refused as McpkitError).code).toBe("UNSUPPORTED");
        expect(sent("ping")).toEqual([]);
      }
    });
  },
);

describe("mcpkit Client -> official v2 McpServer wired by hand (2025-only)", () => {
  it("default negotiation falls back: server/discover gets -32601, then initialize", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = officialServer();
    await server.connect(serverSide);
    const validator = WireValidator.auto();
    const messages: WireRecord[] = [];
    const client = new Client({
      transport: wrapTransport(fromOfficialTransport(clientSide), "client", validator, { messages }),
      clientInfo: CLIENT_INFO,
      connectTimeoutMs: 5_000,
    });
    cleanups.push(
      () => client.close(),
      () => server.close(),
    );
    const info = await client.connect();
    expect(info).toMatchObject({ era: LEGACY, protocolVersion: LEGACY, serverInfo: SERVER_INFO });
    expect(messages.map((r) => ("method" in r.message ? r.message.method : "response"))).toEqual([
      "server/discover",
      "response",
      "initialize",
      "response",
      "notifications/initialized",
    ]);
    expect(messages[1]?.message).toMatchObject({ error: { code: -32601 } });
    const result = await client.callTool("add", { a: 1, b: 2 });
    expect(textOf(result)).toBe("3");
  });
});
