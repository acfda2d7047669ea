/**
 * `npm run bench`: mcpkit against the official MCP TypeScript SDKs (v1 `@modelcontextprotocol/sdk`, v2
 * `@modelcontextprotocol/server` + `/client`) and bare-JSON floors, on the same workloads in one run.
 * Implementations alternate within each round (the order rotates), a warm-up round comes first, and every
 * number is the median over the rounds. See docs/performance.md.
 *
 * Env: BENCH_SCALE=smoke (tiny counts, for CI) or full (default); BENCH_ROUNDS=<n> overrides the round count;
 * BENCH_ONLY=inprocess,stdio,http,custom,memory,cold runs only the listed sections. `custom`: a custom request
 * method (`bench/add`) in-process and over HTTP 2026-07-28, mcpkit against the official v2 `setRequestHandler`,
 * with mcpkit's `tools/call` of the same sum measured in the same rounds for comparison.
 */
import { fork } from "node:child_process";
import { cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { http, inProcess, stdio } from "./clients.mjs";
import { coldImport, installFootprint } from "./footprint.mjs";
import { LEGACY, MODERN } from "./servers.mjs";

const SCALES = {
  full: {
    inProcess: 10_000,
    stdio: 5_000,
    httpSequential: 2_000,
    clients: 50,
    callsPerClient: 100,
    sessions: 1_000,
    coldRuns: 10,
    rounds: 5,
  },
  smoke: {
    inProcess: 50,
    stdio: 50,
    httpSequential: 50,
    clients: 5,
    callsPerClient: 5,
    sessions: 20,
    coldRuns: 2,
    rounds: 2,
  },
};
const scaleName = process.env.BENCH_SCALE === "smoke" ? "smoke" : "full";
const S = { ...SCALES[scaleName] };
if (process.env.BENCH_ROUNDS) S.rounds = Math.max(1, Number(process.env.BENCH_ROUNDS));
const SECTIONS = ["inprocess", "stdio", "http", "custom", "memory", "cold"];
/** BENCH_ONLY=<comma list of sections>: run only those (the others print n/a). */
const only = new Set((process.env.BENCH_ONLY ?? SECTIONS.join(",")).split(",").map((s) => s.trim()));
for (const name of only) if (!SECTIONS.includes(name)) throw new Error(`BENCH_ONLY: unknown section ${name}`);

const PEER = fileURLToPath(new URL("./peer.mjs", import.meta.url));
const OFFICIAL = ["v1", "v2"];
const started = performance.now();

const median = (values) => {
  const sorted = values.filter((v) => v !== undefined).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const log = (text) => process.stderr.write(`${text}\n`);

// The official v1 HTTP client hands its session AbortSignal to every fetch, and each request adds an abort
// listener to it; past undici's limit of 1,500 Node prints a MaxListenersExceededWarning on every call, and
// printing thousands of them would slow the v1 rows. Report that once; print every other warning as usual.
process.removeAllListeners("warning");
let listenerWarned = false;
process.on("warning", (warning) => {
  if (warning.name === "MaxListenersExceededWarning" && warning.message.includes("abort listeners")) {
    if (!listenerWarned) log(`(once) ${warning.name}: ${warning.message}`);
    listenerWarned = true;
    return;
  }
  log(`${warning.name}: ${warning.message}`);
});

/**
 * Runs `measure(impl, warm)` for every implementation: one warm-up pass, then `S.rounds` rounds with the
 * order rotated each round. Returns, per impl, the median of each metric `measure` reports.
 */
async function rounds(label, impls, measure) {
  log(`# ${label}`);
  for (const impl of impls) await measure(impl, true);
  const samples = Object.fromEntries(impls.map((impl) => [impl, []]));
  for (let r = 0; r < S.rounds; r++) {
    const order = impls.map((_, i) => impls[(i + r) % impls.length]);
    for (const impl of order) samples[impl].push(await measure(impl, false));
  }
  const medians = {};
  for (const impl of impls) {
    const keys = Object.keys(samples[impl][0]);
    medians[impl] = Object.fromEntries(keys.map((k) => [k, median(samples[impl].map((s) => s[k]))]));
  }
  return medians;
}

/** Sequential calls on one connected client: calls per second. */
async function sequential(connect, count) {
  const calls = await connect();
  try {
    const t = performance.now();
    for (let i = 0; i < count; i++) await calls.call(i);
    return { rate: count / ((performance.now() - t) / 1000) };
  } finally {
    await calls.close();
  }
}

/** `clients` connected clients, each making `perClient` sequential calls, all at once. */
async function concurrent(connect, clients, perClient) {
  const all = [];
  for (let c = 0; c < clients; c++) all.push(await connect());
  const latencies = [];
  try {
    const t = performance.now();
    await Promise.all(
      all.map(async (calls) => {
        for (let i = 0; i < perClient; i++) {
          const s = performance.now();
          await calls.call(i);
          latencies.push(performance.now() - s);
        }
      }),
    );
    return { rate: (clients * perClient) / ((performance.now() - t) / 1000), p99: percentile(latencies, 99) };
  } finally {
    await Promise.all(all.map((calls) => calls.close()));
  }
}

/** Forks an HTTP peer on 127.0.0.1 and waits for its port. */
async function startPeer(impl, era, execArgv = []) {
  const child = fork(PEER, ["http", impl, era], { execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const port = await new Promise((resolve, reject) => {
    child.once("message", (m) => resolve(m.port));
    child.once("exit", (code) => reject(new Error(`${impl} peer exited ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    memory: () =>
      new Promise((resolve) => {
        child.once("message", resolve);
        child.send({ type: "memory" });
      }),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", resolve);
        child.kill();
      }),
  };
}

/** Opens one bare 2025-11-25 session (initialize + initialized) and leaves it idle. */
async function openSession(url) {
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const init = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } },
    }),
  });
  await init.text();
  const session = init.headers.get("mcp-session-id");
  if (init.status !== 200 || !session)
    throw new Error(`initialize answered ${init.status} without a session`);
  const done = await fetch(url, {
    method: "POST",
    headers: { ...headers, "mcp-session-id": session, "mcp-protocol-version": LEGACY },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await done.text();
}

/**
 * Server memory per idle legacy session. A fresh peer opens N sessions and then N more, with a forced GC before
 * and after each batch. The first batch also pays what a process pays once when it starts to serve (compiled
 * code, allocator arenas, buffers: about 15-20 MB on Node 20 for every implementation alike), so the per-session
 * figure is the growth over the second batch; the first batch's figure is reported as well.
 */
async function sessionMemory(impl, warm) {
  const peer = await startPeer(impl, LEGACY, ["--expose-gc"]);
  try {
    for (let i = 0; i < 10; i++) await openSession(peer.url);
    const start = await peer.memory();
    if (!start.gc) throw new Error("the peer has no gc()");
    const count = warm ? Math.min(S.sessions, 50) : S.sessions;
    for (let i = 0; i < count; i++) await openSession(peer.url);
    const first = await peer.memory();
    for (let i = 0; i < count; i++) await openSession(peer.url);
    const second = await peer.memory();
    return {
      rss: (second.rss - first.rss) / count,
      heap: (second.heapUsed - first.heapUsed) / count,
      firstRss: (first.rss - start.rss) / count,
    };
  } finally {
    await peer.stop();
  }
}

const results = {};
const IMPLS = ["mcpkit", "v1", "v2", "floor"];

const skipped = async () => ({});
results.inProcess = await (only.has("inprocess") ? rounds : skipped)(
  `in-process, ${S.inProcess} sequential calls`,
  IMPLS,
  (impl, warm) => sequential(inProcess[impl], warm ? Math.ceil(S.inProcess / 5) : S.inProcess),
);
results.stdio = await (only.has("stdio") ? rounds : skipped)(
  `stdio, ${S.stdio} sequential calls`,
  IMPLS,
  (impl, warm) => sequential(stdio[impl], warm ? Math.ceil(S.stdio / 5) : S.stdio),
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
      (impl, warm) => sequential(connect(impl), warm ? Math.ceil(S.httpSequential / 5) : S.httpSequential),
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
    (impl, warm) => sequential(factory(impl), warm ? Math.ceil(S.inProcess / 5) : S.inProcess),
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
      (impl, warm) => sequential(connect(impl), warm ? Math.ceil(S.httpSequential / 5) : S.httpSequential),
    );
  } finally {
    await Promise.all(Object.values(peers).map((peer) => peer.stop()));
  }
}

results.memory = await (only.has("memory") ? rounds : skipped)(
  `memory, 2 x ${S.sessions} idle 2025-11-25 HTTP sessions`,
  ["mcpkit", "v1", "v2"],
  sessionMemory,
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

// ---- the table ----
const fmt = (value, unit) => {
  if (value === undefined) return "n/a";
  if (unit === "/s") return `${Math.round(value).toLocaleString("en-US")}/s`;
  if (unit === "ms") return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
  if (unit === "KB") return `${(value / 1024).toFixed(1)} KB`;
  if (unit === "MB") return `${(value / 1024 / 1024).toFixed(2)} MB`;
  return String(value);
};
const rows = [];
/** higher: true when more is better (throughput); the ratio is always mcpkit / best official. */
function row(name, values, unit, higher) {
  const officials = OFFICIAL.map((impl) => values[impl]).filter((v) => v !== undefined);
  const best = officials.length === 0 ? undefined : higher ? Math.max(...officials) : Math.min(...officials);
  const ratio = (a, b) =>
    a === undefined || b === undefined ? "n/a" : b === 0 ? "∞" : `${(a / b).toFixed(2)}x`;
  rows.push([
    name,
    fmt(values.mcpkit, unit),
    fmt(values.v1, unit),
    fmt(values.v2, unit),
    fmt(values.floor, unit),
    `${ratio(values.mcpkit, best)} ${higher ? "↑" : "↓"}`,
    values.floor === undefined ? "" : ratio(values.mcpkit, values.floor),
  ]);
}
const pick = (set, key) => Object.fromEntries(Object.entries(set ?? {}).map(([impl, m]) => [impl, m[key]]));

row("in-process calls/s", pick(results.inProcess, "rate"), "/s", true);
row("stdio calls/s", pick(results.stdio, "rate"), "/s", true);
for (const era of [MODERN, LEGACY]) {
  row(`HTTP ${era} sequential calls/s`, pick(results[`seq${era}`], "rate"), "/s", true);
  row(
    `HTTP ${era} ${S.clients}x${S.callsPerClient} calls/s`,
    pick(results[`conc${era}`], "rate"),
    "/s",
    true,
  );
  row(
    `HTTP ${era} ${S.clients}x${S.callsPerClient} p99 latency`,
    pick(results[`conc${era}`], "p99"),
    "ms",
    false,
  );
}
row("custom method in-process calls/s", pick(results.customInProcess, "rate"), "/s", true);
row(`custom method HTTP ${MODERN} sequential calls/s`, pick(results.customHttp, "rate"), "/s", true);
row(`RSS per idle 2025-11-25 session (${S.sessions} more)`, pick(results.memory, "rss"), "KB", false);
row(`heap per idle 2025-11-25 session (${S.sessions} more)`, pick(results.memory, "heap"), "KB", false);
row(`RSS per session over the first ${S.sessions}`, pick(results.memory, "firstRss"), "KB", false);
row("cold import of client + server", pick(results.cold, "ms"), "ms", false);
row("installed size (dependency closure)", pick(footprint, "bytes"), "MB", false);
row("runtime dependencies", pick(footprint, "dependencies"), "", false);

const header = [
  "workload",
  "mcpkit",
  "official v1",
  "official v2",
  "floor",
  "mcpkit / best official",
  "mcpkit / floor",
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
const cpu = cpus();
console.log(`mcpkit benchmark, scale ${scaleName}, ${S.rounds} rounds (medians), warm-up first`);
console.log(
  `node ${process.version}, ${process.platform}/${process.arch}, ${cpu[0]?.model ?? "unknown CPU"}, ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
);
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
console.log(line(header));
console.log(line(widths.map((w) => "-".repeat(w))));
for (const r of rows) console.log(line(r));
console.log("");
for (const [label, set] of [
  ["in-process", results.customInProcess],
  [`HTTP ${MODERN}`, results.customHttp],
]) {
  const custom = set?.mcpkit?.rate;
  const tool = set?.["mcpkit-tool"]?.rate;
  if (custom === undefined || tool === undefined) continue;
  console.log(
    `mcpkit custom method vs tools/call, ${label}, same rounds: ${fmt(custom, "/s")} vs ${fmt(tool, "/s")} (${(custom / tool).toFixed(2)}x)`,
  );
}
console.log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
