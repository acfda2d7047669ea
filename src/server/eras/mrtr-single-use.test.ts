/**
 * Single-use `requestState` (`singleUseState`), 2026-07-28 on an in-process connection: a retry spends the state
 * it carries, so the same principal replaying it gets `-32602` (`data.reason` `used`) and the handler does not
 * run; racing retries let exactly one through; the store is bounded (a full store refuses to seal, it never
 * forgets an unspent state) and frees what expires. The multi-round flows themselves run in both modes in
 * mrtr-modern.test.ts.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { accept, askFor, inputServer } from "../../../test/support/input-server.js";
import { connectRaw, errorOf, resultOf } from "../../../test/support/raw-peer.js";
import { until } from "../../../test/support/until.js";
import { useWireValidation } from "../../../test/support/validating-transport.js";
import { ServerBuilder } from "../authoring/builder.js";
import { clusterUnavailable } from "../cluster/cluster.js";
import type { Server } from "../server.js";
import { inputRequired } from "../state/input.js";
import { MemoryRequestStateStore, type RequestStateStore } from "../state/store.js";

useWireValidation();

const caps = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
const USED = {
  code: -32602,
  message: "Invalid params: requestState has already been used",
  data: { reason: "used" },
};

const servers: Server[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function setup(options: object = { singleUseState: true }, identity: unknown = { principal: "alice" }) {
  const built = inputServer(options);
  servers.push(built.server);
  const { peer } = await connectRaw(built.server, { identity });
  const call = (name: string, extra: object = {}) =>
    peer.modern("tools/call", { name, arguments: {}, ...extra }, caps);
  return { ...built, peer, call };
}

describe("single-use requestState", () => {
  it("refuses a replay by the same principal with -32602 (reason used), without running the handler", async () => {
    const { call, calls } = await setup();
    const { requestState } = resultOf(await call("survey"));
    const retry = { inputResponses: { name: accept({ name: "Ada" }) }, requestState };
    expect(resultOf(await call("survey", retry)).inputRequests).toHaveProperty("color");
    expect(calls.survey).toBe(2);
    for (let i = 0; i < 3; i++) expect(errorOf(await call("survey", retry))).toEqual(USED);
    expect(calls.survey).toBe(2);
  });

  it("refuses a replayed middle round of a multi-round flow, and the flow still completes", async () => {
    const { call } = await setup();
    const r1 = resultOf(await call("survey"));
    const r2 = resultOf(
      await call("survey", {
        inputResponses: { name: accept({ name: "Ada" }) },
        requestState: r1.requestState,
      }),
    );
    const r3 = await call("survey", {
      inputResponses: { color: accept({ color: "teal" }) },
      requestState: r2.requestState,
    });
    expect(resultOf(r3).content).toEqual([{ type: "text", text: "Ada likes teal" }]);
    const replay = await call("survey", {
      inputResponses: { color: accept({ color: "red" }) },
      requestState: r2.requestState,
    });
    expect(errorOf(replay)).toEqual(USED);
  });

  it("lets exactly one of racing retries through, with the default store and with an async store", async () => {
    let remote = new MemoryRequestStateStore();
    // A remote store answers later; its own atomicity is what decides.
    const asyncStore: RequestStateStore = {
      issue: async (nonce, expiresAt) => remote.issue(nonce, expiresAt),
      consume: async (nonce) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return remote.consume(nonce);
      },
    };
    for (const singleUseState of [true, asyncStore]) {
      remote = new MemoryRequestStateStore();
      const { call, calls } = await setup({ singleUseState });
      const { requestState } = resultOf(await call("survey"));
      const retry = { inputResponses: { name: accept({ name: "Ada" }) }, requestState };
      const answers = await Promise.all(Array.from({ length: 8 }, () => call("survey", retry)));
      expect(answers.filter((answer) => "result" in answer)).toHaveLength(1);
      expect(answers.filter((answer) => "error" in answer).map(errorOf)).toEqual(Array(7).fill(USED));
      expect(calls.survey).toBe(2);
    }
  });

  it("does not spend a state that failed verification, nor one refused for another principal", async () => {
    const shared = { singleUseState: true, stateKey: "k".repeat(32) };
    const alice = await setup(shared);
    const { requestState } = resultOf(await alice.call("survey"));
    const tampered = await alice.call("survey", { requestState: `${requestState}x` });
    expect(errorOf(tampered).data).toEqual({ reason: "invalid" });
    const bob = await connectRaw(alice.server, { identity: { principal: "bob" } });
    const stolen = await bob.peer.modern("tools/call", { name: "survey", arguments: {}, requestState }, caps);
    expect(errorOf(stolen).data).toEqual({ reason: "invalid" });
    const own = await alice.call("survey", {
      inputResponses: { name: accept({ name: "Ada" }) },
      requestState,
    });
    expect(resultOf(own).resultType).toBe("input_required");
  });

  it("refuses a state sealed without single-use (same key): the store never issued it", async () => {
    const stateKey = "k".repeat(32);
    const before = await setup({ stateKey });
    const { requestState } = resultOf(await before.call("survey"));
    const after = await setup({ stateKey, singleUseState: true });
    expect(errorOf(await after.call("survey", { requestState }))).toEqual(USED);
    expect(after.calls.survey).toBeUndefined();
  });

  it("crosses the store's capacity: a full store refuses to seal (-32603), and a spent state makes room", async () => {
    const store = new MemoryRequestStateStore({ capacity: 2 });
    const { call, calls } = await setup({ singleUseState: store });
    const first = resultOf(await call("survey"));
    resultOf(await call("survey"));
    expect(store.size).toBe(2);
    expect(errorOf(await call("survey"))).toEqual({
      code: -32603,
      message: "State capacity reached: 3 unspent tokens, over MemoryRequestStateStore.capacity (2)",
      data: { option: "MemoryRequestStateStore.capacity", limit: 2, size: 3, reason: "state_capacity" },
    });
    expect(calls.survey).toBe(3);
    // Calls that seal no state are not affected.
    expect(resultOf(await call("greet")).resultType).toBe("input_required");
    expect(errorOf(await call("state_only")).message).toMatch(/^State capacity reached: /);
    // Spending one state (its retry seals a new one in its place) then completing frees the slots.
    const r2 = resultOf(
      await call("survey", {
        inputResponses: { name: accept({ name: "Ada" }) },
        requestState: first.requestState,
      }),
    );
    expect(store.size).toBe(2);
    await call("survey", {
      inputResponses: { color: accept({ color: "teal" }) },
      requestState: r2.requestState,
    });
    expect(store.size).toBe(1);
    expect(resultOf(await call("survey")).resultType).toBe("input_required");
  });

  it("frees the entries of expired states (requestStateTtlMs), and an expired state is refused as expired", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = new MemoryRequestStateStore({ capacity: 1 });
    const { call } = await setup({ singleUseState: store, requestStateTtlMs: 1_000 });
    const { requestState } = resultOf(await call("survey"));
    expect(errorOf(await call("survey")).message).toMatch(/over MemoryRequestStateStore.capacity \(1\)$/);
    vi.advanceTimersByTime(999);
    expect(errorOf(await call("survey")).message).toMatch(/over MemoryRequestStateStore.capacity \(1\)$/);
    vi.advanceTimersByTime(1);
    expect(resultOf(await call("survey")).resultType).toBe("input_required");
    expect(store.size).toBe(1);
    expect(errorOf(await call("survey", { requestState })).data).toEqual({ reason: "expired" });
  });

  it("keeps the state of a retry refused for handler capacity, so the client can try again", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = new ServerBuilder({
      serverInfo: { name: "busy", version: "1.0.0" },
      singleUseState: true,
      maxConcurrentHandlers: 1,
      maxQueuedHandlers: 0,
    })
      .tool({ name: "block", inputSchema: { type: "object" } }, async () => {
        await held;
        return { content: [] };
      })
      .tool({ name: "ask", inputSchema: { type: "object" } }, (_args, ctx) =>
        ctx.requestState === undefined
          ? inputRequired({ name: askFor("name") }, "asked")
          : { content: [{ type: "text", text: `resumed ${ctx.requestState}` }] },
      )
      .build();
    servers.push(server);
    const { peer } = await connectRaw(server, { identity: "alice" });
    const call = (name: string, extra: object = {}) =>
      peer.modern("tools/call", { name, arguments: {}, ...extra }, caps);
    const { requestState } = resultOf(await call("ask"));
    const blocking = call("block");
    await until(() => server.runningHandlers === 1);
    const retry = { inputResponses: { name: accept({ name: "Ada" }) }, requestState };
    expect(errorOf(await call("ask", retry)).message).toMatch(
      /^handler capacity reached: 1 queued calls, over maxQueuedHandlers \(0\)$/,
    );
    release();
    await blocking;
    expect(resultOf(await call("ask", retry)).content).toEqual([{ type: "text", text: "resumed asked" }]);
    expect(errorOf(await call("ask", retry))).toEqual(USED);
  });

  it("fails closed with -32603 when the store throws, and the handler does not run", async () => {
    const store: RequestStateStore = {
      issue: () => true,
      consume: () => {
        throw new Error("store unreachable");
      },
    };
    const { call, calls } = await setup({ singleUseState: store });
    const { requestState } = resultOf(await call("survey"));
    expect(errorOf(await call("survey", { requestState })).code).toBe(-32603);
    expect(calls.survey).toBe(1);
    const refusing = await setup({ singleUseState: { issue: async () => false, consume: async () => true } });
    expect(errorOf(await refusing.call("survey"))).toEqual({
      code: -32603,
      message: "State capacity reached: the singleUseState store has no room",
      data: { reason: "state_capacity", option: "singleUseState" },
    });
  });

  it("answers -32603 Cluster unavailable when a shared store cannot seal or spend", async () => {
    const memory = new MemoryRequestStateStore();
    let down = "issue";
    const store: RequestStateStore = {
      issue: async (nonce, expiresAt) => {
        if (down === "issue") throw clusterUnavailable("add");
        return memory.issue(nonce, expiresAt);
      },
      consume: async (nonce) => {
        if (down === "consume") throw clusterUnavailable("take");
        return memory.consume(nonce);
      },
    };
    const unavailable = {
      code: -32603,
      message: "Cluster unavailable",
      data: { reason: "cluster_unavailable" },
    };
    const { call } = await setup({ singleUseState: store });
    expect(errorOf(await call("survey"))).toEqual(unavailable);
    down = "consume";
    const { requestState } = resultOf(await call("survey"));
    const retry = { inputResponses: { name: accept({ name: "Ada" }) }, requestState };
    expect(errorOf(await call("survey", retry))).toEqual(unavailable);
  });
});
