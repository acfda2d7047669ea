/**
 * The server of `npm run cycles`: an mcpkit server on stdio (the BUILT package) whose `spawnTree` tool leaves
 * descendants that try to outlive it, and answers only once all of them are running:
 *
 * - `plain`: `sleep`, in the server's process group, holding the server's stdout;
 * - `setsid`: util-linux `setsid sleep`, in a session of its own;
 * - `detached`: a shell started `detached` (node calls setsid()) that ignores SIGTERM, with a `sleep`
 *   grandchild that ignores it too;
 * - `orphan`: a shell that starts `setsid sleep` in the background and exits at once, so the `sleep` is
 *   reparented (its ancestry is gone) and lives in its own session, ignoring SIGTERM.
 *
 * Every one of them keeps the environment (the launcher's marker among it): what `launchStdio` promises to
 * clean up (docs/stdio.md, "The trust boundary"). Diagnostics go to stderr; stdout carries frames only.
 *
 * With CYCLES_INJECT_SURVIVOR=1 (for the test that shows the driver's scan can fail) it also starts what the
 * launcher does not promise to catch: a `sleep 30` orphaned in a session of its own, with an environment of
 * nothing but the run's token (the launcher's marker dropped).
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { ServerBuilder } from "mcpkit/server";
import { STDIO_MARKER_ENV, serveStdio } from "mcpkit/stdio";

const SLEEPS = 4;
const quiet = { stdio: ["ignore", "ignore", "ignore"] };
const marker = `${STDIO_MARKER_ENV}=${process.env[STDIO_MARKER_ENV]}`;

/** Pids of the live `sleep` processes that carry this server's marker. */
function markedSleeps() {
  const found = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv0 = readFileSync(`/proc/${entry}/cmdline`, "latin1").split("\0")[0] ?? "";
      if (argv0 !== "sleep" && !argv0.endsWith("/sleep")) continue;
      if (readFileSync(`/proc/${entry}/environ`, "latin1").split("\0").includes(marker))
        found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** A hostile descendant: no marker, no ancestry once its parent has exited (which this waits for). */
async function spawnSurvivor() {
  const parent = spawn("/bin/sh", ["-c", "/bin/sleep 30 & exit 0"], {
    ...quiet,
    env: { MCPKIT_CYCLES_RUN: process.env.MCPKIT_CYCLES_RUN },
    detached: true,
  });
  await new Promise((resolve) => parent.once("exit", resolve));
}

async function spawnTree() {
  const children = {
    plain: spawn("sleep", ["1000"], { stdio: ["ignore", "inherit", "ignore"] }),
    setsid: spawn("setsid", ["sleep", "1000"], quiet),
    detached: spawn("sh", ["-c", 'trap "" TERM; sleep 1000 & wait'], { ...quiet, detached: true }),
    orphan: spawn("sh", ["-c", 'trap "" TERM; setsid sleep 1000 & exit 0'], quiet),
  };
  for (const child of Object.values(children)) child.unref();
  if (process.env.CYCLES_INJECT_SURVIVOR === "1") await spawnSurvivor();
  const deadline = performance.now() + 10_000;
  let sleeps = markedSleeps();
  while (sleeps.length < SLEEPS) {
    if (performance.now() > deadline) throw new Error(`only ${sleeps.length} of ${SLEEPS} sleeps started`);
    await new Promise((resolve) => setTimeout(resolve, 2));
    sleeps = markedSleeps();
  }
  const pids = Object.fromEntries(Object.entries(children).map(([name, child]) => [name, child.pid]));
  return { content: [{ type: "text", text: JSON.stringify(pids) }], structuredContent: { pids, sleeps } };
}

const server = new ServerBuilder({ serverInfo: { name: "cycles", version: "1.0.0" } })
  .tool({ name: "spawnTree", inputSchema: { type: "object" } }, spawnTree)
  .tool(
    {
      name: "add",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
    },
    ({ a, b }) => ({ content: [{ type: "text", text: String(Number(a) + Number(b)) }] }),
  )
  .build();

try {
  await serveStdio(server);
} catch (error) {
  console.error("cycles-server:", error);
  process.exitCode = 1;
}
