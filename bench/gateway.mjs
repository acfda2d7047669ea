/**
 * `npm run bench:gateway`: the per-call cost of the gateway. Uses the built package (dist/).
 *
 * 1. In this process: the same stdio upstream (an mcpkit server, test/fixtures/stdio/mcp-server.mjs, its `add`
 *    tool) called directly by an mcpkit client, and through `createGateway` by a client in process and by one
 *    over Streamable HTTP on 127.0.0.1, both eras: sequential calls (p50, p99), then 16 concurrent callers.
 * 2. Bridges, each its own process in front of its own copy of that upstream, called over Streamable HTTP
 *    (2025-11-25) by an mcpkit client in this process: supergateway 4.0.0 (--stateful), mcp-proxy 6.7.19 and
 *    `mcpkit gateway`. All three run at once and their rounds are interleaved (round 1 of each, then round 2...),
 *    so a change of the machine's load falls on all of them alike. A round is sequential calls (p50, p99), then
 *    each caller count of BENCH_CALLERS, each with its calls/s and the p50/p99 of its calls. Medians over the
 *    rounds are printed, with ratios mcpkit / supergateway and mcpkit / mcp-proxy.
 *
 *    Calls/s on a shared 2-core machine measure the machine as much as the bridge: the client, the bridge and
 *    the upstream all run on it. So each concurrent phase also reads the CPU time (utime + stime from
 *    /proc/<pid>/stat, 10 ms ticks) of the bridge's processes (the bridge and its children but the upstream),
 *    of the upstream, and of this process (the client), before and after: "bridge CPU µs/call", and the capacity
 *    it implies (1e6 / µs: calls/s one core could carry), which do not depend on what else runs.
 *
 *    BENCH_PIN=1 pins this process (the client) to core 0 and the bridges with their upstreams to core 1
 *    (`taskset`); off by default, since on a machine shared with other work pinning only moves the contention.
 *
 * Env: BENCH_CALLS (sequential calls per row and round, default 2,000), BENCH_CONCURRENT_CALLS (calls per
 * concurrent phase, default 10,000), BENCH_ROUNDS (default 5), BENCH_CALLERS (default "16,64"),
 * BENCH_SKIP_IN_PROCESS=1 (bridges only), BENCH_PIN=1.
 */
import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "../dist/client/index.js";
import { createGateway } from "../dist/gateway/index.js";
import { StreamableHttpClientTransport } from "../dist/http/index.js";
import { createInProcessPair } from "../dist/index.js";
import { nodeHttp, serve } from "../dist/node/index.js";
import { launchStdio } from "../dist/stdio/index.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 2_000);
const CONCURRENT_CALLS = Number(process.env.BENCH_CONCURRENT_CALLS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLERS = (process.env.BENCH_CALLERS ?? "16,64").split(",").map(Number);
const PIN = process.env.BENCH_PIN === "1";
const UPSTREAM = fileURLToPath(new URL("../test/fixtures/stdio/mcp-server.mjs", import.meta.url));
const clientInfo = { name: "bench", version: "1" };
const ARGS = { a: 1, b: 2 };

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function sequential(client, tool, calls) {
  const times = new Float64Array(calls);
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await client.callTool(tool, ARGS);
    times[i] = performance.now() - start;
  }
  times.sort();
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

/** `callers` concurrent callers making `calls` calls in all: calls/s and the latency of each call. */
async function concurrent(client, tool, calls, callers) {
  const times = new Float64Array(calls);
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      for (let i = next++; i < calls; i = next++) {
        const begin = performance.now();
        await client.callTool(tool, ARGS);
        times[i] = performance.now() - begin;
      }
    }),
  );
  const rate = calls / ((performance.now() - start) / 1000);
  times.sort();
  return { rate, p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

const ms = (value) => `${value.toFixed(3)} ms`;
const fmt = (value) => Math.round(value).toLocaleString("en-US");

if (PIN) spawnSync("taskset", ["-cp", "0", String(process.pid)], { stdio: "ignore" });
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}; ${PIN ? "pinned: client core 0, bridges core 1" : "not pinned"}`,
);

if (process.env.BENCH_SKIP_IN_PROCESS !== "1") {
  const row = (name, seq, conc) =>
    console.log(
      `${name.padEnd(40)} p50 ${ms(seq.p50)}  p99 ${ms(seq.p99)}  16 callers: ${fmt(conc.rate)} calls/s`,
    );
  const measure = async (client, tool) => {
    await sequential(client, tool, 200);
    const seq = await sequential(client, tool, CALLS);
    const conc = await concurrent(client, tool, Math.max(CALLS, 5_000), 16);
    return [seq, conc];
  };
  for (const era of ["2026-07-28", "2025-11-25"]) {
    const direct = new Client({
      transport: launchStdio({ command: process.execPath, args: [UPSTREAM] }),
      clientInfo,
      protocolVersion: era,
    });
    await direct.connect();
    row(`direct stdio (${era})`, ...(await measure(direct, "add")));
    await direct.close();

    const gateway = createGateway({
      config: {
        mcpServers: { up: { command: process.execPath, args: [UPSTREAM], start: "boot", maxConcurrent: 64 } },
      },
    });
    await gateway.ready;
    const [clientSide, serverSide] = createInProcessPair();
    await gateway.connect(serverSide);
    const inProcess = new Client({ transport: clientSide, clientInfo, protocolVersion: era });
    await inProcess.connect();
    row(`gateway in process -> stdio (${era})`, ...(await measure(inProcess, "up__add")));
    await inProcess.close();

    const handle = await serve(gateway);
    const overHttp = new Client({
      transport: new StreamableHttpClientTransport({ url: handle.url, http: nodeHttp() }),
      clientInfo,
      protocolVersion: era,
    });
    await overHttp.connect();
    row(`gateway over HTTP -> stdio (${era})`, ...(await measure(overHttp, "up__add")));
    await overHttp.close();
    await handle.close();
    await gateway.close();
  }
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

/** CPU ticks (utime + stime) of a process, 0 once it is gone. */
function ticks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command's closing parenthesis: state is 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** The process tree under `root` (itself included), split into the upstream's processes and the rest. */
function tree(root) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {}
  }
  const bridge = [];
  const upstream = [];
  const walk = (pid) => {
    let argv = [];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    } catch {}
    // The upstream is `node <UPSTREAM>`, or a shell running it (`sh -c "node <UPSTREAM>"`).
    const isUpstream = argv[1] === UPSTREAM || (argv[1] === "-c" && (argv[2] ?? "").includes(UPSTREAM));
    (isUpstream ? upstream : bridge).push(pid);
    for (const child of children.get(pid) ?? []) walk(child);
  };
  walk(root);
  return { bridge, upstream };
}

const TICK_S = 1 / 100;
const sum = (pids) => pids.reduce((total, pid) => total + ticks(pid), 0);

/** Starts a bridge process and connects a 2025-11-25 client to its URL once it answers. */
async function bridged(name, command, args, url, tool) {
  const argv = PIN ? ["-c", "1", process.execPath, command, ...args] : [command, ...args];
  const child = spawn(PIN ? "taskset" : process.execPath, argv, { stdio: ["ignore", "ignore", "ignore"] });
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
      if (attempt > 100) {
        child.kill("SIGTERM");
        throw error;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  // Warm up (JIT of all three processes), then find the processes (the upstream is up by now).
  await sequential(client, tool, 500);
  await concurrent(client, tool, 2_000, 16);
  return { name, child, client, tool, pids: tree(child.pid), rounds: [] };
}

const modules = (path) => fileURLToPath(new URL(`../node_modules/${path}`, import.meta.url));
const config = join(tmpdir(), `mcpkit-bench-gateway-${process.pid}.json`);
writeFileSync(
  config,
  JSON.stringify({
    mcpServers: { up: { command: process.execPath, args: [UPSTREAM], start: "boot", maxConcurrent: 64 } },
  }),
);
const ports = [await freePort(), await freePort(), await freePort()];
const bridges = [
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
      String(ports[0]),
      "--logLevel",
      "none",
    ],
    `http://127.0.0.1:${ports[0]}/mcp`,
    "add",
  ),
  await bridged(
    "mcp-proxy 6.7.19",
    modules("mcp-proxy/dist/bin/mcp-proxy.mjs"),
    [
      "--port",
      String(ports[1]),
      "--host",
      "127.0.0.1",
      "--server",
      "stream",
      "--",
      process.execPath,
      UPSTREAM,
    ],
    `http://127.0.0.1:${ports[1]}/mcp`,
    "add",
  ),
  await bridged(
    "mcpkit gateway",
    fileURLToPath(new URL("../dist/cli/main.js", import.meta.url)),
    ["gateway", "--config", config, "--port", String(ports[2]), "--no-watch"],
    `http://127.0.0.1:${ports[2]}/mcp`,
    "up__add",
  ),
];

try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const bridge of bridges) {
      const result = { seq: await sequential(bridge.client, bridge.tool, CALLS), conc: {} };
      for (const callers of CALLERS) {
        const before = {
          bridge: sum(bridge.pids.bridge),
          upstream: sum(bridge.pids.upstream),
          client: process.cpuUsage(),
        };
        const conc = await concurrent(bridge.client, bridge.tool, CONCURRENT_CALLS, callers);
        const client = process.cpuUsage(before.client);
        const perCall = (ticksUsed) => (ticksUsed * TICK_S * 1e6) / CONCURRENT_CALLS;
        result.conc[callers] = {
          ...conc,
          bridgeUs: perCall(sum(bridge.pids.bridge) - before.bridge),
          upstreamUs: perCall(sum(bridge.pids.upstream) - before.upstream),
          clientUs: (client.user + client.system) / CONCURRENT_CALLS,
        };
      }
      bridge.rounds.push(result);
    }
  }
} finally {
  for (const bridge of bridges) {
    await bridge.client.close().catch(() => {});
    bridge.child.kill("SIGTERM");
  }
}

const summary = bridges.map((bridge) => {
  const pick = (get) => median(bridge.rounds.map(get));
  const out = { name: bridge.name, p50: pick((r) => r.seq.p50), p99: pick((r) => r.seq.p99), conc: {} };
  for (const callers of CALLERS) {
    const at = (key) => pick((r) => r.conc[callers][key]);
    out.conc[callers] = {
      rate: at("rate"),
      p50: at("p50"),
      p99: at("p99"),
      bridgeUs: at("bridgeUs"),
      upstreamUs: at("upstreamUs"),
      clientUs: at("clientUs"),
    };
  }
  return out;
});

console.log(
  `\nbridges -> stdio upstream, client 2025-11-25 over HTTP; medians of ${ROUNDS} rounds ` +
    `(${CALLS} sequential calls, ${CONCURRENT_CALLS} concurrent calls per caller count)`,
);
for (const s of summary) {
  console.log(`${s.name.padEnd(30)} sequential: p50 ${ms(s.p50)}  p99 ${ms(s.p99)}`);
  for (const callers of CALLERS) {
    const c = s.conc[callers];
    console.log(
      `${"".padEnd(30)} ${String(callers).padStart(2)} callers: ${fmt(c.rate).padStart(6)} calls/s  ` +
        `p50 ${ms(c.p50)}  p99 ${ms(c.p99)}  bridge CPU ${c.bridgeUs.toFixed(0)} µs/call ` +
        `(${fmt(1e6 / c.bridgeUs)} calls/s per core)  upstream ${c.upstreamUs.toFixed(0)} µs  client ${c.clientUs.toFixed(0)} µs`,
    );
  }
}
const ours = summary[2];
for (const other of summary.slice(0, 2)) {
  console.log(`\nmcpkit gateway / ${other.name}:`);
  console.log(
    `  sequential p50 ${(other.p50 / ours.p50).toFixed(2)}x sooner, p99 ${(other.p99 / ours.p99).toFixed(2)}x sooner`,
  );
  for (const callers of CALLERS) {
    const a = ours.conc[callers];
    const b = other.conc[callers];
    console.log(
      `  ${callers} callers: calls/s ${(a.rate / b.rate).toFixed(2)}x, p99 ${(b.p99 / a.p99).toFixed(2)}x sooner, ` +
        `bridge CPU per call ${(b.bridgeUs / a.bridgeUs).toFixed(2)}x less`,
    );
  }
}
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
