/**
 * `npm run bench`: mcpkit against the official MCP TypeScript SDKs (v1 `@modelcontextprotocol/sdk`, v2
 * `@modelcontextprotocol/server` + `/client`) and bare-JSON floors, on the same workloads in one run.
 * Implementations alternate within each round (the order rotates), a warm-up round comes first, and every
 * number is the median over the rounds. See docs/performance.md.
 *
 * Env: BENCH_SCALE=smoke (tiny counts, for CI) or full (default); BENCH_ROUNDS=<n> overrides the round count;
 * BENCH_ONLY=inprocess,stdio,http,custom,otel,memory,cold runs only the listed sections. `custom`: a custom request
 * method (`bench/add`) in-process and over HTTP 2026-07-28, mcpkit against the official v2 `setRequestHandler`,
 * with mcpkit's `tools/call` of the same sum measured in the same rounds for comparison. `otel`: mcpkit's
 * in-process `tools/call` with mcpkit/otel absent, installed with no provider, and with the SDK's providers
 * (bench/otel.mjs), in the same rounds, with the cost per call of each against absent.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { http, inProcess, stdio } from "./clients.mjs";
import { coldImport, installFootprint } from "./footprint.mjs";
import {
  collect,
  concurrent,
  gitCommit,
  log,
  machine,
  median,
  medians,
  quietListenerWarnings,
  scaleFromEnv,
  sequential,
  sessionMemory,
  startPeer,
} from "./harness.mjs";
import { LEGACY, MCPKIT_SCHEMA, MODERN } from "./servers.mjs";
import { fmt, markdownTable, OFFICIAL_HEADER, OTEL_HEADER, officialCells, otelCells } from "./table.mjs";

const { name: scaleName, scale: S } = scaleFromEnv();
const SECTIONS = ["inprocess", "stdio", "http", "custom", "otel", "memory", "cold"];
/** BENCH_ONLY=<comma list of sections>: run only those (the others print n/a). */
const only = new Set((process.env.BENCH_ONLY ?? SECTIONS.join(",")).split(",").map((s) => s.trim()));
for (const name of only) if (!SECTIONS.includes(name)) throw new Error(`BENCH_ONLY: unknown section ${name}`);
/** `--record` or BENCH_RECORD=1: write docs/bench/latest.json (full scale, every section only). */
const record = process.argv.includes("--record") || process.env.BENCH_RECORD === "1";
if (record && (scaleName !== "full" || process.env.BENCH_ONLY))
  throw new Error("--record needs a full run: no BENCH_SCALE=smoke, no BENCH_ONLY");

const started = performance.now();
const machineAtStart = machine();
// What is measured is the checkout as it is now (dist/ was just built from it), whatever changes during the run.
const startedAt = new Date().toISOString();
const checkout = record ? gitCommit() : undefined;
quietListenerWarnings();

const rounds = async (label, impls, measure) => medians(await collect(label, impls, S.rounds, measure));

const results = {};
const IMPLS = ["mcpkit", "v1", "v2", "floor"];

const skipped = async () => ({});
results.inProcess = await (only.has("inprocess") ? rounds : skipped)(
  `in-process, ${S.inProcess} sequential calls`,
  IMPLS,
  // A full round's calls to warm up, as for the sequential HTTP rows (docs/performance.md, Method).
  (impl) => sequential(inProcess[impl], S.inProcess),
);
results.stdio = await (only.has("stdio") ? rounds : skipped)(
  `stdio, ${S.stdio} sequential calls`,
  IMPLS,
  (impl, warm) => sequential(stdio[impl], warm ? Math.ceil(S.stdio / 5) : S.stdio, warm ? 0 : S.stdioWarmup),
);

for (const era of only.has("http") ? [MODERN, LEGACY] : []) {
  const impls = era === MODERN ? ["mcpkit", "v2", "floor"] : IMPLS;
  const peers = {};
  for (const impl of impls) peers[impl] = await startPeer(impl, era);
  try {
    const connect = (impl) => () => http[impl](peers[impl].url, era);
    results[`seq${era}`] = await rounds(
      `HTTP ${era}, ${S.httpSequential} sequential calls`,
      impls,
      // The warm-up pass makes as many calls as a round: the peers live through all rounds, and each kept
      // speeding up (its JIT, and the client's) well past a fifth of the count (docs/performance.md, Method).
      (impl) => sequential(connect(impl), S.httpSequential),
    );
    results[`conc${era}`] = await rounds(
      `HTTP ${era}, ${S.clients} clients x ${S.callsPerClient} calls`,
      impls,
      (impl, warm) =>
        concurrent(connect(impl), S.clients, warm ? Math.ceil(S.callsPerClient / 5) : S.callsPerClient),
    );
  } finally {
    await Promise.all(Object.values(peers).map((peer) => peer.stop()));
  }
}

// The custom method: "mcpkit-tool" is mcpkit's tools/call of the same sum, in the same rounds (not a table column).
if (only.has("custom")) {
  const impls = ["mcpkit", "mcpkit-tool", "v2", "floor"];
  const factory = (impl) =>
    impl === "mcpkit-tool" ? () => inProcess.mcpkit(false) : () => inProcess[impl](true);
  results.customInProcess = await rounds(
    `custom method in-process, ${S.inProcess} sequential calls`,
    impls,
    (impl) => sequential(factory(impl), S.inProcess),
  );
  const peers = {};
  for (const impl of ["mcpkit", "v2", "floor"]) peers[impl] = await startPeer(impl, MODERN);
  try {
    const connect = (impl) =>
      impl === "mcpkit-tool"
        ? () => http.mcpkit(peers.mcpkit.url, MODERN, false)
        : () => http[impl](peers[impl].url, MODERN, true);
    results.customHttp = await rounds(
      `custom method HTTP ${MODERN}, ${S.httpSequential} sequential calls`,
      impls,
      // The warm-up pass makes as many calls as a round: the peers live through all rounds, and each kept
      // speeding up (its JIT, and the client's) well past a fifth of the count (docs/performance.md, Method).
      (impl) => sequential(connect(impl), S.httpSequential),
    );
  } finally {
    await Promise.all(Object.values(peers).map((peer) => peer.stop()));
  }
}

// mcpkit/otel: absent, installed with no provider, and a real provider, in the same rounds (bench/otel.mjs).
const otelBench = only.has("otel") ? await import("./otel.mjs") : undefined;
if (otelBench !== undefined) {
  const { OTEL_SETUPS, otelSequential, otelShutdown } = otelBench;
  results.otel = await rounds(
    `mcpkit/otel in-process, ${S.inProcess} sequential calls`,
    OTEL_SETUPS,
    (setup) => otelSequential(setup, S.inProcess),
  );
  await otelShutdown();
}

results.memory = await (only.has("memory") ? rounds : skipped)(
  `memory, 2 x ${S.sessions} idle 2025-11-25 HTTP sessions`,
  ["mcpkit", "v1", "v2"],
  (impl, warm) => sessionMemory(impl, S.sessions, warm),
);
results.cold = await (only.has("cold") ? rounds : skipped)(
  `cold import of client + server, ${S.coldRuns} runs`,
  ["mcpkit", "v1", "v2"],
  async (impl, warm) => {
    const runs = [];
    for (let i = 0; i < (warm ? 1 : S.coldRuns); i++) runs.push(await coldImport(impl));
    return { ms: median(runs) };
  },
);
const footprint = !only.has("cold")
  ? {}
  : Object.fromEntries(["mcpkit", "v1", "v2"].map((impl) => [impl, installFootprint(impl)]));

// ---- the rows, the table, the record ----
const rows = [];
const pick = (set, key) => Object.fromEntries(Object.entries(set ?? {}).map(([impl, m]) => [impl, m[key]]));
/** higher: true when more is better (throughput); the ratio is always mcpkit / best official. */
const row = (key, name, values, unit, higher) => rows.push({ key, name, unit, higher, values });

row("inProcess", "in-process calls/s", pick(results.inProcess, "rate"), "/s", true);
row("stdio", "stdio calls/s", pick(results.stdio, "rate"), "/s", true);
for (const era of [MODERN, LEGACY]) {
  const conc = `${S.clients}x${S.callsPerClient}`;
  row(`seq${era}`, `HTTP ${era} sequential calls/s`, pick(results[`seq${era}`], "rate"), "/s", true);
  row(`conc${era}`, `HTTP ${era} ${conc} calls/s`, pick(results[`conc${era}`], "rate"), "/s", true);
  row(`p99${era}`, `HTTP ${era} ${conc} p99 latency`, pick(results[`conc${era}`], "p99"), "ms", false);
}
row("customInProcess", "custom method in-process calls/s", pick(results.customInProcess, "rate"), "/s", true);
const customHttp = `custom method HTTP ${MODERN} sequential calls/s`;
row("customHttp", customHttp, pick(results.customHttp, "rate"), "/s", true);
const more = `(${S.sessions} more)`;
row("sessionRss", `RSS per idle 2025-11-25 session ${more}`, pick(results.memory, "rss"), "KB", false);
row("sessionHeap", `heap per idle 2025-11-25 session ${more}`, pick(results.memory, "heap"), "KB", false);
const first = `RSS per session over the first ${S.sessions}`;
row("sessionFirstRss", first, pick(results.memory, "firstRss"), "KB", false);
row("cold", "cold import of client + server", pick(results.cold, "ms"), "ms", false);
row("installBytes", "installed size (dependency closure)", pick(footprint, "bytes"), "MB", false);
row("dependencies", "runtime dependencies", pick(footprint, "dependencies"), "", false);

const customVsTool = [];
for (const [label, set] of [
  ["in-process", results.customInProcess],
  [`HTTP ${MODERN}`, results.customHttp],
]) {
  const custom = set?.mcpkit?.rate;
  const tool = set?.["mcpkit-tool"]?.rate;
  if (custom !== undefined && tool !== undefined) customVsTool.push({ label, custom, tool });
}

console.log(`mcpkit benchmark, scale ${scaleName}, ${S.rounds} rounds (medians), warm-up first`);
const m = machineAtStart;
console.log(`node ${m.node}, ${m.platform}, ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB`);
console.log(
  "ratio = mcpkit / best official for that row; ↑ higher is better (throughput), ↓ lower is better",
);
console.log(
  "(latency, memory, time, size). floor = bare JSON (in-process, stdio) or a bare node:http echo (HTTP).",
);
console.log(
  "v1 has no 2026-07-28: n/a. Memory rows: server-process growth per session after forced GC, over a second",
);
console.log(
  "batch of sessions (the first batch also pays the process's one-time start-up costs; its row shows them).",
);
console.log("");
console.log(markdownTable(OFFICIAL_HEADER, officialCells(rows)));
console.log("");
for (const { label, custom, tool } of customVsTool) {
  console.log(
    `mcpkit custom method vs tools/call, ${label}, same rounds: ${fmt(custom, "/s")} vs ${fmt(tool, "/s")} (${(custom / tool).toFixed(2)}x)`,
  );
}
/** mcpkit/otel's rows, absent first: per setup its calls/s and CPU microseconds per call (medians). */
const otel = Object.entries(results.otel ?? {}).map(([setup, measured]) => ({
  key: setup,
  name: otelBench.OTEL_NAMES[setup],
  rate: measured.rate,
  cpu: measured.cpu,
}));
if (otel.length > 0) {
  console.log("");
  console.log(`mcpkit/otel, in-process tools/call, same rounds (CPU: the process's CPU time per call):`);
  console.log(markdownTable(OTEL_HEADER, otelCells(otel)));
}
const seconds = (performance.now() - started) / 1000;
console.log(`done in ${seconds.toFixed(1)} s`);

if (record) {
  const file = new URL("../docs/bench/latest.json", import.meta.url);
  const { commit, dirty } = checkout;
  const { loadAverage: loadAverageStart, ...host } = machineAtStart;
  const recorded = {
    format: 1,
    date: startedAt,
    commit,
    dirty,
    scale: scaleName,
    rounds: S.rounds,
    counts: S,
    seconds: Number(seconds.toFixed(1)),
    validation: MCPKIT_SCHEMA,
    machine: { ...host, loadAverageStart, loadAverageEnd: machine().loadAverage },
    rows,
    customVsTool,
    otel,
  };
  mkdirSync(new URL(".", file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(recorded, null, 2)}\n`);
  // In the layout the repository's formatter keeps (npm run format:check), so that a record commits as is.
  const biome = fileURLToPath(new URL("../node_modules/@biomejs/biome/bin/biome", import.meta.url));
  execFileSync(process.execPath, [biome, "format", "--write", fileURLToPath(file)], { stdio: "ignore" });
  log(`recorded in docs/bench/latest.json; now run npm run bench:readme`);
}
