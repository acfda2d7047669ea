/** mcpkit/redis against a real redis-server: the store's atomic operations, the bus, and a Redis that goes away. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpkitError } from "../../src/jsonrpc/errors.js";
import { createRedisCluster, type RedisCluster } from "../../src/redis/index.js";
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
