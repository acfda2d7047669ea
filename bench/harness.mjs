/**
 * What `bench/run.mjs` (mcpkit against the official SDKs) and `bench/compare.mjs` (two builds of mcpkit) share:
 * the scales, the rounds (warm-up first, the order rotated each round, medians), the sequential and concurrent
 * workloads, the forked HTTP peer and the idle-session memory measurement.
 */
import { execFileSync, fork } from "node:child_process";
import { cpus, loadavg, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { LEGACY } from "./servers.mjs";

export const SCALES = {
  full: {
    inProcess: 50_000,
    stdio: 5_000,
    stdioWarmup: 6_000,
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
    stdioWarmup: 20,
    httpSequential: 50,
    clients: 5,
    callsPerClient: 5,
    sessions: 20,
    coldRuns: 2,
    rounds: 2,
  },
};

/** BENCH_SCALE=smoke (tiny counts, for CI) or full (default); BENCH_ROUNDS=<n> overrides the round count. */
export function scaleFromEnv(env = process.env) {
  const name = env.BENCH_SCALE === "smoke" ? "smoke" : "full";
  const scale = { ...SCALES[name] };
  if (env.BENCH_ROUNDS) scale.rounds = Math.max(1, Number(env.BENCH_ROUNDS));
  return { name, scale };
}

const PEER = fileURLToPath(new URL("./peer.mjs", import.meta.url));

export const median = (values) => {
  const sorted = values.filter((v) => v !== undefined).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
export const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
export const log = (text) => process.stderr.write(`${text}\n`);

/** The machine a run was made on, as recorded with its results. */
export function machine() {
  const cpu = cpus();
  return {
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
    cpu: cpu[0]?.model?.trim() ?? "unknown CPU",
    cores: cpu.length,
    memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
    loadAverage: loadavg().map((v) => Number(v.toFixed(2))),
  };
}

/** The commit checked out in `cwd` and whether its tracked files differ from it. */
export function gitCommit(cwd = fileURLToPath(new URL("..", import.meta.url))) {
  const git = (...args) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
  return {
    commit: git("rev-parse", "HEAD"),
    dirty: git("status", "--porcelain", "--untracked-files=no") !== "",
  };
}

/**
 * The official v1 HTTP client hands its session AbortSignal to every fetch, and each request adds an abort
 * listener to it; past undici's limit of 1,500 Node prints a MaxListenersExceededWarning on every call, and
 * printing thousands of them would slow the v1 rows. Reports that once; prints every other warning as usual.
 */
export function quietListenerWarnings() {
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
}

/**
 * Runs `measure(impl, warm)` for every implementation: one warm-up pass, then `count` rounds with the order
 * rotated each round. Returns, per impl, the list of what `measure` reported in each round (in round order).
 */
export async function collect(label, impls, count, measure) {
  log(`# ${label}`);
  for (const impl of impls) await measure(impl, true);
  const samples = Object.fromEntries(impls.map((impl) => [impl, []]));
  for (let r = 0; r < count; r++) {
    const order = impls.map((_, i) => impls[(i + r) % impls.length]);
    for (const impl of order) samples[impl].push(await measure(impl, false));
  }
  return samples;
}

/** Per impl, the median over the rounds of each metric in `collect`'s samples. */
export function medians(samples) {
  const result = {};
  for (const [impl, list] of Object.entries(samples)) {
    const keys = Object.keys(list[0] ?? {});
    result[impl] = Object.fromEntries(keys.map((k) => [k, median(list.map((s) => s[k]))]));
  }
  return result;
}

/**
 * Sequential calls on one connected client: calls per second. `warmup` calls are made first on the same
 * connection and not timed: a server in a child process starts cold, and the warm-up pass (another child)
 * cannot warm it.
 */
export async function sequential(connect, count, warmup = 0) {
  const calls = await connect();
  try {
    for (let i = 0; i < warmup; i++) await calls.call(i);
    const t = performance.now();
    for (let i = 0; i < count; i++) await calls.call(i);
    return { rate: count / ((performance.now() - t) / 1000) };
  } finally {
    await calls.close();
  }
}

/** `clients` connected clients, each making `perClient` sequential calls, all at once. */
export async function concurrent(connect, clients, perClient) {
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

/**
 * Forks an HTTP peer (`bench/peer.mjs http <impl> <era> ...flags`) on 127.0.0.1 and waits for its port.
 * `flags` pick another build of mcpkit (`--kit=<package dir>`, see peer.mjs).
 */
export async function startPeer(impl, era, { execArgv = [], flags = [] } = {}) {
  const child = fork(PEER, ["http", impl, era, ...flags], {
    execArgv,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const port = await new Promise((resolve, reject) => {
    child.once("message", (m) => resolve(m.port));
    child.once("exit", (code) => reject(new Error(`${impl} peer exited ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    /** The peer's process id (for reading its CPU time). */
    pid: child.pid,
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
    /** Ends the peer by closing its IPC channel: it exits by itself, writing what `--cpu-prof` collected. */
    end: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", resolve);
        child.disconnect();
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
export async function sessionMemory(impl, sessions, warm, flags = []) {
  const peer = await startPeer(impl, LEGACY, { execArgv: ["--expose-gc"], flags });
  try {
    for (let i = 0; i < 10; i++) await openSession(peer.url);
    const start = await peer.memory();
    if (!start.gc) throw new Error("the peer has no gc()");
    const count = warm ? Math.min(sessions, 50) : sessions;
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
