/**
 * Interop: the mcpkit client against the official v2 server (`@modelcontextprotocol/server` 2.4.0), served
 * dual-era through `serveStdio(factory, { transport })` over one half of the official in-memory pair. The era is
 * forced with the mcpkit client's `protocolVersion` option, and once left to default negotiation (which must
 * pick 2026-07-28 against this server). An `McpServer` wired by hand (`server.connect`) speaks 2025-11-25 only,
 * so default negotiation must fall back to it. The mcpkit side runs over `fromOfficialTransport`, wrapped in a
 * validating transport that checks every message, both ways, against the official schema of its era. The cases
 * shared with the v1 server are in `../support/interop-official-server-cases.ts`.
 */
import {
  completable,
  InMemoryTransport,
  McpServer,
  ResourceTemplate,
  Server,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";
import { LEGACY, MODERN } from "../support/interop-helpers.js";
import type { OfficialServerFlavour, ServerCell } from "../support/interop-official-server-cases.js";
import { describeMcpkitClient, hostConnected, OFFICIAL } from "../support/interop-official-server-cases.js";
import { useWireValidation } from "../support/validating-transport.js";

useWireValidation();

const V2: OfficialServerFlavour = {
  title: "official v2 server",
  serverInfo: { name: "official-v2", version: "2.4.0" },
  instructions: "Official v2 server for mcpkit interop tests.",
  unknownTool: { error: { code: -32602, message: "Tool nope not found" } },
  missingResource: { message: "Resource not found: config://missing", data: { uri: "config://missing" } },
};

/** A high-level official server: the same factory serves both eras. */
function officialServer(): McpServer {
  const server = new McpServer(V2.serverInfo, { instructions: V2.instructions });
  const { add, double, boom, slow, config, users, greet } = OFFICIAL;
  server.registerTool("add", add.config, add.run);
  server.registerTool("double", double.config, double.run);
  server.registerTool("boom", boom.config, boom.run);
  server.registerTool("slow", slow.config, (ctx) => slow.run(ctx.mcpReq.signal));
  server.registerResource("config", config.uri, config.metadata, config.read);
  const template = new ResourceTemplate(users.uriTemplate, {
    list: undefined,
    complete: { id: users.completeId },
  });
  server.registerResource("user", template, users.metadata, users.read);
  // v2 takes a prompt's arguments as a schema object.
  const argsSchema = z.object({
    name: completable(z.string(), greet.completeName),
    tone: z.string().optional(),
  });
  server.registerPrompt("greet", { description: greet.description, argsSchema }, greet.run);
  return server;
}

/** A low-level official server that pages its tools two at a time and adds unknown members. */
function pagedServer(): Server {
  const server = new Server(V2.serverInfo, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", async (request) => OFFICIAL.toolsPage(request.params?.cursor));
  server.setRequestHandler("tools/call", async (request) => OFFICIAL.toolResult(request.params.name));
  return server;
}

/** Dual-era: `serveStdio` builds a server from the factory for each connection and answers `server/discover`. */
const served = async (kind: "fixture" | "paged") => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const errors: Error[] = [];
  const factory = kind === "paged" ? pagedServer : officialServer;
  const handle = serveStdio(factory, { transport: serverSide, onerror: (e) => errors.push(e) });
  return { clientSide, close: () => handle.close(), errors };
};

/** 2025-11-25 only: a server connected to its transport by hand answers `server/discover` with -32601. */
const wiredByHand = async (kind: "fixture" | "paged") => {
  const server = kind === "paged" ? pagedServer() : officialServer();
  const protocol = server instanceof McpServer ? server.server : server;
  return hostConnected(InMemoryTransport.createLinkedPair(), server, protocol);
};

const CELLS: ServerCell[] = [
  { label: "serveStdio, 2026-07-28 (forced)", host: served, protocolVersion: MODERN, era: MODERN },
  { label: "serveStdio, 2025-11-25 (forced)", host: served, protocolVersion: LEGACY, era: LEGACY },
  { label: "serveStdio, default negotiation", host: served, era: MODERN },
  { label: "wired by hand, default negotiation", host: wiredByHand, era: LEGACY },
];

describeMcpkitClient(V2, CELLS);
