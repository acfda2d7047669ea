/**
 * A profiling harness for HTTP: `node --cpu-prof --cpu-prof-dir=<dir> bench/profile-http.mjs <era> [calls]`
 * runs `calls` (default 20,000) sequential `tools/call`s of `add` from mcpkit's client (this process, profiled
 * by the flags it was started with) to the mcpkit peer of `npm run bench` (bench/peer.mjs, forked, profiled
 * into the same directory). Prints calls/s. `era`: 2025-11-25 or 2026-07-28. Read the two profiles with
 * `node bench/cpuprofile-summary.mjs <file>`.
 */
import { http } from "./clients.mjs";
import { startPeer } from "./harness.mjs";

const [era = "2025-11-25", count = "20000"] = process.argv.slice(2);
const profileDir = process.execArgv.find((arg) => arg.startsWith("--cpu-prof-dir="));
const peer = await startPeer("mcpkit", era, { execArgv: profileDir ? ["--cpu-prof", profileDir] : [] });
try {
  const calls = await http.mcpkit(peer.url, era);
  try {
    for (let i = 0; i < 500; i++) await calls.call(i);
    const started = performance.now();
    for (let i = 0; i < Number(count); i++) await calls.call(i);
    console.log(`${era}: ${Math.round(Number(count) / ((performance.now() - started) / 1000))} calls/s`);
  } finally {
    await calls.close();
  }
} finally {
  await peer.end();
}
