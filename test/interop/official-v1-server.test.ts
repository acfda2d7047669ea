/**
 * Interop: the mcpkit client against the official v1 server (`@modelcontextprotocol/sdk` 1.32.2, 2025-11-25
 * only) over one half of the official v1 in-memory pair. Forced 2025-11-25 goes straight to `initialize`;
 * default negotiation must try `server/discover`, get -32601 and fall back to `initialize`. The mcpkit side runs
 * over `fromOfficialTransport`, wrapped in a validating transport that checks every message, both ways.
 */
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { Client, isResourceNotFound, JsonRpcError, McpkitError } from "../../src/client/index.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/message.js";
import { fromOfficialTransport } from "../support/official-bridge.js";
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
const SERVER_INFO = { name: "official-v1", version: "1.32.2" };
const CLIENT_INFO = { name: "mcpkit-interop", version: "0.1.0" };
const INSTRUCTIONS = "Official v1 server for mcpkit interop tests.";

function officialServer(): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  server.registerTool(
    "add",
    { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  server.registerTool("boom", { description: "Always fails" }, async () => {
    throw new Error("kaboom");
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
      argsSchema: {
        name: completable(z.string(), (value) => ["alice", "bob", "alan"].filter((n) => n.startsWith(value))),
        tone: z.string().optional(),
      },
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

/** A low-level v1 server that pages its tools two at a time and adds unknown members. */
function pagedServer(): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const start = request.params?.cursor ? Number(request.params.cursor) : 0;
    const tools = PAGED_TOOLS.slice(start, start + 2);
    const next = start + 2 < PAGED_TOOLS.length ? { nextCursor: String(start + 2) } : {};
    return { tools, ...next, "x-page": start };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({
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
  protocolVersion?: Era;
  factory?: () => McpServer | Server;
}

async function start({ protocolVersion, factory = officialServer }: Setup = {}) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = factory();
  await server.connect(serverSide);
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
    () => server.close(),
  );
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
  return { client, validator, messages, methods, sent, answer };
}

async function connect(setup: Setup = {}) {
  const started = await start(setup);
  const info = await started.client.connect();
  return { ...started, info };
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
  { label: "2025-11-25 (forced)", protocolVersion: LEGACY as Era },
  { label: "default negotiation", protocolVersion: undefined },
];

describe.each(CELLS)("mcpkit Client -> official v1 McpServer, $label", ({ protocolVersion }) => {
  const setup = (extra: Omit<Setup, "protocolVersion"> = {}) =>
    connect(protocolVersion === undefined ? extra : { ...extra, protocolVersion });

  it("connects in 2025-11-25: server info, capabilities, instructions", async () => {
    const { client, info, methods, sent, answer, validator, messages } = await setup();
    expect(info).toMatchObject({ era: LEGACY, protocolVersion: LEGACY, serverInfo: SERVER_INFO });
    expect(client.era).toBe(LEGACY);
    expect(info.instructions).toBe(INSTRUCTIONS);
    expect(info.capabilities).toMatchObject({
      tools: { listChanged: true },
      resources: { listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
    if (protocolVersion === undefined) {
      // The ladder: server/discover first, the v1 server's -32601, then initialize on the same transport.
      expect(methods()).toEqual(["server/discover", "initialize", "notifications/initialized"]);
      expect(answer(sent("server/discover")[0])).toMatchObject({ error: { code: -32601 } });
    } else {
      expect(methods()).toEqual(["initialize", "notifications/initialized"]);
    }
    expect(validator.era).toBe(LEGACY);
    expect(validator.count).toBe(messages.length);
  });

  it("lists tools and calls one", async () => {
    const { client } = await setup();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["add", "boom"]);
    const result = await client.callTool("add", { a: 1.5, b: 2 });
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe("3.5");
  });

  it("reads a text resource and a templated one", async () => {
    const { client } = await setup();
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["config://app"]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["users://{id}"]);
    const config = await client.readResource("config://app");
    expect(config.contents).toEqual([{ uri: "config://app", mimeType: "text/plain", text: "cfg" }]);
    const user = await client.readResource("users://2");
    expect(user.contents).toMatchObject([{ uri: "users://2", text: "user 2" }]);
  });

  it("gets a prompt with arguments", async () => {
    const { client } = await setup();
    const prompt = await client.getPrompt("greet", { name: "bob" });
    expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: "hi bob, plainly" } }]);
  });

  it("completes a prompt argument and a template variable", async () => {
    const { client } = await setup();
    const names = await client.complete({
      ref: { type: "ref/prompt", name: "greet" },
      argument: { name: "name", value: "b" },
    });
    expect(names.completion.values).toEqual(["bob"]);
    const ids = await client.complete({
      ref: { type: "ref/resource", uri: "users://{id}" },
      argument: { name: "id", value: "2" },
    });
    expect(ids.completion.values).toEqual(["2"]);
  });

  it("errors: unknown tool (an isError result from v1), missing resource -32602, a tool that throws", async () => {
    const { client } = await setup();
    // v1 McpServer reports an unknown tool as a tool error result, not a JSON-RPC error.
    const unknown = await client.callTool("nope", {});
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toBe("MCP error -32602: Tool nope not found");

    const missing = await rejection(client.readResource("config://missing"));
    expect(missing).toBeInstanceOf(JsonRpcError);
    expect((missing as JsonRpcError).code).toBe(-32602);
    expect((missing as JsonRpcError).message).toBe("MCP error -32602: Resource config://missing not found");
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
    expect(all[0]).toEqual({ name: "t1", inputSchema: { type: "object" }, "x-vendor": { tool: "t1" } });

    const first = await client.listTools();
    expect(first.tools.map((t) => t.name)).toEqual(["t1", "t2"]);
    expect(first.nextCursor).toBe("2");
    expect((first as { [key: string]: unknown })["x-page"]).toBe(0);

    const result = await client.callTool("t4", {});
    expect((result as { [key: string]: unknown })["x-result"]).toEqual({ kept: true });
    // The v1 server parses its own tools/call result before sending: the content block's unknown member is
    // stripped there (it never reaches the wire); the result's top-level member is kept.
    expect(result.content).toEqual([{ type: "text", text: "t4" }]);
    const wire = answer(sent("tools/call")[0]);
    expect(wire && "result" in wire ? wire.result.content : undefined).toEqual([
      { type: "text", text: "t4" },
    ]);
  });

  it("ping answers in 2025-11-25", async () => {
    const { client } = await setup();
    await expect(client.ping()).resolves.toEqual({});
  });
});

describe("mcpkit Client -> official v1 McpServer, 2026-07-28 forced", () => {
  it("fails with VERSION_NEGOTIATION: no fallback when pinned", async () => {
    const { client, methods } = await start({ protocolVersion: MODERN });
    const error = await rejection(client.connect());
    expect(error).toBeInstanceOf(McpkitError);
    expect((error as McpkitError).code).toBe("VERSION_NEGOTIATION");
    expect(methods()).toEqual(["server/discover"]);
  });
});
