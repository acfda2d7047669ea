/**
 * `npm run cycles`: CYCLES (default 1,000) launch/call/close cycles of `cycles-server.mjs` through
 * `launchStdio` and an mcpkit `Client`. Each cycle connects, has the server start four descendants that try to
 * outlive it (`spawnTree`: new sessions, SIGTERM ignored, an orphaned grandchild), calls `add`, and closes.
 *
 * It fails (exit 1) when a close rejects or reports survivors or signal problems, when any process of the run is
 * alive at the end (a scan of /proc for the run's token in argv or environment, and for every launch's marker),
 * when this process still has a child, or when its open file descriptors grew by more than CYCLES_FD_TOLERANCE
 * (default 2) from the baseline taken after one warm-up cycle; survivors are killed after being reported.
 * CYCLES_INJECT_SURVIVOR=1 makes the server start one process the launcher cannot catch, to see the check fail.
 * Linux only. See docs/reliability.md.
 */
import { readdirSync, readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { Client } from "mcpkit/client";
import { launchStdio, STDIO_MARKER_ENV } from "mcpkit/stdio";
import { intEnv } from "./util.mjs";

if (process.platform !== "linux") throw new Error("npm run cycles needs Linux (/proc)");
const CYCLES = intEnv("CYCLES", 1_000, 1);
const FD_TOLERANCE = intEnv("CYCLES_FD_TOLERANCE", 2);
const SERVER = fileURLToPath(new URL("./cycles-server.mjs", import.meta.url));
const RUN = `mcpkit-cycles-${process.pid}-${Date.now().toString(36)}`;
const RUN_ENV = "MCPKIT_CYCLES_RUN";
const log = (text) => process.stdout.write(`${text}\n`);

/** `/proc/<pid>/<file>` split at NULs, or undefined when the process is gone or unreadable. */
function procList(pid, file) {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "latin1").split("\0");
  } catch {
    return undefined;
  }
}

/** The state letter and parent pid of a process, from /proc/<pid>/stat. */
function stat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "latin1");
    const [state, ppid] = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** Live (non-zombie) processes other than this one that carry the run's token or one of `markers`. */
function survivors(markers) {
  const found = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const state = stat(entry)?.state;
    if (state === undefined || state === "Z" || state === "X") continue;
    const argv = procList(entry, "cmdline") ?? [];
    const environ = procList(entry, "environ") ?? [];
    const launchMarkers = environ
      .find((e) => e.startsWith(`${STDIO_MARKER_ENV}=`))
      ?.split("=")[1]
      ?.split(":");
    if (
      argv.some((arg) => arg.includes(RUN)) ||
      environ.includes(`${RUN_ENV}=${RUN}`) ||
      launchMarkers?.some((token) => markers.has(token))
    ) {
      found.push({ pid: Number(entry), argv: argv.join(" ").trim() });
    }
  }
  return found;
}

/** Live children of this process. */
function liveChildren() {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      const s = stat(entry);
      return s?.ppid === process.pid && s.state !== "Z" && s.state !== "X";
    });
}

const openFds = () => readdirSync("/proc/self/fd").length;

/** One cycle; returns its report, or throws on the first surprise. */
async function cycle(i, markers) {
  const transport = launchStdio({
    command: process.execPath,
    args: [SERVER, RUN],
    env: { [RUN_ENV]: RUN },
  });
  markers.add(transport.marker);
  const client = new Client({ transport, clientInfo: { name: "cycles", version: "1.0.0" } });
  try {
    await client.connect();
    const tree = await client.callTool("spawnTree", {});
    if (tree.isError || tree.structuredContent?.sleeps?.length !== 4)
      throw new Error(`cycle ${i}: spawnTree answered ${JSON.stringify(tree)}`);
    const sum = await client.callTool("add", { a: i, b: 1 });
    if (sum.content?.[0]?.text !== String(i + 1)) throw new Error(`cycle ${i}: add answered wrongly`);
  } finally {
    await client.close();
  }
  const report = transport.cleanupReport;
  if (report === undefined || report.survivors.length > 0 || report.problems.length > 0)
    throw new Error(`cycle ${i}: cleanup report ${JSON.stringify(report)}`);
  return report;
}

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

// One cycle first, so that lazily opened descriptors (libuv's signal pipe for SIGCHLD) are in the baseline.
await cycle(-1, new Set());
const fdsBefore = openFds();
const childrenBefore = liveChildren().length;
const markers = new Set();
const times = [];
const cleanupTimes = [];
let tracked = 0;
let swept = 0;
const failures = [];
log(`cycles: ${CYCLES.toLocaleString("en-US")} launch/call/close cycles of ${SERVER} (run ${RUN})`);
const started = performance.now();
for (let i = 0; i < CYCLES; i++) {
  const cycleStarted = performance.now();
  try {
    const report = await cycle(i, markers);
    cleanupTimes.push(report.durationMs);
    tracked += report.tracked;
    swept += report.swept;
  } catch (error) {
    failures.push(error);
    if (failures.length > 10) break;
  }
  times.push(performance.now() - cycleStarted);
  if ((i + 1) % 100 === 0) {
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    log(`  ${i + 1}/${CYCLES}: ${seconds} s, fds ${openFds()}, failures ${failures.length}`);
  }
}
const elapsed = (performance.now() - started) / 1000;
const fdsAfter = openFds();
const left = survivors(markers);
const childrenAfter = liveChildren().length;
times.sort((a, b) => a - b);
cleanupTimes.sort((a, b) => a - b);

const problems = [];
if (failures.length > 0) problems.push(`${failures.length} cycles failed; first: ${failures[0]?.stack}`);
if (left.length > 0) problems.push(`${left.length} processes survived: ${JSON.stringify(left.slice(0, 10))}`);
if (childrenAfter > childrenBefore) problems.push(`${childrenAfter - childrenBefore} children left`);
if (fdsAfter > fdsBefore + FD_TOLERANCE)
  problems.push(`open file descriptors grew from ${fdsBefore} to ${fdsAfter} (tolerance ${FD_TOLERANCE})`);

log("");
log(
  `cycles summary (node ${process.version}, ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(1))})`,
);
log(
  `  cycles:     ${times.length.toLocaleString("en-US")} in ${elapsed.toFixed(1)} s, ${failures.length} failed`,
);
log(
  `  per cycle:  p50 ${percentile(times, 50)?.toFixed(1)} ms, p99 ${percentile(times, 99)?.toFixed(1)} ms, ` +
    `max ${times.at(-1)?.toFixed(1)} ms`,
);
log(
  `  cleanup:    p50 ${percentile(cleanupTimes, 50)?.toFixed(1)} ms, p99 ${percentile(cleanupTimes, 99)?.toFixed(1)} ms; ` +
    `${tracked.toLocaleString("en-US")} descendants tracked, ${swept.toLocaleString("en-US")} killed by the sweep`,
);
log(
  `  survivors:  ${left.length} (markers scanned: ${markers.size}), children of this process ${childrenAfter}`,
);
log(`  fds:        ${fdsBefore} before, ${fdsAfter} after (tolerance ${FD_TOLERANCE})`);
if (problems.length > 0) {
  for (const problem of problems) log(`FAIL: ${problem}`);
  // Reported; now leave nothing behind.
  let killed = 0;
  for (const { pid } of left) {
    try {
      process.kill(pid, "SIGKILL");
      killed++;
    } catch {
      // gone meanwhile
    }
  }
  if (left.length > 0) log(`killed ${killed} of the ${left.length} survivors`);
  process.exit(1);
}
log("PASS");
