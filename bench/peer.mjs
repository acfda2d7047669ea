/**
 * A benchmark server in its own process. `node bench/peer.mjs stdio <impl>` serves on stdin/stdout;
 * `node bench/peer.mjs http <impl> <era>` (forked, with an IPC channel) listens on 127.0.0.1, reports
 * `{ port }`, and answers `{ type: "memory" }` with its memory use after a forced GC (needs --expose-gc).
 * impl: mcpkit | v1 | v2 | floor (bare JSON: a line echo on stdio, a `node:http` JSON echo on HTTP).
 * Flags after the positionals, for mcpkit (bench/compare.mjs): `--kit=<package dir>` serves that build of mcpkit
 * instead of this checkout's; `--plain` serves `plainServer` (the `add` tool only, on APIs every build has)
 * instead of `mcpkitServer`; `--no-validate` passes `validate: false` to it.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { createInterface } from "node:readline";
import { NodeStreamableHTTPServerTransport, toNodeHandler } from "@modelcontextprotocol/node";
import { StdioServerTransport as V1StdioTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { serveStdio as v2ServeStdio } from "@modelcontextprotocol/server/stdio";
import { loadKit } from "./kit.mjs";
import { floorAnswer, LEGACY, mcpkitServer, plainServer, v1Server, v2Server } from "./servers.mjs";

const argv = process.argv.slice(2);
const [mode, impl, era] = argv.filter((arg) => !arg.startsWith("--"));
const kitRoot = argv.find((arg) => arg.startsWith("--kit="))?.slice("--kit=".length);
const kit = impl === "mcpkit" ? await loadKit(kitRoot) : undefined;
const makeMcpkitServer = () =>
  argv.includes("--plain")
    ? plainServer(kit.server, argv.includes("--no-validate") ? false : undefined)
    : mcpkitServer(kit.server);

function stdioFloor() {
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    if (line === "") return;
    process.stdout.write(`${JSON.stringify(floorAnswer(JSON.parse(line)))}\n`);
  });
}

async function serveStdioPeer() {
  if (impl === "mcpkit") await kit.stdio.serveStdio(makeMcpkitServer());
  else if (impl === "v1") await v1Server().connect(new V1StdioTransport());
  else if (impl === "v2") v2ServeStdio(() => v2Server());
  else stdioFloor();
}

/** A node:http listener that reads the whole body and hands it over as text. */
function bodyListener(handle) {
  return (req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => handle(req, res, body));
  };
}

/** Official SDK sessions (2025-11-25): one server and transport per session, as their docs show. */
function sessionListener(makeTransport, makeServer) {
  const transports = new Map();
  return async (req, res) => {
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? transports.get(id) : undefined;
    if (transport === undefined) {
      transport = makeTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void transports.set(sid, transport),
        onsessionclosed: (sid) => void transports.delete(sid),
      });
      await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res);
  };
}

async function listenHttp() {
  let listener;
  if (impl === "mcpkit") {
    // The memory section opens thousands of sessions from one address; the official SDKs cap neither.
    const sessions = { maxSessions: 100_000, maxSessionsPerAddress: 100_000 };
    const start = (limits) =>
      kit.node.serve(makeMcpkitServer(), { host: "127.0.0.1", port: 0, handler: { sessions: limits } });
    let handle;
    try {
      handle = await start(sessions);
    } catch (error) {
      // Builds from before the per-address cap refuse the key; they have no such cap to lift.
      if (!String(error?.message).includes("maxSessionsPerAddress")) throw error;
      handle = await start({ maxSessions: sessions.maxSessions });
    }
    return handle.server.address().port;
  }
  if (impl === "v1") {
    listener = sessionListener((options) => new V1HttpTransport(options), v1Server);
  } else if (impl === "v2" && era === LEGACY) {
    listener = sessionListener((options) => new NodeStreamableHTTPServerTransport(options), v2Server);
  } else if (impl === "v2") {
    listener = toNodeHandler(createMcpHandler(() => v2Server()));
  } else {
    listener = bodyListener((_req, res, body) => {
      const text = JSON.stringify(floorAnswer(JSON.parse(body)));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(text);
    });
  }
  const server = createServer(listener);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server.address().port;
}

if (mode === "stdio") {
  await serveStdioPeer();
} else {
  const port = await listenHttp();
  process.on("message", (message) => {
    if (message?.type !== "memory") return;
    for (let i = 0; i < 3; i++) globalThis.gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    process.send({ type: "memory", rss, heapUsed, gc: typeof globalThis.gc === "function" });
  });
  process.on("disconnect", () => process.exit(0));
  process.send({ type: "ready", port });
}
