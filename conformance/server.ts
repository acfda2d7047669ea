// The conformance fixture server over Streamable HTTP, built only on mcpkit's public entry points.
//
//   node .conformance-out/server.js [port]      (port from argv, else $CONFORMANCE_PORT, else 0 = ephemeral)
//
// CONFORMANCE_SINGLE_USE_STATE=1 builds the fixture with single-use requestState (`singleUseState: true`).
//
// Listens on 127.0.0.1 and prints the MCP endpoint URL as the first line of stdout, and the Skills fixture's
// endpoint (its own port) as the second; stops on SIGINT/SIGTERM.
import { createHttpHandler } from "mcpkit/http";
import { serve } from "mcpkit/node";
import { buildFixture } from "./fixtures/server.js";
import { buildSkillsFixture } from "./fixtures/skills.js";

function portFromArgs(): number {
  const raw = process.argv[2] ?? process.env.CONFORMANCE_PORT ?? "0";
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`conformance server: bad port ${JSON.stringify(raw)}`);
  }
  return port;
}

const { server, toolSchemas } = buildFixture({
  singleUseState: process.env.CONFORMANCE_SINGLE_USE_STATE === "1",
});
// The Web-standard handler, mounted by the node:http adapter (the same handler runs on any fetch runtime).
const handler = createHttpHandler(server, { toolSchemas });
const running = await serve(handler, { host: "127.0.0.1", port: portFromArgs(), path: "/mcp" });
const skillsServer = await buildSkillsFixture();
const skillsHandler = createHttpHandler(skillsServer);
const skillsRunning = await serve(skillsHandler, { host: "127.0.0.1", port: 0, path: "/mcp" });
console.log(running.url);
console.log(skillsRunning.url);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await running.close();
  await skillsRunning.close();
  await handler.close();
  await skillsHandler.close();
  await server.close();
  await skillsServer.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
