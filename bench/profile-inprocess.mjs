/**
 * A profiling harness: N sequential in-process `tools/call`s of `add` through mcpkit's client and server, against
 * a built `dist/` (`npm run build` first). Meant to be run under the V8 tools, for instance
 *
 *   node bench/profile-inprocess.mjs                          # calls/s and bytes allocated per call
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile-inprocess.mjs --calls 200000
 *   node --trace-gc bench/profile-inprocess.mjs --calls 100000 | grep -c Scavenge
 *   node bench/profile-inprocess.mjs --alloc-prof /tmp/a.heapprofile && node bench/cpuprofile-summary.mjs --heap /tmp/a.heapprofile
 *
 * (`--heap-prof` samples only what is still alive at the end, so it misses per-call garbage: use `--alloc-prof`.)
 *
 * Options: `--root <dir>` the mcpkit checkout whose `dist/` to load (default: this one; point it at another
 * clone to compare two commits side by side), `--calls <n>` (default 50,000), `--rounds <n>` (default 5),
 * `--validate` (validate the tool's arguments; off by default, as the commits before validation did not
 * validate), `--custom` (the custom request `bench/add` instead of `tools/call`), `--json` (one JSON line),
 * `--bench` (this checkout only: the client and server of `npm run bench`, from bench/clients.mjs and
 * bench/servers.mjs, argument validation as BENCH_MCPKIT_SCHEMA says; `--root` loads a dist/ directly instead, as
 * bench/servers.mjs imports `mcpkit` and can only load this checkout's).
 *
 * Bytes per call: the harness re-execs itself with `--expose-gc` and a large young generation
 * (`--max-semi-space-size=64`), collects the heap, runs a batch of 1,000 calls and reads the growth of the used
 * heap (`v8.getHeapSpaceStatistics()`); a batch during which a scavenge ran is dropped, the median of five kept.
 * `--alloc-prof <file>`: also writes a sampling allocation profile of one batch of `--calls` calls (every
 * allocation sampled, garbage included, unlike `--heap-prof`), readable by `bench/cpuprofile-summary.mjs --heap`
 * or Chrome DevTools. With `--survivors` it keeps only what outlived a scavenge (what each call promotes to the
 * old generation, which makes scavenges slow and is only freed by a full collection).
 * Scavenges per 10k calls (from `PerformanceObserver` GC entries) are reported alongside. `--no-gc` skips the
 * re-exec (then bytes per call is not measured).
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { getHeapSpaceStatistics } from "node:v8";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const flag = (name) => args.includes(`--${name}`);

if (typeof globalThis.gc !== "function" && !flag("no-gc")) {
  // Re-exec with --expose-gc so the allocation figure is measured between two full collections.
  const run = spawnSync(
    process.execPath,
    ["--expose-gc", "--max-semi-space-size=64", ...process.execArgv, fileURLToPath(import.meta.url), ...args],
    {
      stdio: "inherit",
    },
  );
  process.exit(run.status ?? 1);
}

const here = fileURLToPath(new URL("..", import.meta.url));
const root = resolve(option("root", here));
const calls = Number(option("calls", 50_000));
const rounds = Number(option("rounds", 5));
const validate = flag("validate");
const custom = flag("custom");

const load = (path) => import(pathToFileURL(resolve(root, "dist", path)).href);
const [{ createInProcessPair }, { Client }, server] = await Promise.all([
  load("index.js"),
  load("client/index.js"),
  load("server/index.js"),
]);
const { ServerBuilder, defineRequest } = server;

const ADD_SCHEMA = {
  type: "object",
  properties: { a: { type: "number" }, b: { type: "number" } },
  required: ["a", "b"],
};

function buildServer(withValidateOption = true) {
  const options = { serverInfo: { name: "profile-mcpkit", version: "1.0.0" } };
  // Commits before argument validation have no `validate` option (and do not validate).
  if (withValidateOption) options.validate = validate;
  if (custom) {
    if (!defineRequest) throw new Error(`${root} has no custom requests (defineRequest)`);
    options.requests = { "bench/add": defineRequest(({ a, b }) => ({ sum: Number(a) + Number(b) })) };
  }
  return new ServerBuilder(options)
    .tool({ name: "add", description: "Adds two numbers", inputSchema: ADD_SCHEMA }, ({ a, b }) => ({
      content: [{ type: "text", text: String(Number(a) + Number(b)) }],
    }))
    .build();
}

async function connect() {
  if (flag("bench")) {
    const { inProcess } = await import("./clients.mjs");
    return inProcess.mcpkit(custom);
  }
  const [clientSide, serverSide] = createInProcessPair();
  let server;
  try {
    server = buildServer();
  } catch (error) {
    if (error?.code !== "INVALID_CONFIG" || error.details?.key !== "validate" || validate) throw error;
    server = buildServer(false);
  }
  await server.connect(serverSide);
  const client = new Client({ transport: clientSide, clientInfo: { name: "profile", version: "1.0.0" } });
  await client.connect();
  const call = custom
    ? async (i) => {
        const { sum } = await client.request("bench/add", { a: i, b: 1 });
        if (sum !== i + 1) throw new Error(`bench/add(${i}, 1) answered ${sum}`);
      }
    : async (i) => {
        const result = await client.callTool("add", { a: i, b: 1 });
        if (result.content[0].text !== String(i + 1))
          throw new Error(`add(${i}, 1) answered ${result.content[0].text}`);
      };
  return { call, close: () => client.close() };
}

/** Bytes allocated so far in the young generation can't be read directly; sum every space's used size instead. */
const usedBytes = () => getHeapSpaceStatistics().reduce((sum, space) => sum + space.space_used_size, 0);

let gcCount = 0;
const { PerformanceObserver, constants } = await import("node:perf_hooks");
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) gcCount++;
});
observer.observe({ entryTypes: ["gc"] });

/**
 * Bytes per call: with the young generation made large enough (`--max-semi-space-size`) no scavenge runs during a
 * small batch, so the growth of the used heap over it is what the batch allocated. The batch is kept short
 * (1,000 calls) and repeated; a batch that saw a GC is dropped.
 */
async function bytesPerCall(client) {
  const batch = 1_000;
  const samples = [];
  for (let attempt = 0; attempt < 20 && samples.length < 5; attempt++) {
    globalThis.gc();
    const gcBefore = gcCount;
    const before = usedBytes();
    for (let i = 0; i < batch; i++) await client.call(i);
    const after = usedBytes();
    await new Promise((r) => setImmediate(r)); // let the observer see a GC of this batch
    if (gcCount === gcBefore) samples.push((after - before) / batch);
  }
  samples.sort((a, b) => a - b);
  return samples.length ? samples[samples.length >> 1] : undefined;
}

const client = await connect();
for (let i = 0; i < Math.min(calls, 5_000); i++) await client.call(i); // warm-up
const rates = [];
let minorGcs = 0;
for (let r = 0; r < rounds; r++) {
  const gcBefore = gcCount;
  const t = performance.now();
  for (let i = 0; i < calls; i++) await client.call(i);
  rates.push(calls / ((performance.now() - t) / 1000));
  await new Promise((r) => setImmediate(r));
  minorGcs += gcCount - gcBefore;
}
const allocProf = option("alloc-prof", undefined);
if (allocProf) {
  const { Session } = await import("node:inspector/promises");
  const { writeFileSync } = await import("node:fs");
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    // `--survivors`: leave out what a scavenge collected, keeping what lived through one (promoted per call).
    includeObjectsCollectedByMinorGC: !flag("survivors"),
  });
  for (let i = 0; i < calls; i++) await client.call(i);
  const { profile } = await session.post("HeapProfiler.stopSampling");
  writeFileSync(allocProf, JSON.stringify({ ...profile, calls }));
  session.disconnect();
}
const bytes = typeof globalThis.gc === "function" ? await bytesPerCall(client) : undefined;
await client.close();
observer.disconnect();
rates.sort((a, b) => a - b);
const report = {
  root,
  calls,
  rounds,
  validate,
  custom,
  rate: Math.round(rates[rates.length >> 1]),
  best: Math.round(rates[rates.length - 1]),
  bytesPerCall: bytes === undefined ? undefined : Math.round(bytes),
  scavengesPer10kCalls: Math.round((minorGcs / (calls * rounds)) * 10_000 * 10) / 10,
};
if (flag("json")) console.log(JSON.stringify(report));
else
  console.log(
    `${root}: ${report.rate} calls/s (median of ${rounds}×${calls}, best ${report.best}), ` +
      `${report.bytesPerCall ?? "?"} B allocated/call, ${report.scavengesPer10kCalls} scavenges/10k calls` +
      `${validate ? " [validate]" : ""}${custom ? " [custom]" : ""}`,
  );
