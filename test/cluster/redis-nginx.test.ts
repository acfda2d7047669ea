/**
 * Three mcpkit instances (the built package) sharing a real redis-server, behind a real nginx balancing round
 * robin without stickiness; every client talks to nginx only. Both eras: 20 clients' tool calls, a listen stream
 * fed from the other instances, an input round whose retry lands elsewhere, a 2025 session served by all three,
 * Redis restarting mid-run, and an instance killed mid-run. Needs `npm run build` first (npm test does).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import type { Era } from "../../src/protocol/versions.js";
import { type ClusterRig, startClusterRig } from "../support/cluster-harness.js";
import { systemTool } from "../support/system-tools.js";

const redis = systemTool("redis-server");
const nginx = systemTool("nginx");

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

/** A fetch that records which upstream nginx picked for each request (its X-Upstream header). */
function recordingFetch() {
  const upstreams: string[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    const response = await globalThis.fetch(url, init);
    upstreams.push(response.headers.get("x-upstream") ?? "?");
    return response;
  };
  return { fetch, upstreams };
}

function client(url: string, era: Era, fetch: typeof globalThis.fetch = globalThis.fetch) {
  return new Client({
    transport: new StreamableHttpClientTransport({ url, fetch: fetch as never }),
    clientInfo: { name: "cluster-e2e", version: "1.0.0" },
    protocolVersion: era,
    capabilities: { elicitation: {} },
    onElicitation: () => ({ action: "accept", content: { name: "Ada" } }),
  });
}

describe.skipIf(redis === undefined || nginx === undefined)("Redis + nginx + 3 instances", () => {
  let rig: ClusterRig;
  const open: Client[] = [];
  const connected = async (era: Era, fetch?: typeof globalThis.fetch, url = rig.url) => {
    const c = client(url, era, fetch);
    open.push(c);
    await c.connect();
    return c;
  };

  beforeAll(async () => {
    rig = await startClusterRig({ redis: redis as string, nginx: nginx as string });
  }, 30_000);

  afterAll(async () => {
    await Promise.allSettled(open.map((c) => c.close()));
    await rig?.stop();
  }, 20_000);

  for (const era of ["2026-07-28", "2025-11-25"] as const) {
    it(`serves 20 ${era} clients' tool calls through the balancer with 0 failures`, async () => {
      const clients = await Promise.all(Array.from({ length: 20 }, () => connected(era)));
      const outcomes = await Promise.allSettled(
        clients.flatMap((c, i) => [c.callTool("add", { a: i, b: 1 }), c.callTool("whoami", {})]),
      );
      expect(outcomes.filter((outcome) => outcome.status === "rejected")).toEqual([]);
      const values = outcomes.map((outcome) => text((outcome as PromiseFulfilledResult<unknown>).value));
      expect(values.filter((_, i) => i % 2 === 0)).toEqual(clients.map((_, i) => String(i + 1)));
      expect(new Set(values.filter((_, i) => i % 2 === 1))).toEqual(new Set(["i0", "i1", "i2"]));
    });
  }

  it("delivers to a listen stream changes published on the other instances", async () => {
    const listener = await connected("2026-07-28");
    const subscription = await listener.listenSubscriptions({ toolsListChanged: true });
    expect((await subscription.next(5_000)).type).toBe("acknowledged");
    // Published on each instance in turn: at least two of them are not the one holding the stream.
    for (const url of rig.instanceUrls) {
      const publisher = await connected("2026-07-28", undefined, url);
      await publisher.callTool("publish", {});
      expect(await subscription.next(5_000)).toMatchObject({
        type: "notification",
        notification: { method: "notifications/tools/list_changed" },
      });
    }
    await subscription.close();
  });

  it("opens a 2026 input round's requestState on whichever instance the retry reaches", async () => {
    const caller = await connected("2026-07-28");
    const answers: string[] = [];
    for (let i = 0; i < 6; i++) answers.push(text(await caller.callTool("greet", {})));
    for (const answer of answers) expect(answer).toMatch(/^Hello, Ada! asked on i\d, answered on i\d$/);
    // Round robin: the retry lands on another instance than the first round.
    expect(answers.some((answer) => /asked on (i\d), answered on (?!\1)i\d/.test(answer))).toBe(true);
  });

  it("serves one 2025 session from all three instances: requests forwarded to its owner", async () => {
    const { fetch, upstreams } = recordingFetch();
    const session = await connected("2025-11-25", fetch);
    const owners = new Set<string>();
    for (let i = 0; i < 6; i++) owners.add(text(await session.callTool("whoami", {})));
    // A server-to-client request (elicitation) on a forwarded POST stream, its answer POSTed anywhere.
    expect(text(await session.callTool("greet", {}))).toMatch(/^Hello, Ada!/);
    expect(owners.size).toBe(1);
    expect(new Set(upstreams).size).toBe(3);
  });

  it("keeps 2026 calls working while Redis restarts, fails what needs it fast, and recovers", async () => {
    const modern = await connected("2026-07-28");
    const legacy = await connected("2025-11-25");
    await rig.stopRedis();
    const started = Date.now();
    const during = await Promise.allSettled(Array.from({ length: 9 }, () => modern.callTool("whoami", {})));
    expect(during.filter((outcome) => outcome.status === "rejected")).toEqual([]);
    // The session's requests reaching a non-owner need the directory: a typed 503, never a hang.
    const legacyDuring = await Promise.allSettled(
      Array.from({ length: 3 }, () => legacy.callTool("whoami", {})),
    );
    const refused = legacyDuring.filter((outcome) => outcome.status === "rejected");
    expect(refused.length).toBeGreaterThan(0);
    for (const outcome of refused) expect(JSON.stringify(outcome.reason)).toContain("cluster_unavailable");
    expect(Date.now() - started).toBeLessThan(15_000); // hang guard
    await rig.startRedis();
    // Recovery: a fresh session works from every instance again, within a bounded time.
    const deadline = Date.now() + 15_000;
    let recovered = false;
    while (!recovered && Date.now() < deadline) {
      const { fetch, upstreams } = recordingFetch();
      const fresh = client(rig.url, "2025-11-25", fetch);
      try {
        await fresh.connect();
        for (let i = 0; i < 3; i++) await fresh.callTool("whoami", {});
        recovered = new Set(upstreams).size === 3;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200));
      } finally {
        await fresh.close().catch(() => {});
      }
    }
    expect(recovered).toBe(true);
  }, 40_000);

  it("survives an instance killed mid-run: 2026 calls go on, its 2025 sessions re-initialize", async () => {
    const sessions = await Promise.all(Array.from({ length: 6 }, () => connected("2025-11-25")));
    const before = await Promise.all(sessions.map(async (s) => text(await s.callTool("whoami", {}))));
    expect(before).toContain("i2");
    const modern = await Promise.all(Array.from({ length: 5 }, () => connected("2026-07-28")));
    await rig.killInstance(2);
    const after = await Promise.allSettled(
      modern.flatMap((c) => [1, 2, 3].map(() => c.callTool("whoami", {}))),
    );
    expect(after.filter((outcome) => outcome.status === "rejected")).toEqual([]);
    const owners = after.map((outcome) => text((outcome as PromiseFulfilledResult<unknown>).value));
    expect(owners).not.toContain("i2");
    // Sessions owned by i2 answer 404 now; the client re-initializes once and its call goes through.
    const again = await Promise.allSettled(sessions.map((s) => s.callTool("whoami", {})));
    expect(again.filter((outcome) => outcome.status === "rejected")).toEqual([]);
    const nowOwned = again.map((outcome) => text((outcome as PromiseFulfilledResult<unknown>).value));
    expect(nowOwned).not.toContain("i2");
    expect(nowOwned.filter((owner, i) => owner !== before[i]).length).toBe(
      before.filter((o) => o === "i2").length,
    );
  }, 30_000);
});
