/**
 * `npm run build && node bench/dispatch.mjs`: the server's own cost of a custom request method against a core
 * one, without any transport. The bench's mcpkit server answers 2026-07-28 `tools/call add` and the custom
 * `bench/add` through `server.handleModern` in a loop (the path every transport ends in: meta checks, the
 * executor, the handler context, params validation, result projection), alternated over rounds; medians.
 * Env: DISPATCH_CALLS (default 50,000 per round), DISPATCH_ROUNDS (default 10).
 */
import * as mcpkit from "mcpkit/server";
import { mcpkitServer } from "./servers.mjs";

const CALLS = Number(process.env.DISPATCH_CALLS ?? 50_000);
const ROUNDS = Number(process.env.DISPATCH_ROUNDS ?? 10);
const server = mcpkitServer(mcpkit);
const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
};
const env = { notify: async () => {} };
const WORKLOADS = {
  "tools/call": (i) => ({
    jsonrpc: "2.0",
    id: i,
    method: "tools/call",
    params: { name: "add", arguments: { a: i, b: 1 }, _meta: meta },
  }),
  "custom bench/add": (i) => ({
    jsonrpc: "2.0",
    id: i,
    method: "bench/add",
    params: { a: i, b: 1, _meta: meta },
  }),
};

async function run(make, count) {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const response = await server.handleModern(make(i), env);
    if (!response.result) throw new Error(JSON.stringify(response));
  }
  return count / ((performance.now() - started) / 1000);
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const samples = Object.fromEntries(Object.keys(WORKLOADS).map((name) => [name, []]));
for (const make of Object.values(WORKLOADS)) await run(make, Math.ceil(CALLS / 5));
for (let round = 0; round < ROUNDS; round++) {
  const names = Object.keys(WORKLOADS);
  if (round % 2) names.reverse();
  for (const name of names) samples[name].push(await run(WORKLOADS[name], CALLS));
}
const [core, custom] = Object.keys(WORKLOADS).map((name) => median(samples[name]));
for (const [name, values] of Object.entries(samples)) {
  console.log(`${name}: ${Math.round(median(values)).toLocaleString("en-US")} calls/s (median of ${ROUNDS})`);
}
console.log(`custom / tools/call: ${(custom / core).toFixed(2)}x`);
