/**
 * The runtime matrix (issue 18): the built dist/ served on each runtime's own server (node:http on Node 22 and
 * 24, Bun.serve, Deno.serve, workerd through miniflare), driven from here through mcpkit's client in both eras:
 * tools, resources, prompts, SSE progress, list_changed on the 2025 GET stream and a 2026 listen stream, a
 * stream quiet for longer than the keepalive and Bun's idle cut, cancellation, the handler deadline, session
 * expiry, capacity recovery after abandoned calls. Then mcpkit's client runs inside each runtime against a Node
 * server. Runtimes run in parallel; each spends ~30 s, mostly waiting. Skipped (one notice line) when the
 * runtimes are not installed: `npm run runtimes:install`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUNTIME_FILES, type RuntimeName, runtimesInstalled, WORKERD_LAUNCHER } from "../support/runtimes.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const SERVE = here("./app/serve.mjs");
const CLIENT = here("./app/client.mjs");
const WORKER = here("./app/worker.mjs");
const ERAS = ["2025-11-25", "2026-07-28"] as const;
type Era = (typeof ERAS)[number];
/** Longer than the 15 s keepalive and than Bun.serve's default 10 s idle cut (the app sets 30 s, as documented). */
const QUIET_MS = 17_000;

const installed = runtimesInstalled();
const children: ChildProcess[] = [];

/** Starts `command` and resolves with the first line it prints (a URL). */
function start(command: string, args: string[]): Promise<string> {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n")[0] ?? "";
      if (out.includes("\n")) resolve(line.trim());
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on("exit", (code) => reject(new Error(`${command} exited ${code}: ${err.slice(0, 2_000)}`)));
  });
}

/** Runs `command` to its end and resolves with what it printed. */
function run(command: string, args: string[]): Promise<string> {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  return new Promise((resolve, reject) =>
    child.on("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} exited ${code}: ${err.slice(0, 2_000)}`)),
    ),
  );
}

const DENO_FLAGS = ["run", "--allow-net", "--allow-read", "--allow-env"];

/** Serves the matrix app on `runtime`; resolves with its base URL. */
function serveOn(runtime: RuntimeName): Promise<string> {
  switch (runtime) {
    case "workerd":
      return start(RUNTIME_FILES.node24, [WORKERD_LAUNCHER, WORKER]);
    case "deno":
      return start(RUNTIME_FILES.deno, [...DENO_FLAGS, SERVE]);
    default:
      return start(RUNTIME_FILES[runtime], [SERVE]);
  }
}

/** Runs the client checks inside `runtime` against the Node server at `url`, both eras. */
async function clientInside(runtime: RuntimeName, url: string, workerBase: string): Promise<unknown> {
  if (runtime === "workerd") {
    const out: { [era: string]: unknown } = {};
    for (const era of ERAS) {
      const answer = await fetch(new URL(`/client?url=${encodeURIComponent(url)}&era=${era}`, workerBase));
      out[era] = await answer.json();
    }
    return out;
  }
  const args = runtime === "deno" ? [...DENO_FLAGS, CLIENT, url] : [CLIENT, url];
  return JSON.parse(await run(RUNTIME_FILES[runtime], args));
}

const clientExpected = (era: Era) => ({
  tools: "5",
  resources: "hello",
  prompts: "Hello Ada",
  progressResult: `progress ${era}`,
  progress: ["half", "done"],
  listChanged: "notifications/tools/list_changed",
});

function serverExpected(era: Era, runtime: RuntimeName) {
  return {
    // Workers do not tell a handler that its client went away (docs/runtimes.md): a 2026 call whose client closed
    // the stream ends at its deadline there. Each sleep call reports its own end, so no earlier call's answers this.
    cancelled: !(runtime === "workerd" && era === "2026-07-28"),
    deadline: "handler callback timed out",
    afterAbandoned: "2",
    ...(era === "2025-11-25"
      ? {
          capFilled: "Session capacity reached: 5 sessions, over sessions.maxSessions (4)",
          sessionAfterExpiry: "4",
        }
      : {}),
    quietStream: "notifications/tools/list_changed",
  };
}

describe.skipIf(!installed)("the runtime matrix", () => {
  // biome-ignore lint/suspicious/noExplicitAny: the scenarios are plain JavaScript on dist/
  let scenarios: any;
  let nodeServer: Server;
  let nodeUrl = "";

  beforeAll(async () => {
    if (!existsSync(here("../../dist/index.js")))
      throw new Error("the matrix runs dist/: npm run build first");
    scenarios = await import(here("./scenarios.mjs"));
    const { createApp } = await import(here("./app/app.mjs"));
    const { toNodeHandler } = await import(here("../../dist/node/index.js"));
    nodeServer = createServer(toNodeHandler(createApp({ tight: false }).fetchHandler));
    await new Promise<void>((resolve) => nodeServer.listen(0, "127.0.0.1", resolve));
    nodeUrl = `http://127.0.0.1:${(nodeServer.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    for (const child of children) child.kill();
    nodeServer?.closeAllConnections();
    await new Promise((resolve) => nodeServer?.close(resolve));
  });

  const runtimes: RuntimeName[] = ["node22", "node24", "bun", "deno", "workerd"];
  it.concurrent.each(runtimes)(
    "%s: serves both eras on its own server, and runs mcpkit's client",
    async (runtime) => {
      const base = await serveOn(runtime);
      const url = new URL("/mcp", base).href;
      for (const era of ERAS) {
        expect({ era, ...(await scenarios.clientChecks(url, era)) }).toEqual({ era, ...clientExpected(era) });
        expect({ era, ...(await scenarios.serverChecks(url, era, { idleMs: QUIET_MS })) }).toEqual({
          era,
          ...serverExpected(era, runtime),
        });
      }
      expect(await clientInside(runtime, nodeUrl, base)).toEqual({
        "2025-11-25": clientExpected("2025-11-25"),
        "2026-07-28": clientExpected("2026-07-28"),
      });
    },
    120_000,
  );
});
