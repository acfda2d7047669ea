/**
 * Real parts for the cluster tests: a `redis-server` (no persistence) and an nginx round-robin balancer without
 * stickiness in front of N mcpkit instances (test/fixtures/cluster/instance.mjs, run on the BUILT package), each
 * on a free loopback port, everything in one temp dir. `stop()` ends every process it started and removes the
 * dir; call it in afterAll (it also runs on failure).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./wire-schema.js";

/** A free loopback TCP port (bound, read, released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Resolves once something accepts TCP connections on `port` (polls every 50 ms, at most `ms`). */
export async function waitForPort(port: number, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: "127.0.0.1", port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The nginx configuration of the tests (and of docs/deployment.md): round robin, no stickiness, SSE unbuffered. */
export function nginxConfig(dir: string, listenPort: number, upstreams: readonly number[]): string {
  return `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/nginx-error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream mcp {
${upstreams.map((port) => `    server 127.0.0.1:${port} max_fails=1 fail_timeout=5s;`).join("\n")}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${listenPort};
    location /mcp {
      proxy_pass http://mcp;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 1h;
      proxy_next_upstream error timeout;
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
}

/** One process of the cluster. */
interface Proc {
  child: ChildProcess;
  exited: Promise<void>;
}

function start(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Proc {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.stderr?.resume();
  return { child, exited };
}

async function stopProc(proc: Proc | undefined, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (proc === undefined || proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill(signal);
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), 3_000);
  await proc.exited;
  clearTimeout(timer);
}

/** A running cluster: its balancer URL, each instance's direct URL, and controls. */
export interface ClusterRig {
  /** The balancer's endpoint: `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** Each instance's own endpoint, by index. */
  readonly instanceUrls: readonly string[];
  readonly redisPort: number;
  /** Kills instance `index` at once (SIGKILL: no goodbye to Redis or the balancer). */
  killInstance(index: number): Promise<void>;
  /** Stops redis-server (SIGKILL) and resolves once it is gone. */
  stopRedis(): Promise<void>;
  /** Starts redis-server again on the same port. */
  startRedis(): Promise<void>;
  /** Stops everything and removes the temp dir. */
  stop(): Promise<void>;
  /** nginx's error log, for a failure message. */
  nginxLog(): string;
}

/** Starts redis-server, `count` instances and nginx. On a failure half way, stops what it started. */
export async function startClusterRig(
  tools: { redis: string; nginx: string },
  count = 3,
): Promise<ClusterRig> {
  const dir = mkdtempSync(join(tmpdir(), "mcpkit-cluster-"));
  const procs: { redis?: Proc; nginx?: Proc; instances: Proc[] } = { instances: [] };
  const stop = async () => {
    await Promise.all([
      stopProc(procs.nginx),
      ...procs.instances.map((proc) => stopProc(proc)),
      stopProc(procs.redis),
    ]);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const redisPort = await freePort();
    const startRedis = async () => {
      procs.redis = await launchRedis(tools.redis, redisPort, dir);
    };
    await startRedis();
    const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
    const script = join(repoRoot, "test", "fixtures", "cluster", "instance.mjs");
    procs.instances = ports.map((port, index) =>
      start(process.execPath, [script], {
        MCPKIT_INSTANCE: `i${index}`,
        MCPKIT_PORT: String(port),
        MCPKIT_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        MCPKIT_STATE_KEY: "cluster-test-state-key-0123456789abcdef",
      }),
    );
    await Promise.all(procs.instances.map((proc) => readyLine(proc)));
    const { listenPort, proc } = await launchNginx(tools.nginx, dir, ports);
    procs.nginx = proc;
    return {
      url: `http://127.0.0.1:${listenPort}/mcp`,
      instanceUrls: ports.map((port) => `http://127.0.0.1:${port}/mcp`),
      redisPort,
      killInstance: (index) => stopProc(procs.instances[index], "SIGKILL"),
      stopRedis: () => stopProc(procs.redis, "SIGKILL"),
      startRedis,
      stop,
      nginxLog: () => {
        try {
          return readFileSync(join(dir, "nginx-error.log"), "utf8");
        } catch {
          return "";
        }
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** nginx with {@link nginxConfig} in front of `ports`, its files in `dir`; resolves once it listens. */
async function launchNginx(
  path: string,
  dir: string,
  ports: readonly number[],
): Promise<{ listenPort: number; proc: Proc }> {
  const listenPort = await freePort();
  for (const sub of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(join(dir, sub));
  writeFileSync(join(dir, "nginx.conf"), nginxConfig(dir, listenPort, ports));
  const proc = start(path, ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "nginx-error.log")]);
  try {
    await waitForPort(listenPort);
  } catch (error) {
    await stopProc(proc, "SIGKILL");
    throw error;
  }
  return { listenPort, proc };
}

/**
 * A lone nginx round-robin balancer ({@link nginxConfig}: the one of docs/deployment.md) in front of the
 * instances on `ports` of 127.0.0.1, in a temp dir of its own, for tests that start their instances themselves.
 */
export async function startBalancer(
  path: string,
  ports: readonly number[],
): Promise<{ url: string; stop(): Promise<void>; log(): string }> {
  const dir = mkdtempSync(join(tmpdir(), "mcpkit-nginx-"));
  try {
    const { listenPort, proc } = await launchNginx(path, dir, ports);
    return {
      url: `http://127.0.0.1:${listenPort}/mcp`,
      stop: async () => {
        await stopProc(proc);
        rmSync(dir, { recursive: true, force: true });
      },
      log: () => {
        try {
          return readFileSync(join(dir, "nginx-error.log"), "utf8");
        } catch {
          return "";
        }
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Resolves on the instance's `ready <port>` line; rejects when it exits first (with its stderr). */
function readyLine(proc: Proc): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    proc.child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    proc.child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("ready ")) resolve();
    });
    proc.child.once("exit", (code) => reject(new Error(`an instance exited (${code}) before ready: ${err}`)));
  });
}

/**
 * redis-server on `port` of 127.0.0.1, without persistence, its working files in `dir`; resolves once it listens
 * (killed again when it never does).
 */
async function launchRedis(path: string, port: number, dir: string): Promise<Proc> {
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
  ];
  const proc = start(path, args);
  try {
    await waitForPort(port);
  } catch (error) {
    await stopProc(proc, "SIGKILL");
    throw error;
  }
  return proc;
}

/** A lone redis-server on a free loopback port (no persistence), for the adapter tests. */
export async function startRedisServer(
  path: string,
): Promise<{ port: number; stop(): Promise<void>; restart(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "mcpkit-redis-"));
  const port = await freePort();
  let proc: Proc | undefined;
  const launch = async () => {
    proc = await launchRedis(path, port, dir);
  };
  await launch();
  return {
    port,
    restart: async () => {
      await stopProc(proc, "SIGKILL");
      await launch();
    },
    stop: async () => {
      await stopProc(proc, "SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fetch that records which upstream nginx picked for each request (its X-Upstream header, nginxConfig). */
export function upstreamRecordingFetch(): { fetch: typeof globalThis.fetch; upstreams: string[] } {
  const upstreams: string[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    const response = await globalThis.fetch(url, init);
    upstreams.push(response.headers.get("x-upstream") ?? "?");
    return response;
  };
  return { fetch: fetch as typeof globalThis.fetch, upstreams };
}
