/** mcpkit/redis against a real redis-server: the store's atomic operations, the bus, and a Redis that goes away. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpkitError } from "../../src/jsonrpc/errors.js";
import { createRedisCluster, type RedisCluster } from "../../src/redis/index.js";
import type { TaskRecord } from "../../src/server/state/task-store.js";
import { freePort, startRedisServer } from "../support/cluster-harness.js";
import { systemTool } from "../support/system-tools.js";

const redisPath = systemTool("redis-server");
const quiet = () => {};

async function rejection(promise: Promise<unknown>): Promise<McpkitError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof McpkitError)) throw new Error(`expected a McpkitError, got ${String(error)}`);
  return error;
}

describe("createRedisCluster options", () => {
  it("rejects unknown keys and bad values before connecting", async () => {
    expect((await rejection(createRedisCluster({ nope: 1 } as never))).code).toBe("INVALID_CONFIG");
    expect((await rejection(createRedisCluster({ operationTimeoutMs: 0 }))).message).toMatch(
      /positive integer/,
    );
  });

  it("rejects with UNAVAILABLE when nothing answers within connectTimeoutMs", async () => {
    const port = await freePort();
    const error = await rejection(
      createRedisCluster({ url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 300, onStateChange: quiet }),
    );
    expect(error.code).toBe("UNAVAILABLE");
    expect(error.details).toMatchObject({ reason: "cluster_unavailable", operation: "connecting" });
  });
});

describe.skipIf(redisPath === undefined)("mcpkit/redis on redis-server", () => {
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  let cluster: RedisCluster;

  beforeAll(async () => {
    redis = await startRedisServer(redisPath as string);
    cluster = await createRedisCluster({
      url: `redis://127.0.0.1:${redis.port}`,
      prefix: "t1:",
      operationTimeoutMs: 300,
      reconnectMaxDelayMs: 100,
      onStateChange: quiet,
    });
  });

  afterAll(async () => {
    await cluster?.close();
    await redis?.stop();
  });

  it("inserts once with add, hands a value to exactly one of racing takes, deletes once", async () => {
    const adds = await Promise.all(
      Array.from({ length: 10 }, (_, i) => cluster.store.add("k", `v${i}`, 10_000)),
    );
    expect(adds.filter(Boolean)).toHaveLength(1);
    const takes = await Promise.all(Array.from({ length: 10 }, () => cluster.store.take("k")));
    expect(takes.filter((value) => value !== undefined)).toHaveLength(1);
    await cluster.store.set("d", "x", 10_000);
    expect(await cluster.store.get("d")).toBe("x");
    expect(await cluster.store.delete("d")).toBe(true);
    expect(await cluster.store.delete("d")).toBe(false);
  });

  it("expires a value after its time to live", async () => {
    await cluster.store.set("short", "x", 30);
    for (let i = 0; i < 100 && (await cluster.store.get("short")) !== undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await cluster.store.get("short")).toBeUndefined();
  });

  it("publishes to subscribers, counting them, under its own prefix only", async () => {
    const other = await createRedisCluster({
      url: `redis://127.0.0.1:${redis.port}`,
      prefix: "t2:",
      onStateChange: quiet,
    });
    const got: string[] = [];
    const stop = await cluster.bus.subscribe("chan", (message) => got.push(message));
    expect(await other.bus.publish("chan", "elsewhere")).toBe(0);
    expect(await cluster.bus.publish("chan", "hello")).toBe(1);
    for (let i = 0; i < 200 && got.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(got).toEqual(["hello"]);
    await stop();
    expect(await cluster.bus.publish("chan", "gone")).toBe(0);
    await other.close();
  });

  it("creates tasks under the caps atomically, however many instances race", async () => {
    const record = (taskId: string, principal: string, ttlMs = 60_000): TaskRecord => ({
      taskId,
      principal,
      status: "working",
      createdAt: Date.now(),
      lastUpdatedAt: Date.now(),
      ttlMs,
      pollIntervalMs: 1_000,
    });
    const caps = { perPrincipal: 3, total: 5 };
    const racing = await Promise.all(
      Array.from({ length: 12 }, (_, i) => cluster.tasks.create(record(`a${i}`, "alice"), caps)),
    );
    expect(racing.filter((refusal) => refusal === undefined)).toHaveLength(3);
    expect(racing.filter((refusal) => refusal === "principal_cap")).toHaveLength(9);
    expect(await cluster.tasks.create(record("b0", "bob"), caps)).toBeUndefined();
    expect(await cluster.tasks.create(record("c0", "carol", 40), caps)).toBeUndefined();
    expect(await cluster.tasks.create(record("d0", "dave"), caps)).toBe("global_cap");
    // carol's task expires: its place counts again, and it is gone from get and list.
    for (let i = 0; i < 100 && (await cluster.tasks.get("c0")) !== undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await cluster.tasks.list("carol")).toEqual([]);
    expect(await cluster.tasks.create(record("d0", "dave"), caps)).toBeUndefined();
    const alice = await cluster.tasks.list("alice");
    expect(alice).toHaveLength(3);
    expect(alice.map((task) => task.createdAt)).toEqual([...alice.map((task) => task.createdAt)].sort());
    expect(alice.every((task) => task.principal === "alice")).toBe(true);
  });

  it("applies every one of racing task updates (optimistic, retried), and none to a task that is gone", async () => {
    const now = Date.now();
    const base: TaskRecord = {
      taskId: "u1",
      principal: "erin",
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 60_000,
      pollIntervalMs: 1_000,
    };
    expect(await cluster.tasks.create(base, { perPrincipal: 10, total: 100 })).toBeUndefined();
    await Promise.all(
      Array.from({ length: 20 }, () =>
        cluster.tasks.update("u1", (current) => ({
          ...current,
          statusMessage: String(Number(current.statusMessage ?? "0") + 1),
        })),
      ),
    );
    expect((await cluster.tasks.get("u1"))?.statusMessage).toBe("20");
    const unchanged = await cluster.tasks.update("u1", () => undefined);
    expect(unchanged?.statusMessage).toBe("20");
    expect(await cluster.tasks.update("missing", (current) => current)).toBeUndefined();
  });

  it("fails fast with UNAVAILABLE while Redis is down, and reconnects by itself (subscriptions too)", async () => {
    const got: string[] = [];
    await cluster.bus.subscribe("after", (message) => got.push(message));
    await redis.restart().then(() => undefined);
    // Killed and started again: until the client is back, every call rejects with the typed error, never hangs.
    const deadline = Date.now() + 15_000;
    let back = false;
    while (!back && Date.now() < deadline) {
      try {
        await cluster.store.get("probe");
        back = cluster.connected;
      } catch (error) {
        expect(error).toBeInstanceOf(McpkitError);
        expect((error as McpkitError).code).toBe("UNAVAILABLE");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    expect(back).toBe(true);
    for (let i = 0; i < 200 && (await cluster.bus.publish("after", "x")) === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    for (let i = 0; i < 200 && got.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(got.length).toBeGreaterThan(0);
  }, 30_000);
});
