/**
 * Interop over a real subprocess: an mcpkit Client launches `@modelcontextprotocol/server-everything` (the
 * reference server, built on the official SDK v1, 2025-11-25 only) in stdio mode through the mcpkit stdio
 * launcher. The client prefers 2026-07-28, gets -32601 for `server/discover` and falls back to 2025-11-25. Every
 * message is checked against the official schema of its era by a validating wrapper around the launcher's
 * transport (an auto validator: the probe as 2026-07-28, everything from `initialize` on as 2025-11-25).
 */
import { createRequire } from "node:module";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { isErrorResponse } from "../../src/jsonrpc/message.js";
import { launchStdio } from "../../src/stdio/index.js";
import {
  useWireValidation,
  type WireRecord,
  WireValidator,
  wrapTransport,
} from "../support/validating-transport.js";

useWireValidation();

const require = createRequire(import.meta.url);
/** server-everything's CLI: `node dist/index.js stdio` (stdio is also its default). */
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const LEGACY = "2025-11-25";

const open: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((client) => client.close()));
});

async function connect() {
  let stderr = "";
  const launched = launchStdio({
    command: process.execPath,
    args: [EVERYTHING, "stdio"],
    policy: { stderr: "capture", shutdownTimeoutMs: 2_000 },
    onStderr: (text) => {
      stderr += text;
    },
  });
  const validator = WireValidator.auto();
  const messages: WireRecord[] = [];
  const client = new Client({
    transport: wrapTransport(launched, "client", validator, { messages }),
    clientInfo: { name: "mcpkit-stdio-interop", version: "0.1.0" },
  });
  const info = await client.connect();
  return { client, launched, info, validator, messages, stderr: () => stderr };
}

describe("mcpkit Client -> @modelcontextprotocol/server-everything over the stdio launcher", () => {
  // One server for the read-only cells (server-everything takes a while to start); the close test has its own.
  let shared: Awaited<ReturnType<typeof connect>>;
  beforeAll(async () => {
    shared = await connect();
  });
  afterAll(() => shared.client.close());

  it("falls back to 2025-11-25 after server/discover is refused with -32601", async () => {
    const { info, validator, messages, stderr } = shared;
    expect(info.era).toBe(LEGACY);
    expect(info.protocolVersion).toBe(LEGACY);
    expect(info.serverInfo?.name).toBe("mcp-servers/everything");
    expect(info.capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    const sequence = messages.slice(0, 5).map((r) => ("method" in r.message ? r.message.method : "response"));
    expect(sequence).toEqual([
      "server/discover",
      "response",
      "initialize",
      "response",
      "notifications/initialized",
    ]);
    const refusal = messages[1]?.message;
    expect(refusal && isErrorResponse(refusal) ? refusal.error.code : undefined).toBe(-32601);
    expect(validator.era).toBe(LEGACY);
    expect(validator.count).toBe(messages.length);
    expect(shared.launched.pid).toEqual(expect.any(Number));
    // Captured stderr reaches only the handler given at launch.
    expect(stderr()).toContain("Starting default (STDIO) server");
  });

  it("lists and calls tools", async () => {
    const { client } = shared;
    const tools = await client.listAllTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["echo", "get-sum", "get-structured-content"]));
    const echo = await client.callTool("echo", { message: "over stdio" });
    expect(echo.content).toEqual([{ type: "text", text: "Echo: over stdio" }]);
    const sum = await client.callTool("get-sum", { a: 19, b: 23 });
    expect(sum.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("42") });
    const invalid = await client.callTool("get-sum", { a: "nineteen" });
    expect(invalid.isError).toBe(true);
  });

  it("lists and reads resources and templates", async () => {
    const { client } = shared;
    const resources = await client.listAllResources();
    const architecture = resources.find((r) => r.uri.endsWith("/architecture.md"));
    expect(architecture?.uri).toBe("demo://resource/static/document/architecture.md");
    const read = await client.readResource(architecture?.uri ?? "");
    expect(read.contents[0]).toMatchObject({ uri: architecture?.uri, mimeType: "text/markdown" });
    const templates = await client.listAllResourceTemplates();
    expect(templates.map((t) => t.uriTemplate)).toContain("demo://resource/dynamic/text/{resourceId}");
    const dynamic = await client.readResource("demo://resource/dynamic/text/3");
    expect(dynamic.contents[0]).toMatchObject({ uri: "demo://resource/dynamic/text/3" });
  });

  it("lists prompts and gets them, with and without arguments", async () => {
    const { client } = shared;
    const prompts = await client.listAllPrompts();
    expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(["simple-prompt", "args-prompt"]));
    const simple = await client.getPrompt("simple-prompt");
    expect(simple.messages[0]?.role).toBe("user");
    const args = await client.getPrompt("args-prompt", { city: "Paris" });
    expect(args.messages).toEqual([
      { role: "user", content: { type: "text", text: "What's weather in Paris?" } },
    ]);
  });

  it("closes: the server's process group is gone", async () => {
    const { client, launched } = await connect();
    open.push(client);
    const pid = launched.pid as number;
    expect(pid).toEqual(expect.any(Number));
    await client.close();
    expect(launched.cleanupReport).toMatchObject({ trigger: "close", survivors: [] });
    expect(launched.cleanupReport?.rootExit).toBeDefined();
    expect(() => process.kill(-pid, 0)).toThrow();
  });
});
