/**
 * `npm run bench:gateway`: the per-call cost of the gateway, in one run. The same stdio upstream (an mcpkit
 * server, test/fixtures/stdio/mcp-server.mjs, its `add` tool) is called directly by an mcpkit client, and
 * through `createGateway` by a client in process and by one over Streamable HTTP on 127.0.0.1, both eras.
 * Sequential calls (latency: p50, p99) then 16 concurrent callers (calls/s). Then the same upstream exposed over
 * Streamable HTTP by supergateway (--stateful) and mcp-proxy, next to `mcpkit gateway`, each its own process,
 * called by the same mcpkit client in 2025-11-25. Uses the built package (dist/).
 * Env: BENCH_CALLS (default 2,000 per row).
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "../dist/client/index.js";
import { createGateway } from "../dist/gateway/index.js";
import { StreamableHttpClientTransport } from "../dist/http/index.js";
import { createInProcessPair } from "../dist/index.js";
import { nodeHttp, serve } from "../dist/node/index.js";
import { launchStdio } from "../dist/stdio/index.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 2_000);
const UPSTREAM = fileURLToPath(new URL("../test/fixtures/stdio/mcp-server.mjs", import.meta.url));
const clientInfo = { name: "bench", version: "1" };

async function measure(client, tool) {
  const args = { a: 1, b: 2 };
  for (let i = 0; i < 200; i++) await client.callTool(tool, args);
  const times = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    await client.callTool(tool, args);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const pick = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  let left = CALLS;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (left-- > 0) await client.callTool(tool, args);
    }),
  );
  const rate = CALLS / ((performance.now() - start) / 1000);
  return { p50: pick(0.5), p99: pick(0.99), rate };
}

const row = (name, { p50, p99, rate }) =>
  console.log(
    `${name.padEnd(44)} p50 ${p50.toFixed(3)} ms  p99 ${p99.toFixed(3)} ms  ${Math.round(rate)} calls/s`,
  );

for (const era of ["2026-07-28", "2025-11-25"]) {
  const direct = new Client({
    transport: launchStdio({ command: process.execPath, args: [UPSTREAM] }),
    clientInfo,
    protocolVersion: era,
  });
  await direct.connect();
  row(`direct stdio (${era})`, await measure(direct, "add"));
  await direct.close();

  const gateway = createGateway({
    config: {
      mcpServers: { up: { command: process.execPath, args: [UPSTREAM], start: "boot", maxConcurrent: 32 } },
    },
  });
  await gateway.ready;
  const [clientSide, serverSide] = createInProcessPair();
  await gateway.connect(serverSide);
  const inProcess = new Client({ transport: clientSide, clientInfo, protocolVersion: era });
  await inProcess.connect();
  row(`gateway in process -> stdio (${era})`, await measure(inProcess, "up__add"));
  await inProcess.close();

  const handle = await serve(gateway);
  const overHttp = new Client({
    transport: new StreamableHttpClientTransport({ url: handle.url, http: nodeHttp() }),
    clientInfo,
    protocolVersion: era,
  });
  await overHttp.connect();
  row(`gateway over HTTP -> stdio (${era})`, await measure(overHttp, "up__add"));
  await overHttp.close();
  await handle.close();
  await gateway.close();
}

/** A free port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts a bridge process and connects a 2025-11-25 client to its URL once it answers. */
async function bridged(name, command, args, url, tool) {
  const child = spawn(process.execPath, [command, ...args], { stdio: ["ignore", "ignore", "ignore"] });
  try {
    let client;
    for (let attempt = 0; ; attempt++) {
      client = new Client({
        transport: new StreamableHttpClientTransport({ url, http: nodeHttp() }),
        clientInfo,
        protocolVersion: "2025-11-25",
        versionFallback: "lenient",
      });
      try {
        await client.connect();
        break;
      } catch (error) {
        if (attempt > 100) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    row(`${name} -> stdio (2025-11-25)`, await measure(client, tool));
    await client.close();
  } finally {
    child.kill("SIGTERM");
  }
}

const modules = (path) => fileURLToPath(new URL(`../node_modules/${path}`, import.meta.url));
let port = await freePort();
await bridged(
  "supergateway 4.0.0 --stateful",
  modules("supergateway/dist/index.js"),
  [
    "--stdio",
    `${process.execPath} ${UPSTREAM}`,
    "--outputTransport",
    "streamableHttp",
    "--stateful",
    "--port",
    String(port),
    "--logLevel",
    "none",
  ],
  `http://127.0.0.1:${port}/mcp`,
  "add",
);
port = await freePort();
await bridged(
  "mcp-proxy 6.7.19",
  modules("mcp-proxy/dist/bin/mcp-proxy.mjs"),
  ["--port", String(port), "--host", "127.0.0.1", "--server", "stream", "--", process.execPath, UPSTREAM],
  `http://127.0.0.1:${port}/mcp`,
  "add",
);
port = await freePort();
const config = join(tmpdir(), `mcpkit-bench-gateway-${process.pid}.json`);
writeFileSync(
  config,
  JSON.stringify({
    mcpServers: { up: { command: process.execPath, args: [UPSTREAM], start: "boot", maxConcurrent: 32 } },
  }),
);
await bridged(
  "mcpkit gateway",
  fileURLToPath(new URL("../dist/cli/main.js", import.meta.url)),
  ["gateway", "--config", config, "--port", String(port), "--no-watch"],
  `http://127.0.0.1:${port}/mcp`,
  "up__add",
);
