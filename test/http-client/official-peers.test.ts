/**
 * Interop of the mcpkit HTTP client with real official servers on 127.0.0.1:
 * - the official v2 server (`@modelcontextprotocol/server` 2.4.0, `createMcpHandler`) on its Node HTTP adapter
 *   (`@modelcontextprotocol/node`), in both eras;
 * - an official v1 server (`@modelcontextprotocol/sdk` 1.32.2, `StreamableHTTPServerTransport` with sessions)
 *   in 2025-11-25: the ladder falls back, the session's GET stream delivers a list-changed notification, close()
 *   DELETEs the session;
 * - an official v1 server from a release that speaks 2025-03-26 as its newest revision
 *   (`@modelcontextprotocol/sdk-v1-legacy`, npm alias of 1.12.3), over HTTP and over stdio.
 * Every message is checked against the official schema of the era (2025-11-25 for the older rungs).
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport as V1Http } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { Server as V1LegacyServer } from "@modelcontextprotocol/sdk-v1-legacy/server/index.js";
import { StreamableHTTPServerTransport as V1LegacyHttp } from "@modelcontextprotocol/sdk-v1-legacy/server/streamableHttp.js";
import {
  CallToolRequestSchema as LegacyCall,
  ListToolsRequestSchema as LegacyList,
} from "@modelcontextprotocol/sdk-v1-legacy/types.js";
import { createMcpHandler, McpServer as V2McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { runCli } from "../../src/cli/run.js";
import { Client } from "../../src/client/client.js";
import { launchStdio } from "../../src/stdio/launcher.js";
import { fakeIo } from "../cli/fake-io.js";
import { listenOnLoopback, rejection, textOf } from "../support/interop-helpers.js";
import { useWireValidation, wrapTransport } from "../support/validating-transport.js";
import { WireValidator } from "../support/wire-schema.js";
import { httpClient, LEGACY, MODERN, useHttpCleanups } from "./helpers.js";

useWireValidation();
const cleanup = useHttpCleanups();

/** Serves a node:http listener on 127.0.0.1 (a free port) at /mcp; closed after the test. */
async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const port = await listenOnLoopback(createServer(handler), cleanup);
  return `http://127.0.0.1:${port}/mcp`;
}

function v2Server(): V2McpServer {
  const server = new V2McpServer({ name: "official-v2", version: "2.4.0" });
  server.registerTool(
    "add",
    { description: "Adds", inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  return server;
}

describe.each([MODERN, LEGACY] as const)("the official v2 server on its Node HTTP adapter, %s", (era) => {
  it("serves the mcpkit client", async () => {
    const handler = createMcpHandler(() => v2Server());
    cleanup(() => handler.close());
    const url = await listen(toNodeHandler(handler) as unknown as Parameters<typeof listen>[0]);
    const { client } = httpClient(url, { era, ...(era === LEGACY ? { pin: LEGACY } : {}), cleanup });
    const info = await client.connect();
    expect(info.era).toBe(era);
    expect(info.serverInfo?.name).toBe("official-v2");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["add"]);
    expect(textOf(await client.callTool("add", { a: 20, b: 22 }))).toBe("42");
  });
});

/** An official v1 server (1.32.2) with an `echo` tool, on 127.0.0.1: one transport per session, or stateless. */
async function v1HttpServer(stateful: boolean): Promise<string> {
  const transports = new Map<string, V1Http>();
  return listen(async (req, res) => {
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? transports.get(id) : undefined;
    if (transport === undefined) {
      transport = new V1Http(
        stateful
          ? {
              sessionIdGenerator: () => randomUUID(),
              onsessioninitialized: (sid) => void transports.set(sid, transport as V1Http),
            }
          : {}, // no sessionIdGenerator: stateless
      );
      const server = new V1McpServer({ name: "official-v1", version: "1.32.2" });
      server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({
        content: [{ type: "text", text }],
      }));
      await server.connect(transport);
    }
    await transport.handleRequest(req, res);
  });
}

describe.each([
  ["with sessions", true, "Server not initialized"],
  ["stateless", false, "Unsupported protocol version"],
] as const)(
  "an official v1 server (1.32.2) %s: its 400 -32000 to server/discover",
  (_name, stateful, said) => {
    it("is an error by default, naming what it answered and the option, never a silent downgrade", async () => {
      const url = await v1HttpServer(stateful);
      const { client, sent } = httpClient(url, { era: LEGACY, cleanup });
      const error = await rejection(client.connect());
      expect(error).toMatchObject({
        code: "VERSION_NEGOTIATION",
        details: { method: "server/discover", code: -32000, fallback: "none" },
      });
      expect((error as Error).message).toContain(said);
      expect((error as Error).message).toContain('versionFallback: "lenient"');
      expect(sent.map((s) => s.body && "method" in s.body && s.body.method)).toEqual(["server/discover"]);
    });

    it('falls back to 2025-11-25 with versionFallback "lenient"', async () => {
      const url = await v1HttpServer(stateful);
      const { client } = httpClient(url, { era: LEGACY, cleanup, client: { versionFallback: "lenient" } });
      expect(await client.connect()).toMatchObject({ era: LEGACY, serverInfo: { name: "official-v1" } });
      expect(textOf(await client.callTool("echo", { text: "hi" }))).toBe("hi");
    });

    it("is reached by the CLI as it is (--fallback lenient by default); --fallback strict says why not", async () => {
      const url = await v1HttpServer(stateful);
      const reached = fakeIo();
      expect(await runCli([url, "call", "echo", "text=hi"], reached.io)).toBe(ExitCode.OK);
      expect(reached.stdout.text).toContain("hi");
      const strict = fakeIo();
      expect(await runCli([url, "--fallback", "strict", "tools"], strict.io)).toBe(ExitCode.PROTOCOL);
      expect(strict.stderr.text).toContain(said);
    });
  },
);

describe("an official v1 server (1.32.2) with sessions, 2025-11-25", () => {
  it('with versionFallback "lenient": falls back from discover, keeps the session, hears list changes on the GET stream, DELETEs on close', async () => {
    const transports = new Map<string, V1Http>();
    const servers: V1McpServer[] = [];
    let closedSessions = 0;
    const url = await listen(async (req, res) => {
      const id = req.headers["mcp-session-id"];
      let transport = typeof id === "string" ? transports.get(id) : undefined;
      if (transport === undefined) {
        transport = new V1Http({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => void transports.set(sid, transport as V1Http),
          onsessionclosed: () => void closedSessions++,
        });
        const server = new V1McpServer({ name: "official-v1", version: "1.32.2" });
        server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({
          content: [{ type: "text", text }],
        }));
        servers.push(server);
        await server.connect(transport);
      }
      await transport.handleRequest(req, res);
    });
    const notifications: string[] = [];
    const { client, transport, sent } = httpClient(url, {
      era: LEGACY,
      cleanup,
      client: { versionFallback: "lenient", onNotification: (n) => notifications.push(n.method) },
    });
    const info = await client.connect();
    expect(info).toMatchObject({ era: LEGACY, protocolVersion: LEGACY, serverInfo: { name: "official-v1" } });
    expect(transport.sessionId).toBeDefined();
    expect(textOf(await client.callTool("echo", { text: "hi" }))).toBe("hi");
    // The server sends list changes only on an open GET stream: add tools until one arrives (bounded).
    const live = servers.at(-1);
    for (let i = 0; i < 100 && !notifications.includes("notifications/tools/list_changed"); i++) {
      live?.registerTool(`late${i}`, { inputSchema: {} }, async () => ({ content: [] }));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(notifications).toContain("notifications/tools/list_changed");
    expect(sent.some((s) => s.method === "GET" && s.headers["mcp-session-id"] === transport.sessionId)).toBe(
      true,
    );
    const sessionId = transport.sessionId;
    await client.close();
    expect(sent.at(-1)).toMatchObject({ method: "DELETE", headers: { "mcp-session-id": sessionId } });
    expect(closedSessions).toBe(1);
  });
});

/** The 2025-03-26 server's handlers, on the legacy SDK's low-level server. */
function legacyServer(): V1LegacyServer {
  const server = new V1LegacyServer(
    { name: "legacy-v1", version: "1.12.3" },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(LegacyList, async () => ({
    tools: [{ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }],
  }));
  server.setRequestHandler(LegacyCall, async (request) => ({
    content: [{ type: "text", text: `echo ${String(request.params.arguments?.text)}` }],
  }));
  return server;
}

describe("an official v1 server that speaks 2025-03-26 (sdk 1.12.3)", () => {
  it("over HTTP: accepted as a rung, and no MCP-Protocol-Version header is sent", async () => {
    const transports = new Map<string, V1LegacyHttp>();
    const url = await listen(async (req, res) => {
      const id = req.headers["mcp-session-id"];
      let transport = typeof id === "string" ? transports.get(id) : undefined;
      if (transport === undefined) {
        transport = new V1LegacyHttp({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => void transports.set(sid, transport as V1LegacyHttp),
        });
        await legacyServer().connect(transport as never);
      }
      await transport.handleRequest(req, res);
    });
    const { client, transport, sent } = httpClient(url, {
      era: LEGACY,
      cleanup,
      client: { versionFallback: "lenient", acceptOlderVersions: true },
    });
    const info = await client.connect();
    expect(info).toMatchObject({
      era: LEGACY,
      protocolVersion: "2025-03-26",
      serverInfo: { name: "legacy-v1" },
    });
    expect(transport.protocolVersion).toBe("2025-03-26");
    expect(textOf(await client.callTool("echo", { text: "old" }))).toBe("echo old");
    const session = sent.filter((s) => s.headers["mcp-session-id"] !== undefined);
    expect(session.length).toBeGreaterThan(1);
    // Only the opening probe (server/discover, refused with a 400) carried a version header.
    expect(sent[0]?.body).toMatchObject({ method: "server/discover" });
    for (const request of sent.slice(1)) expect(request.headers["mcp-protocol-version"]).toBeUndefined();
  });

  const stdioClient = (options: { acceptOlderVersions?: boolean }) => {
    const script = fileURLToPath(new URL("./fixtures/legacy-v1-server.mjs", import.meta.url));
    const validator = new WireValidator(LEGACY);
    const client = new Client({
      transport: wrapTransport(
        launchStdio({ command: process.execPath, args: [script] }),
        "client",
        validator,
      ),
      clientInfo: { name: "mcpkit-stdio", version: "1.0.0" },
      ...options,
    });
    cleanup(() => client.close());
    return client;
  };

  it("over stdio, by default: refused with VERSION_NEGOTIATION naming acceptOlderVersions", async () => {
    const client = stdioClient({});
    const error = await rejection(client.connect());
    expect(error).toMatchObject({
      code: "VERSION_NEGOTIATION",
      details: { received: "2025-03-26", option: "acceptOlderVersions" },
    });
  });

  it("over stdio, with acceptOlderVersions: accepted as a rung (its -32601 to discover falls back)", async () => {
    const client = stdioClient({ acceptOlderVersions: true });
    const info = await client.connect();
    expect(info).toMatchObject({
      era: LEGACY,
      protocolVersion: "2025-03-26",
      serverInfo: { name: "legacy-v1" },
    });
    expect(textOf(await client.callTool("echo", { text: "piped" }))).toBe("echo piped");
  });
});
