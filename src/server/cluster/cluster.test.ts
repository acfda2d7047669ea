import { describe, expect, it } from "vitest";
import { configError } from "../../../test/support/config-error.js";
import { MAX_PREVIOUS_STATE_KEYS } from "../core/options.js";
import { createServer } from "../server.js";
import { RequestStateSealer } from "../state/request-state.js";
import { MemoryBus, MemoryStore, memoryCluster } from "./memory.js";
import { sharedRequestStateStore } from "./shared-state-store.js";

const serverInfo = { name: "t", version: "1" };
const handler = { listTools: async () => ({ tools: [] }), callTool: async () => ({ content: [] }) };
const bytes = (text: string) => new TextEncoder().encode(text);
const binding = { principal: "anonymous", method: "tools/call", params: { name: "x" } };

describe("the requestState key ring", () => {
  const OLD = bytes("o".repeat(32));
  const NEW = bytes("n".repeat(32));

  it("opens a token sealed under a previous key, and seals with the current key only", async () => {
    const before = new RequestStateSealer(OLD, 60_000);
    const token = await before.seal({ step: 1 }, binding);
    const rotated = new RequestStateSealer(NEW, 60_000, Date.now, undefined, [OLD]);
    expect(await rotated.open(token, binding)).toMatchObject({ ok: true, state: { step: 1 } });
    const fresh = await rotated.seal({ step: 2 }, binding);
    // The old key alone no longer opens what the rotated instance seals; the new key alone does.
    expect(await before.open(fresh, binding)).toEqual({ ok: false, reason: "invalid" });
    expect((await new RequestStateSealer(NEW, 60_000).open(fresh, binding)).ok).toBe(true);
    // Once the previous key is dropped, its tokens are refused.
    expect(await new RequestStateSealer(NEW, 60_000).open(token, binding)).toEqual({
      ok: false,
      reason: "invalid",
    });
  });

  it("takes previousStateKeys as text or bytes, each at least 32 bytes, at most 4", () => {
    const server = createServer({
      serverInfo,
      handler,
      stateKey: NEW,
      previousStateKeys: ["o".repeat(32), OLD],
    });
    expect(server.config.previousStateKeys).toEqual([OLD, OLD]);
    expect(
      configError(() => createServer({ serverInfo, handler, previousStateKeys: ["short"] })).message,
    ).toMatch(/previousStateKeys must hold keys of at least 32 bytes/);
    const five = Array.from({ length: MAX_PREVIOUS_STATE_KEYS + 1 }, () => OLD);
    expect(configError(() => createServer({ serverInfo, handler, previousStateKeys: five })).message).toMatch(
      /at most 4 keys/,
    );
    const four = five.slice(1);
    expect(
      createServer({ serverInfo, handler, previousStateKeys: four }).config.previousStateKeys,
    ).toHaveLength(4);
    expect(
      configError(() => createServer({ serverInfo, handler, previousStateKeys: "k".repeat(32) as never }))
        .message,
    ).toMatch(/must be an array/);
  });
});

describe("the cluster option", () => {
  it("refuses something that is not a bus and a store", () => {
    expect(configError(() => createServer({ serverInfo, handler, cluster: {} as never })).message).toMatch(
      /cluster must have a bus/,
    );
    const { bus } = memoryCluster();
    const partial = { bus, store: { get: async () => undefined } };
    expect(
      configError(() => createServer({ serverInfo, handler, cluster: partial as never })).details,
    ).toEqual({
      key: "cluster",
    });
  });

  it("spends single-use states in the cluster's store when singleUseState is true", async () => {
    const cluster = memoryCluster();
    const server = createServer({ serverInfo, handler, cluster, singleUseState: true });
    const store = server.config.stateStore;
    expect(await store?.issue("n1", Date.now() + 60_000)).toBe(true);
    expect(await cluster.store.get("rs:n1")).toBe("1");
    expect(await store?.consume("n1")).toBe(true);
    expect(await store?.consume("n1")).toBe(false);
    await server.close();
  });
});

describe("MemoryStore and MemoryBus", () => {
  it("expires values, inserts once with add, and hands a value to one take", async () => {
    let now = 0;
    const store = new MemoryStore(() => now);
    expect(await store.add("k", "a", 100)).toBe(true);
    expect(await store.add("k", "b", 100)).toBe(false);
    const [first, second] = await Promise.all([store.take("k"), store.take("k")]);
    expect([first, second]).toEqual(["a", undefined]);
    await store.set("t", "v", 100);
    now = 99;
    expect(await store.get("t")).toBe("v");
    now = 100;
    expect(await store.get("t")).toBeUndefined();
    expect(await store.add("t", "w", 100)).toBe(true);
    expect(await store.delete("t")).toBe(true);
    expect(await store.delete("t")).toBe(false);
  });

  it("sweeps expired entries as the map grows, so it stays bounded by what is live", async () => {
    let now = 0;
    const store = new MemoryStore(() => now);
    for (let i = 0; i < 1_000; i++) await store.set(`old${i}`, "v", 10);
    now = 20;
    for (let i = 0; i < 1_100; i++) await store.set(`new${i}`, "v", 10);
    expect(store.size).toBe(1_100);
  });

  it("counts receivers, delivers, and stops after unsubscribe", async () => {
    const bus = new MemoryBus();
    const got: string[] = [];
    const stop = await bus.subscribe("c", (message) => got.push(message));
    expect(await bus.publish("c", "one")).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(got).toEqual(["one"]);
    await stop();
    expect(await bus.publish("c", "two")).toBe(0);
  });

  it("drops malformed notifications from the bus with one warning", async () => {
    const cluster = memoryCluster();
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message), error: () => {} };
    const server = createServer({ serverInfo, handler, cluster, listChanged: { tools: true }, logger });
    await server.clusterReady;
    await cluster.bus.publish("mcp:notify", "not json");
    await cluster.bus.publish("mcp:notify", JSON.stringify({ kind: "list", family: "nope", origin: "x" }));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(warnings).toEqual(["dropped a malformed cluster notification"]);
    await server.close();
  });
});

describe("sharedRequestStateStore", () => {
  it("issues each nonce once, with the token's expiry as its time to live, and spends it once", async () => {
    let now = 1_000;
    const store = new MemoryStore(() => now);
    const states = sharedRequestStateStore(store, "rs:", () => now);
    expect(await states.issue("n", 1_500)).toBe(true);
    expect(await states.issue("n", 1_500)).toBe(false);
    now = 1_500;
    expect(await states.consume("n")).toBe(false);
    now = 1_000;
    expect(await states.issue("m", 1_500)).toBe(true);
    expect(await states.consume("m")).toBe(true);
    expect(await states.consume("m")).toBe(false);
  });
});
