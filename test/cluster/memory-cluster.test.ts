/**
 * Two instances of one server in one process, sharing a memory cluster, behind a round-robin "balancer" (a
 * fetch that alternates between their handlers): 2026 listen fan-out with its queue bounds, an input round
 * whose retry lands on the other instance, 2025 sessions forwarded to their owner (SSE answers and
 * server-to-client requests included), an owner that is gone, stateless serving, and a cluster that cannot
 * be reached.
 */
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { createHttpHandler, type HttpHandler } from "../../src/http/server/handler.js";
import type { HttpHandlerOptions } from "../../src/http/server/options.js";
import { McpkitError } from "../../src/jsonrpc/errors.js";
import type { Era } from "../../src/protocol/versions.js";
import {
  type Cluster,
  type ClusterBus,
  clusterUnavailable,
  type SharedStore,
} from "../../src/server/cluster/cluster.js";
import { memoryCluster } from "../../src/server/cluster/memory.js";
import { inputServer } from "../support/input-server.js";
import { until } from "../support/until.js";

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text;

interface Instance {
  handler: HttpHandler;
  server: ReturnType<typeof inputServer>["server"];
}

async function instances(
  cluster: Cluster,
  count = 2,
  http: HttpHandlerOptions = {},
  server: Parameters<typeof inputServer>[0] = {},
): Promise<Instance[]> {
  const out: Instance[] = [];
  for (let i = 0; i < count; i++) {
    const built = inputServer({ cluster, stateKey: "k".repeat(32), ...server }).server;
    const handler = createHttpHandler(built, http);
    await handler.clusterReady;
    out.push({ handler, server: built });
  }
  return out;
}

/** A handler's answer as `fetch` gives it: aborting the request's signal ends the body (as a socket's close). */
async function viaFetch(target: Instance, url: string | URL, init?: RequestInit): Promise<Response> {
  const response = await target.handler(new Request(url, init as never));
  const signal = init?.signal;
  if (!signal || !response.body) return response;
  const reader = response.body.getReader();
  signal.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
  const body = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      const next = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

/** A fetch that sends each request to the next instance in turn, and counts where each went. */
function roundRobin(targets: Instance[]) {
  let next = 0;
  const hits = targets.map(() => 0);
  const fetch = async (url: string | URL, init?: RequestInit) => {
    const index = next++ % targets.length;
    hits[index] = (hits[index] ?? 0) + 1;
    return viaFetch(targets[index] as Instance, url, init);
  };
  return { fetch, hits };
}

function client(fetch: ReturnType<typeof roundRobin>["fetch"], era: Era, extra = {}) {
  return new Client({
    transport: new StreamableHttpClientTransport({ url: "http://127.0.0.1/mcp", fetch: fetch as never }),
    clientInfo: { name: "cluster-test", version: "1.0.0" },
    protocolVersion: era,
    capabilities: { elicitation: {} },
    onElicitation: () => ({ action: "accept", content: { name: "Ada" } }),
    ...extra,
  });
}

describe("a cluster in one process", () => {
  it("delivers a list change published on one instance to a listen stream held by another", async () => {
    const [a, b] = await instances(memoryCluster());
    const listener = client(roundRobin([b as Instance]).fetch, "2026-07-28");
    await listener.connect();
    const subscription = await listener.listenSubscriptions({ toolsListChanged: true });
    expect((await subscription.next(5_000)).type).toBe("acknowledged");
    await a?.server.notifyListChanged("tools");
    expect(await subscription.next(5_000)).toMatchObject({
      type: "notification",
      notification: { method: "notifications/tools/list_changed" },
    });
    await listener.close();
  });

  it("keeps each subscription's queue bound across instances: a reader that never reads overflows", async () => {
    const [a, b] = await instances(memoryCluster(), 2, {}, { subscriptionQueueEvents: 3 });
    let ended: string | undefined;
    const stuck = { write: () => new Promise<void>(() => {}), end: (reason: string) => (ended = reason) };
    const listen = { ...modernCall("x"), method: "subscriptions/listen" };
    listen.params = { ...listen.params, notifications: { toolsListChanged: true } } as typeof listen.params;
    await b?.server.listen(listen, stuck);
    expect(b?.server.subscriptionCount).toBe(1);
    // The acknowledgement is never taken: 3 more events wait, the 4th overflows, on b only.
    for (let i = 0; i < 3; i++) await a?.server.notifyListChanged("tools");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ended).toBeUndefined();
    await a?.server.notifyListChanged("tools");
    await until(() => ended !== undefined);
    expect(ended).toBe("overflow");
    expect(b?.server.subscriptionCount).toBe(0);
  });

  it("opens a 2026 input round's requestState on the other instance", async () => {
    const group = await instances(memoryCluster());
    const balancer = roundRobin(group);
    const caller = client(balancer.fetch, "2026-07-28");
    await caller.connect();
    expect(text(await caller.callTool("greet", {}))).toBe("Hello, Ada!");
    expect(balancer.hits.every((hits) => hits > 0)).toBe(true);
    await caller.close();
  });

  it("spends a single-use requestState once across instances, in the shared store", async () => {
    const [a, b] = await instances(memoryCluster(), 2, {}, { singleUseState: true });
    const first = await a?.server.handleModern(modernCall("survey"), ENV);
    const state = (first as unknown as { result: { requestState: string } }).result.requestState;
    expect(typeof state).toBe("string");
    const retry = modernCall("survey", { requestState: state, inputResponses: { name: accepted("Ada") } });
    expect(await b?.server.handleModern(retry, ENV)).toMatchObject({
      result: { resultType: "input_required" },
    });
    expect(await a?.server.handleModern(retry, ENV)).toMatchObject({ error: { code: -32602 } });
  });

  for (const era of ["2025-11-25", "2026-07-28"] as const) {
    it(`serves ${era} clients on every instance with 0 failures`, async () => {
      const group = await instances(memoryCluster(), 3);
      const balancer = roundRobin(group);
      const clients = Array.from({ length: 5 }, () => client(balancer.fetch, era));
      await Promise.all(clients.map((c) => c.connect()));
      const results = await Promise.all(
        clients.flatMap((c) => [1, 2, 3].map(() => c.callTool("greet", {}).then(text))),
      );
      expect(results).toEqual(Array(15).fill("Hello, Ada!"));
      expect(balancer.hits.every((hits) => hits > 3)).toBe(true);
      await Promise.all(clients.map((c) => c.close()));
    });
  }

  it("forwards a 2025 session's requests to its owner, server-to-client requests included", async () => {
    const group = await instances(memoryCluster(), 3);
    const balancer = roundRobin(group);
    const caller = client(balancer.fetch, "2025-11-25");
    await caller.connect();
    // initialize, initialized, GET, then calls: each lands on the next instance; one owner holds the session.
    for (let i = 0; i < 3; i++) expect(text(await caller.callTool("greet", {}))).toBe("Hello, Ada!");
    expect(group.map((instance) => instance.handler.sessionCount).sort()).toEqual([0, 0, 1]);
    expect(balancer.hits.every((hits) => hits >= 3)).toBe(true);
    await caller.close();
    await until(() => group.every((instance) => instance.handler.sessionCount === 0));
  });

  it("answers 404 for a session whose owner is gone, and the mcpkit client re-initializes", async () => {
    const shared = memoryCluster();
    const doomed = killable(shared);
    const [a] = await instances(doomed.cluster, 1);
    const [b] = await instances(shared, 1);
    const toA = roundRobin([a as Instance]);
    const caller = client(
      async (url, init) => (sentToB ? viaFetch(b as Instance, url, init) : toA.fetch(url, init)),
      "2025-11-25",
    );
    let sentToB = false;
    await caller.connect();
    expect(text(await caller.callTool("greet", {}))).toBe("Hello, Ada!");
    // The owner dies: its handler leaves the bus (as a killed process's connection does).
    await doomed.kill();
    sentToB = true;
    expect(text(await caller.callTool("greet", {}))).toBe("Hello, Ada!");
    expect(b?.handler.sessionCount).toBe(1);
    await caller.close();
  });

  it('serves a request statelessly on a non-owner with legacySessions: "stateless"', async () => {
    const [a, b] = await instances(memoryCluster(), 2, { cluster: { legacySessions: "stateless" } });
    let target = a as Instance;
    const caller = client(async (url, init) => viaFetch(target, url, init), "2025-11-25");
    await caller.connect();
    target = b as Instance;
    const listed = await caller.listTools();
    expect(listed.tools.length).toBeGreaterThan(0);
    expect(a?.handler.sessionCount).toBe(1);
    expect(b?.handler.sessionCount).toBe(0);
    await caller.close();
  });

  it("keeps serving 2026 calls when the cluster cannot be reached, and fails what needs it with a typed error", async () => {
    const healthy = memoryCluster();
    let down = false;
    const cluster = flaky(healthy, () => down);
    const [a, b] = await instances(cluster);
    let target = a as Instance;
    const fetch = async (url: string | URL, init?: RequestInit) => viaFetch(target, url, init);
    const legacy = client(fetch, "2025-11-25");
    await legacy.connect();
    down = true;
    const modern = client(fetch, "2026-07-28");
    await modern.connect();
    target = b as Instance;
    expect(text(await modern.callTool("greet", {}))).toBe("Hello, Ada!");
    // b cannot look the session up: 503 "Cluster unavailable", not a hang and not a 404.
    const refused = await legacy.callTool("greet", {}).catch((error: unknown) => error);
    expect(JSON.stringify(refused)).toContain("cluster_unavailable");
    const notified = await a?.server.notifyListChanged("tools").catch((error: unknown) => error);
    expect(notified).toBeInstanceOf(McpkitError);
    expect((notified as McpkitError).code).toBe("UNAVAILABLE");
    down = false;
    target = a as Instance;
    expect(text(await legacy.callTool("greet", {}))).toBe("Hello, Ada!");
    await Promise.all([legacy.close(), modern.close()]);
  });
});

const ENV = { notify: async () => {} };

function modernCall(name: string, extra: { [key: string]: unknown } = {}) {
  return {
    jsonrpc: "2.0" as const,
    id: 1,
    method: "tools/call",
    params: {
      name,
      arguments: {},
      ...extra,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
      },
    },
  };
}

function accepted(name: string) {
  return { action: "accept", content: { name } };
}

/** A view of a shared cluster whose subscriptions `kill()` drops at once, as a dead process's connection. */
function killable(shared: Cluster): { cluster: Cluster; kill(): Promise<void> } {
  const subscriptions: (() => Promise<void>)[] = [];
  const bus: ClusterBus = {
    publish: (channel, message) => shared.bus.publish(channel, message),
    subscribe: async (channel, listener) => {
      const unsubscribe = await shared.bus.subscribe(channel, listener);
      subscriptions.push(unsubscribe);
      return unsubscribe;
    },
  };
  return {
    cluster: { bus, store: shared.store },
    kill: async () => {
      await Promise.all(subscriptions.splice(0).map((unsubscribe) => unsubscribe()));
    },
  };
}

/** A cluster whose every call fails with the typed error while `isDown()`. */
function flaky(cluster: Cluster, isDown: () => boolean): Cluster {
  const guard =
    <A extends unknown[], R>(name: string, call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      isDown() ? Promise.reject(clusterUnavailable(name)) : call(...args);
  const bus: ClusterBus = {
    publish: guard("publish", (c: string, m: string) => cluster.bus.publish(c, m)),
    subscribe: (c, l) => cluster.bus.subscribe(c, l),
  };
  const store: SharedStore = {
    get: guard("get", (k: string) => cluster.store.get(k)),
    set: guard("set", (k: string, v: string, t: number) => cluster.store.set(k, v, t)),
    add: guard("add", (k: string, v: string, t: number) => cluster.store.add(k, v, t)),
    take: guard("take", (k: string) => cluster.store.take(k)),
    delete: guard("delete", (k: string) => cluster.store.delete(k)),
  };
  return { bus, store };
}
