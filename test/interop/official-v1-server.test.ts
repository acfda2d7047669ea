/**
 * Interop: the mcpkit client against the official v1 server (`@modelcontextprotocol/sdk` 1.32.2, 2025-11-25
 * only) over one half of the official v1 in-memory pair. Forced 2025-11-25 goes straight to `initialize`;
 * default negotiation must try `server/discover`, get -32601 and fall back to `initialize`. The mcpkit side runs
 * over `fromOfficialTransport`, wrapped in a validating transport that checks every message, both ways. The
 * cases shared with the v2 server are in `../support/interop-official-server-cases.ts`; what is v1's own is here.
 */
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { McpkitError } from "../../src/client/index.js";
import { LEGACY, MODERN, rejection } from "../support/interop-helpers.js";
import type { OfficialServerFlavour, ServerCell } from "../support/interop-official-server-cases.js";
import { describeMcpkitClient, hostConnected, OFFICIAL } from "../support/interop-official-server-cases.js";
import { useWireValidation } from "../support/validating-transport.js";

useWireValidation();

const V1: OfficialServerFlavour = {
  title: "official v1 McpServer",
  serverInfo: { name: "official-v1", version: "1.32.2" },
  instructions: "Official v1 server for mcpkit interop tests.",
  // v1 McpServer reports an unknown tool as a tool error result, not a JSON-RPC error.
  unknownTool: { isErrorText: "MCP error -32602: Tool nope not found" },
  missingResource: { message: "MCP error -32602: Resource config://missing not found" },
};

function officialServer(): McpServer {
  const server = new McpServer(V1.serverInfo, { instructions: V1.instructions });
  const { add, double, boom, slow, config, users, greet } = OFFICIAL;
  server.registerTool("add", add.config, add.run);
  server.registerTool("double", double.config, double.run);
  server.registerTool("boom", boom.config, boom.run);
  server.registerTool("slow", slow.config, (extra) => slow.run(extra.signal));
  server.registerResource("config", config.uri, config.metadata, config.read);
  const template = new ResourceTemplate(users.uriTemplate, {
    list: undefined,
    complete: { id: users.completeId },
  });
  server.registerResource("user", template, users.metadata, users.read);
  // v1 takes a prompt's arguments as a raw zod shape.
  const argsSchema = { name: completable(z.string(), greet.completeName), tone: z.string().optional() };
  server.registerPrompt("greet", { description: greet.description, argsSchema }, greet.run);
  return server;
}

/** A low-level v1 server that pages its tools two at a time and adds unknown members. */
function pagedServer(): Server {
  const server = new Server(V1.serverInfo, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async (request) =>
    OFFICIAL.toolsPage(request.params?.cursor),
  );
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    OFFICIAL.toolResult(request.params.name),
  );
  return server;
}

const host = async (kind: "fixture" | "paged") => {
  const server = kind === "paged" ? pagedServer() : officialServer();
  const protocol = server instanceof McpServer ? server.server : server;
  return hostConnected(InMemoryTransport.createLinkedPair(), server, protocol);
};

const CELLS: ServerCell[] = [
  { label: "2025-11-25 (forced)", host, protocolVersion: LEGACY, era: LEGACY },
  { label: "default negotiation", host, era: LEGACY },
];

const harness = describeMcpkitClient(V1, CELLS);

describe("mcpkit Client -> official v1 McpServer, 2026-07-28 forced", () => {
  it("fails with VERSION_NEGOTIATION: no fallback when pinned", async () => {
    const { client, methods } = await harness.start({ host, protocolVersion: MODERN });
    const error = await rejection(client.connect());
    expect(error).toBeInstanceOf(McpkitError);
    expect((error as McpkitError).code).toBe("VERSION_NEGOTIATION");
    expect(methods()).toEqual(["server/discover"]);
  });
});
