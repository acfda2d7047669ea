/**
 * `npm run build && node bench/otel.mjs`: what mcpkit/otel costs a `tools/call`, client and server in one
 * process (the in-process pair, so the instrumentation is most of what differs). Three setups, alternated over
 * rounds, medians: `absent` (no plugin, no wrapper: the baseline), `no provider` (`otelServerPlugin()` and
 * `otelClientTransport()` with no provider registered: the API's no-op tracer and meter), and `provider` (the
 * SDK's tracer provider with a BatchSpanProcessor into an exporter that drops the spans, and a meter provider
 * with a reader: what a traced production server pays, export aside). Prints calls/s and the cost per call.
 * Env: OTEL_CALLS (default 20,000 per round), OTEL_ROUNDS (default 7).
 */

import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createInProcessPair } from "mcpkit";
import { Client } from "mcpkit/client";
import { otelClientTransport, otelServerPlugin } from "mcpkit/otel";
import { ServerBuilder } from "mcpkit/server";

const CALLS = Number(process.env.OTEL_CALLS ?? 20_000);
const ROUNDS = Number(process.env.OTEL_ROUNDS ?? 7);

const addTool = {
  name: "add",
  inputSchema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"],
  },
};
const add = ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] });

class Reader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}

/** An exporter that takes every batch and keeps nothing. */
const dropping = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };

async function setup(options) {
  const plugins = options === undefined ? [] : [otelServerPlugin(options)];
  const server = new ServerBuilder({ serverInfo: { name: "bench-otel", version: "1.0.0" }, plugins })
    .tool(addTool, add)
    .build();
  const [clientSide, serverSide] = createInProcessPair();
  await server.connect(serverSide);
  const transport = options === undefined ? clientSide : otelClientTransport(clientSide, options);
  const client = new Client({ clientInfo: { name: "bench", version: "1.0.0" }, transport });
  await client.connect();
  return client;
}

const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] });
const meterProvider = new MeterProvider({ readers: [new Reader()] });
const clients = {
  absent: await setup(undefined),
  "no provider": await setup({}),
  provider: await setup({ tracerProvider, meterProvider }),
};

async function run(client, count) {
  const started = performance.now();
  for (let i = 0; i < count; i++) await client.callTool("add", { a: i, b: 1 });
  return count / ((performance.now() - started) / 1000);
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const samples = Object.fromEntries(Object.keys(clients).map((name) => [name, []]));
for (const client of Object.values(clients)) await run(client, Math.ceil(CALLS / 5));
for (let round = 0; round < ROUNDS; round++) {
  const names = Object.keys(clients);
  for (let k = 0; k < round % names.length; k++) names.push(names.shift());
  for (const name of names) samples[name].push(await run(clients[name], CALLS));
}
const base = median(samples.absent);
for (const [name, values] of Object.entries(samples)) {
  const rate = median(values);
  const extra = (1e6 / rate - 1e6 / base).toFixed(2);
  console.log(
    `${name}: ${Math.round(rate).toLocaleString("en-US")} calls/s (median of ${ROUNDS})` +
      (name === "absent" ? "" : `, +${extra} us per call`),
  );
}
for (const client of Object.values(clients)) await client.close();
await tracerProvider.shutdown();
