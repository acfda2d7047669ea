/**
 * Admission under load: 50 HTTP clients on 127.0.0.1 call one mcpkit server (2026-07-28, default limits: 32
 * handler slots) as fast as their answers come back; 1 call in 4 goes to a tool that takes 100 ms, the others
 * to an instant one. Prints calls/s answered, the share refused ("handler capacity reached") and latency
 * percentiles. Run with `npm run build && node bench/admission.mjs`.
 *
 * ADMISSION_DIST=<dir> benchmarks another build (for example one of the previous commit) instead of ./dist;
 * ADMISSION_SECONDS (default 10) and ADMISSION_CLIENTS (default 50) change the load.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const dist = pathToFileURL(`${resolve(process.env.ADMISSION_DIST ?? "dist")}/`);
const { ServerBuilder } = await import(new URL("server/index.js", dist).href);
const { Client } = await import(new URL("client/index.js", dist).href);
const { StreamableHttpClientTransport, createHttpHandler } = await import(
  new URL("http/index.js", dist).href
);
const { nodeHttp, serve } = await import(new URL("node/index.js", dist).href);

const SECONDS = Number(process.env.ADMISSION_SECONDS ?? 10);
const CLIENTS = Number(process.env.ADMISSION_CLIENTS ?? 50);
const SLOW_MS = 100;
const SCHEMA = { type: "object", properties: { a: { type: "number" } } };

const server = new ServerBuilder({ serverInfo: { name: "bench-admission", version: "1.0.0" } })
  .tool({ name: "fast", description: "Answers at once", inputSchema: SCHEMA }, () => ({
    content: [{ type: "text", text: "fast" }],
  }))
  .tool({ name: "slow", description: `Answers after ${SLOW_MS} ms`, inputSchema: SCHEMA }, async () => {
    await new Promise((r) => setTimeout(r, SLOW_MS));
    return { content: [{ type: "text", text: "slow" }] };
  })
  .build();
const { url, close } = await serve(createHttpHandler(server));

const clients = [];
for (let i = 0; i < CLIENTS; i++) {
  const client = new Client({
    transport: new StreamableHttpClientTransport({ url, http: nodeHttp() }),
    clientInfo: { name: `bench-${i}`, version: "1.0.0" },
  });
  await client.connect();
  clients.push(client);
}

const latencies = [];
const answeredSlow = { count: 0 };
let refused = 0;
let failed = 0;
let stop = false;
async function drive(client, offset) {
  for (let n = offset; !stop; n++) {
    const started = performance.now();
    try {
      const slow = n % 4 === 0;
      await client.callTool(slow ? "slow" : "fast", { a: n });
      latencies.push(performance.now() - started);
      if (slow) answeredSlow.count++;
    } catch (error) {
      if (String(error?.message).includes("handler capacity reached")) refused++;
      else failed++;
    }
  }
}

const began = performance.now();
const loops = clients.map((client, i) => drive(client, i));
await new Promise((r) => setTimeout(r, SECONDS * 1000));
stop = true;
await Promise.all(loops);
const elapsed = (performance.now() - began) / 1000;
await Promise.all(clients.map((client) => client.close()));
await close();

latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
const total = latencies.length + refused + failed;
console.log(
  JSON.stringify(
    {
      dist: process.env.ADMISSION_DIST ?? "dist",
      clients: CLIENTS,
      seconds: Number(elapsed.toFixed(1)),
      calls: total,
      answered: latencies.length,
      answeredPerSecond: Math.round(latencies.length / elapsed),
      answeredSlowPerSecond: Math.round(answeredSlow.count / elapsed),
      refused,
      refusedShare: `${((100 * refused) / Math.max(1, total)).toFixed(1)}%`,
      otherErrors: failed,
      p50ms: Number(at(0.5).toFixed(1)),
      p99ms: Number(at(0.99).toFixed(1)),
      maxMs: Number((latencies.at(-1) ?? Number.NaN).toFixed(1)),
    },
    null,
    2,
  ),
);
