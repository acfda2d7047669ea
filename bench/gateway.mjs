/**
 * `npm run bench:gateway`: the per-call cost of the gateway, in one run. The same stdio upstream (an mcpkit
 * server, test/fixtures/stdio/mcp-server.mjs, its `add` tool) is called directly by an mcpkit client, and
 * through `createGateway` by a client in process and by one over Streamable HTTP on 127.0.0.1, both eras.
 * Sequential calls (latency: p50, p99) then 16 concurrent callers (calls/s). Uses the built package (dist/).
 * Env: BENCH_CALLS (default 2,000 per row).
 */
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
