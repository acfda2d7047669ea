/**
 * The `otel` section of `npm run bench` (`BENCH_ONLY=otel npm run bench` runs it alone): what mcpkit/otel costs a
 * `tools/call`, client and server in one process (the in-process pair, so the instrumentation is most of what
 * differs), the bench's own mcpkit server (bench/servers.mjs) with the plugin added. Three setups, alternated in
 * the same rounds: `absent` (no plugin, no wrapper: the baseline), `no provider` (`otelServerPlugin()` and
 * `otelClientTransport()` with no provider given or registered: idle), and `provider` (the SDK's tracer provider
 * with a BatchSpanProcessor into an exporter that drops every batch, and a meter provider with a reader: what a
 * traced production server pays, export aside). Each round reports calls/s (wall clock) and the process's CPU
 * time per call (`process.cpuUsage`), which a busy machine disturbs less: the client and the server are both in
 * this process, so that is all the work a call does.
 */
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { otelClientTransport, otelServerPlugin } from "mcpkit/otel";
import { loadKit } from "./kit.mjs";
import { mcpkitServer } from "./servers.mjs";

export const OTEL_SETUPS = ["absent", "no provider", "provider"];

/** What each setup is, as the bench prints it. */
export const OTEL_NAMES = {
  absent: "tracing absent (no plugin, no wrapper)",
  "no provider": "installed, no provider",
  provider: "SDK provider, BatchSpanProcessor + a meter",
};

class Reader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}

/** An exporter that takes every batch and keeps nothing. */
const dropping = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };

const kit = await loadKit();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] });
const meterProvider = new MeterProvider({ readers: [new Reader()] });
const OPTIONS = { absent: undefined, "no provider": {}, provider: { tracerProvider, meterProvider } };
const INFO = { name: "bench", version: "1.0.0" };

/** A connected client of `setup`, as bench/clients.mjs's factories: `{ call(i), close() }`. */
async function connect(setup) {
  const options = OPTIONS[setup];
  const plugins = options === undefined ? [] : [otelServerPlugin(options)];
  const server = mcpkitServer(kit.server, plugins);
  const [clientSide, serverSide] = kit.index.createInProcessPair();
  await server.connect(serverSide);
  const transport = options === undefined ? clientSide : otelClientTransport(clientSide, options);
  const client = new kit.client.Client({ transport, clientInfo: INFO });
  await client.connect();
  return {
    call: async (i) => {
      const text = (await client.callTool("add", { a: i, b: 1 })).content[0].text;
      if (text !== String(i + 1)) throw new Error(`add(${i}, 1) answered ${text}`);
    },
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** `count` sequential calls of `setup`: `{ rate }` in calls/s and `{ cpu }` in CPU microseconds per call. */
export async function otelSequential(setup, count) {
  const calls = await connect(setup);
  try {
    const cpu = process.cpuUsage();
    const t = performance.now();
    for (let i = 0; i < count; i++) await calls.call(i);
    const wall = performance.now() - t;
    const used = process.cpuUsage(cpu);
    return { rate: count / (wall / 1000), cpu: (used.user + used.system) / count };
  } finally {
    await calls.close();
  }
}

/** Ends the provider's batch processor (its timer). */
export async function otelShutdown() {
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
}
