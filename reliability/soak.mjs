/**
 * `npm run soak`: a long run against one mcpkit HTTP server process, checking that its heap does not grow.
 *
 * The server (`soak-server.mjs`, forked with `--expose-gc`) serves two validated tools on 127.0.0.1. The driver
 * sends SOAK_CALLS stateless 2026-07-28 `tools/call`s (SOAK_CLIENTS at once, each sequential) and, at the same
 * time, SOAK_CYCLES 2025-11-25 session cycles (initialize, initialized, one call, DELETE; SOAK_SESSION_CLIENTS at
 * once), over raw `node:http` keep-alive connections. The work is cut into SOAK_SAMPLES slices; after each slice,
 * with nothing in flight, the server reports `heapUsed` after a forced GC. The samples of the first
 * SOAK_WARMUP_PERCENT of the run are the warm-up; the last of them is the baseline. It fails (exit 1) on any
 * failed call, on a later sample more than SOAK_MAX_DRIFT_PERCENT above the baseline, or on a session or
 * subscription still open at the end.
 *
 * Env (defaults): SOAK_CALLS (1,000,000), SOAK_CYCLES (100,000), SOAK_CLIENTS (8), SOAK_SESSION_CLIENTS (4),
 * SOAK_SAMPLES (100), SOAK_WARMUP_PERCENT (10), SOAK_MAX_DRIFT_PERCENT (10); SOAK_JSON=<file> writes every
 * sample there. SOAK_INJECT_LEAK_BYTES=<n> makes the server keep n bytes per `add` call, to see the check fail.
 * See docs/reliability.md.
 */
import { fork } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { httpDriver } from "./http-driver.mjs";
import { intEnv, mb, ratePerSecond } from "./util.mjs";

const CALLS = intEnv("SOAK_CALLS", 1_000_000);
const CYCLES = intEnv("SOAK_CYCLES", 100_000);
const CLIENTS = intEnv("SOAK_CLIENTS", 8, 1);
const SESSION_CLIENTS = intEnv("SOAK_SESSION_CLIENTS", 4, 1);
const SAMPLES = intEnv("SOAK_SAMPLES", 100, 2);
const WARMUP_PERCENT = intEnv("SOAK_WARMUP_PERCENT", 10, 1);
const MAX_DRIFT_PERCENT = intEnv("SOAK_MAX_DRIFT_PERCENT", 10);
const WARMUP_SLICES = Math.max(1, Math.round((SAMPLES * WARMUP_PERCENT) / 100));
if (WARMUP_SLICES >= SAMPLES) throw new Error("SOAK_WARMUP_PERCENT leaves no slice after the warm-up");

const SERVER = fileURLToPath(new URL("./soak-server.mjs", import.meta.url));
const log = (text) => process.stdout.write(`${text}\n`);

const child = fork(SERVER, [], { execArgv: ["--expose-gc"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
const [ready] = await once(child, "message");
if (ready?.type !== "ready") throw new Error(`the soak server said ${JSON.stringify(ready)}`);

/** Asks the server for one sample (memory after a forced GC, open sessions). */
function sample() {
  const answer = new Promise((resolve) => {
    const listener = (message) => {
      if (message?.type !== "sample") return;
      child.off("message", listener);
      resolve(message);
    };
    child.on("message", listener);
  });
  child.send({ type: "sample" });
  return answer;
}

/** Runs `count` jobs `from`, `from + 1`, ... with `width` sequential workers; returns the failures. */
async function runJobs(from, count, width, job, failures) {
  let next = from;
  const end = from + count;
  const worker = async () => {
    while (next < end) {
      const i = next++;
      try {
        await job(i);
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
}

/** The bounds of slice `k` of `total` jobs cut into SAMPLES slices. */
const sliceOf = (total, k) => {
  const from = Math.floor((total * k) / SAMPLES);
  return [from, Math.floor((total * (k + 1)) / SAMPLES) - from];
};

const driver = httpDriver(ready.url, CLIENTS + SESSION_CLIENTS);
const failures = [];
const samples = [];
let calls = 0;
let cycles = 0;
log(
  `soak: ${CALLS.toLocaleString("en-US")} calls (2026-07-28, ${CLIENTS} clients) + ` +
    `${CYCLES.toLocaleString("en-US")} session cycles (2025-11-25, ${SESSION_CLIENTS} clients) against ${ready.url}`,
);
log(`soak: ${SAMPLES} samples, warm-up ${WARMUP_SLICES}, max drift ${MAX_DRIFT_PERCENT}%`);
const started = performance.now();
for (let k = 0; k < SAMPLES; k++) {
  const [callsFrom, callCount] = sliceOf(CALLS, k);
  const [cyclesFrom, cycleCount] = sliceOf(CYCLES, k);
  await Promise.all([
    runJobs(callsFrom, callCount, CLIENTS, (i) => driver.modernCall(i), failures),
    runJobs(cyclesFrom, cycleCount, SESSION_CLIENTS, (i) => driver.legacyCycle(i), failures),
  ]);
  calls += callCount;
  cycles += cycleCount;
  const taken = await sample();
  samples.push(taken);
  if ((k + 1) % 10 === 0 || k + 1 === WARMUP_SLICES) {
    const seconds = (performance.now() - started) / 1000;
    log(
      `  ${String(k + 1).padStart(3)}/${SAMPLES}: ${calls} calls, ${cycles} cycles, ${seconds.toFixed(0)} s, ` +
        `heap ${mb(taken.heapUsed)}, rss ${mb(taken.rss)}, sessions ${taken.sessions}, failures ${failures.length}`,
    );
  }
  if (failures.length > 100) break;
}
const elapsed = (performance.now() - started) / 1000;
driver.close();
const last = samples.at(-1);
child.send({ type: "close" });
await once(child, "exit");

const baseline = samples[WARMUP_SLICES - 1].heapUsed;
const after = samples.slice(WARMUP_SLICES);
const max = after.reduce((top, s) => (s.heapUsed > top.heapUsed ? s : top), after[0] ?? last);
const drift = ((max.heapUsed - baseline) / baseline) * 100;
const requests = calls + cycles * 4;
const problems = [];
if (failures.length > 0)
  problems.push(`${failures.length} failed calls or cycles; first: ${failures[0]?.stack}`);
if (drift > MAX_DRIFT_PERCENT)
  problems.push(`heap drift ${drift.toFixed(1)}% over the warm-up baseline (max ${MAX_DRIFT_PERCENT}%)`);
if (last.sessions !== 0) problems.push(`${last.sessions} sessions still open at the end`);
if (last.subscriptions !== 0) problems.push(`${last.subscriptions} subscriptions still open at the end`);

log("");
log(
  `soak summary (node ${process.version}, ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(1))})`,
);
log(`  calls:        ${calls.toLocaleString("en-US")} tools/call (2026-07-28), ${failures.length} failed`);
log(`  sessions:     ${cycles.toLocaleString("en-US")} open/call/DELETE cycles (2025-11-25)`);
log(
  `  requests:     ${requests.toLocaleString("en-US")} HTTP in ${elapsed.toFixed(1)} s, ${ratePerSecond(requests, elapsed)}`,
);
log(
  `  heap:         baseline ${mb(baseline)} (sample ${WARMUP_SLICES}), max after warm-up ${mb(max.heapUsed)}, final ${mb(last.heapUsed)}`,
);
log(
  `  drift:        ${drift >= 0 ? "+" : ""}${drift.toFixed(2)}% (limit ${MAX_DRIFT_PERCENT}%); first sample ${mb(samples[0].heapUsed)}`,
);
log(`  rss:          first ${mb(samples[0].rss)}, final ${mb(last.rss)}`);
log(
  `  external:     first ${mb(samples[0].external)}, final ${mb(last.external)} (buffers, outside the heap)`,
);
log(`  at the end:   ${last.sessions} sessions, ${last.subscriptions} subscriptions open`);
if (process.env.SOAK_JSON) {
  const figures = {
    calls,
    cycles,
    failures: failures.length,
    elapsed,
    baseline,
    max: max.heapUsed,
    drift,
    samples,
  };
  writeFileSync(process.env.SOAK_JSON, `${JSON.stringify(figures, null, 1)}\n`);
}
if (problems.length > 0) {
  for (const problem of problems) log(`FAIL: ${problem}`);
  process.exit(1);
}
log("PASS");
