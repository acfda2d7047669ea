/**
 * `npm run bench:cluster`: what a cluster adds, on one machine. A redis-server (no persistence) and two
 * instances (test/fixtures/cluster/instance.mjs, the built package) on loopback; the mcpkit client calls them
 * directly, without a balancer, so the numbers are the cluster's own:
 *
 * - a 2025-11-25 session's `tools/call` sent to its owner, against the same call sent to the other instance
 *   (forwarded over Redis to the owner and relayed back);
 * - a `notifyListChanged` reaching a `subscriptions/listen` stream on the same instance, against one on the
 *   other instance (through Redis publish/subscribe).
 *
 * Prints medians and p95s in milliseconds. Env: BENCH_CALLS (default 1,000), BENCH_NOTIFICATIONS (default 300).
 */
import { spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "../dist/client/index.js";
import { StreamableHttpClientTransport } from "../dist/http/index.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 1_000);
const NOTIFICATIONS = Number(process.env.BENCH_NOTIFICATIONS ?? 300);
const root = fileURLToPath(new URL("..", import.meta.url));

function which(name) {
  for (const dir of [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/usr/local/sbin"]) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {}
  }
  throw new Error(`${name} is not installed (scripts/system-deps.sh installs it)`);
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function launch(command, args, env = {}, readyText) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  child.stderr.resume();
  const ready = new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes(readyText)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`${command} exited (${code})`)));
  });
  return { child, ready };
}

const stats = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p95: at(0.95) };
};
const ms = (value) => value.toFixed(3);

const dir = mkdtempSync(join(tmpdir(), "mcpkit-bench-cluster-"));
const procs = [];
try {
  const redisPort = await freePort();
  const redis = launch(
    which("redis-server"),
    ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    {},
    "Ready to accept connections",
  );
  procs.push(redis.child);
  await redis.ready;
  const ports = [await freePort(), await freePort()];
  const instances = ports.map((port, index) =>
    launch(
      process.execPath,
      [join(root, "test", "fixtures", "cluster", "instance.mjs")],
      {
        MCPKIT_INSTANCE: `i${index}`,
        MCPKIT_PORT: String(port),
        MCPKIT_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        MCPKIT_STATE_KEY: "bench-state-key-0123456789abcdef0123",
      },
      "ready ",
    ),
  );
  procs.push(...instances.map((instance) => instance.child));
  await Promise.all(instances.map((instance) => instance.ready));
  const urls = ports.map((port) => `http://127.0.0.1:${port}/mcp`);

  // A 2025 session owned by i0; its calls sent to i0 (local) or to i1 (forwarded). One fetch per instance.
  let target = urls[0];
  const session = new Client({
    transport: new StreamableHttpClientTransport({
      url: urls[0],
      fetch: (_url, init) => fetch(target, init),
    }),
    clientInfo: { name: "bench", version: "1" },
    protocolVersion: "2025-11-25",
  });
  await session.connect();
  const timeCalls = async (url) => {
    target = url;
    const samples = [];
    for (let i = 0; i < CALLS; i++) {
      const start = performance.now();
      await session.callTool("whoami", {});
      samples.push(performance.now() - start);
    }
    return stats(samples);
  };
  await timeCalls(urls[0]);
  await timeCalls(urls[1]);
  const local = await timeCalls(urls[0]);
  const forwarded = await timeCalls(urls[1]);
  await session.close();

  // A listen stream on `listenUrl`; `publish` called on i0 each time; time from the call to the notification.
  const timeNotifications = async (listenUrl) => {
    const listener = new Client({
      transport: new StreamableHttpClientTransport({ url: listenUrl }),
      clientInfo: { name: "bench", version: "1" },
      protocolVersion: "2026-07-28",
    });
    const publisher = new Client({
      transport: new StreamableHttpClientTransport({ url: urls[0] }),
      clientInfo: { name: "bench", version: "1" },
      protocolVersion: "2026-07-28",
    });
    await Promise.all([listener.connect(), publisher.connect()]);
    const subscription = await listener.listenSubscriptions({ toolsListChanged: true });
    await subscription.next(5_000);
    const samples = [];
    for (let i = 0; i < NOTIFICATIONS; i++) {
      const start = performance.now();
      const call = publisher.callTool("publish", {});
      const event = await subscription.next(5_000);
      if (event.type !== "notification") throw new Error(`no notification: ${event.type}`);
      samples.push(performance.now() - start);
      await call;
    }
    await subscription.close();
    await Promise.all([listener.close(), publisher.close()]);
    return stats(samples);
  };
  await timeNotifications(urls[1]);
  const sameInstance = await timeNotifications(urls[0]);
  const crossInstance = await timeNotifications(urls[1]);

  console.log(`2025 tools/call, ${CALLS} sequential calls (median / p95, ms):`);
  console.log(`  to the owner        ${ms(local.median)} / ${ms(local.p95)}`);
  console.log(`  forwarded           ${ms(forwarded.median)} / ${ms(forwarded.p95)}`);
  console.log(`  added by forwarding ${ms(forwarded.median - local.median)} (median)`);
  console.log(
    `list_changed to a listen stream, ${NOTIFICATIONS} notifications (median / p95, ms, from the call):`,
  );
  console.log(`  same instance       ${ms(sameInstance.median)} / ${ms(sameInstance.p95)}`);
  console.log(`  other instance      ${ms(crossInstance.median)} / ${ms(crossInstance.p95)}`);
  console.log(`  added by the bus    ${ms(crossInstance.median - sameInstance.median)} (median)`);
} finally {
  for (const child of procs.reverse()) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
}
