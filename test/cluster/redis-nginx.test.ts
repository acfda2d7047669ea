/**
 * Three mcpkit instances (the built package) sharing a real redis-server, behind a real nginx balancing round
 * robin without stickiness; every client talks to nginx only. Both eras: 20 clients' tool calls, a listen stream
 * fed from the other instances, an input round whose retry lands elsewhere, a 2025 session served by all three,
 * tasks polled, answered and cancelled on other instances than the one running them, Redis restarting mid-run,
 * and an instance killed mid-run (its task failed by the others). Needs `npm run build` first (npm test does).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import {
  type ClientTask,
  callToolAsTask,
  callToolToCompletion,
  cancelTask,
  getTask,
  waitForTask,
} from "../../src/client/tasks.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import type { Era } from "../../src/protocol/versions.js";
import { type ClusterRig, startClusterRig, upstreamRecordingFetch } from "../support/cluster-harness.js";
import { systemTool } from "../support/system-tools.js";

const redis = systemTool("redis-server");
const nginx = systemTool("nginx");

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

function client(url: string, era: Era, fetch: typeof globalThis.fetch = globalThis.fetch) {
  return new Client({
    transport: new StreamableHttpClientTransport({ url, fetch: fetch as never }),
    clientInfo: { name: "cluster-e2e", version: "1.0.0" },
    protocolVersion: era,
    capabilities: { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } },
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
    const { fetch, upstreams } = upstreamRecordingFetch();
    const session = await connected("2025-11-25", fetch);
    const owners = new Set<string>();
    for (let i = 0; i < 6; i++) owners.add(text(await session.callTool("whoami", {})));
    // A server-to-client request (elicitation) on a forwarded POST stream, its answer POSTed anywhere.
    expect(text(await session.callTool("greet", {}))).toMatch(/^Hello, Ada!/);
    expect(owners.size).toBe(1);
    expect(new Set(upstreams).size).toBe(3);
  });

  /** Polls `tasks/get` through the balancer until `done` holds (at most 10 s). */
  const pollUntil = async (c: Client, taskId: string, done: (task: ClientTask) => boolean) => {
    const deadline = Date.now() + 10_000;
    let task = await getTask(c, taskId);
    while (!done(task) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      task = await getTask(c, taskId);
    }
    return task;
  };
  /** The tasks whose work runs on each instance now, asked of each directly. */
  const runningPerInstance = async () =>
    Promise.all(
      rig.instanceUrls.map(async (url) =>
        Number(text(await (await connected("2026-07-28", undefined, url)).callTool("running", {}))),
      ),
    );

  it("serves a 2026 task from every instance: polled, answered and cancelled through the others", async () => {
    const { fetch, upstreams } = upstreamRecordingFetch();
    const c = await connected("2026-07-28", fetch);
    const { task } = await callToolAsTask(c, "ask-task", {});
    if (task === undefined) throw new Error("expected a task");
    const first = upstreams.length;
    // waitForTask polls tasks/get and answers the elicitation with tasks/update, each on the next instance.
    const result = await waitForTask(c, task, { minPollMs: 20, maxPollMs: 50, deadlineMs: 15_000 });
    expect(text(result)).toMatch(/^Hello, Ada! ran on i\d$/);
    expect(new Set(upstreams.slice(first)).size).toBe(3);
    // Cancelled through the balancer: the work stops on whichever instance runs it.
    const held = await callToolAsTask(c, "hold-task", {});
    if (held.task === undefined) throw new Error("expected a task");
    const holding = await pollUntil(
      c,
      held.task.taskId,
      (t) => t.statusMessage?.startsWith("held on") === true,
    );
    expect(holding.statusMessage).toMatch(/^held on i\d$/);
    expect((await runningPerInstance()).reduce((a, b) => a + b, 0)).toBe(1);
    await cancelTask(c, held.task.taskId);
    expect((await pollUntil(c, held.task.taskId, (t) => t.status === "cancelled")).status).toBe("cancelled");
    const deadline = Date.now() + 5_000;
    let running = await runningPerInstance();
    while (running.some((n) => n > 0) && Date.now() < deadline) running = await runningPerInstance();
    expect(running).toEqual([0, 0, 0]);
  }, 30_000);

  it("serves a 2025 task polled on every instance (forwarded to its session's owner), with its input", async () => {
    const { fetch, upstreams } = upstreamRecordingFetch();
    const session = await connected("2025-11-25", fetch);
    const owner = text(await session.callTool("whoami", {}));
    const held = await callToolAsTask(session, "hold-task", {});
    if (held.task === undefined) throw new Error("expected a task");
    const first = upstreams.length;
    const holding = await pollUntil(session, held.task.taskId, (t) => t.statusMessage !== undefined);
    for (let i = 0; i < 3; i++) await getTask(session, held.task.taskId);
    expect(holding.statusMessage).toBe(`held on ${owner}`);
    expect(new Set(upstreams.slice(first)).size).toBe(3);
    await cancelTask(session, held.task.taskId);
    expect((await getTask(session, held.task.taskId)).status).toBe("cancelled");
    // tasks/result sends the task's elicitation to the client on the session; the answer is POSTed anywhere.
    const result = await callToolToCompletion(session, "ask-task", {}, { minPollMs: 20, deadlineMs: 15_000 });
    expect(text(result)).toBe(`Hello, Ada! ran on ${owner}`);
  }, 30_000);

  it("keeps 2026 calls working while Redis restarts, fails what needs it fast, and recovers", async () => {
    const modern = await connected("2026-07-28");
    const legacy = await connected("2025-11-25");
    const { task } = await callToolAsTask(modern, "hold-task", {});
    if (task === undefined) throw new Error("expected a task");
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
    // Tasks live in Redis: polling one fails fast with the typed error too.
    await expect(getTask(modern, task.taskId)).rejects.toMatchObject({
      code: -32603,
      data: { reason: "cluster_unavailable" },
    });
    await cancelTask(modern, task.taskId).catch(() => {});
    expect(Date.now() - started).toBeLessThan(15_000); // hang guard
    await rig.startRedis();
    // Recovery: a fresh session works from every instance again, within a bounded time.
    const deadline = Date.now() + 15_000;
    let recovered = false;
    while (!recovered && Date.now() < deadline) {
      const { fetch, upstreams } = upstreamRecordingFetch();
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
    // A task whose work runs on i2: created there directly, then polled through the balancer.
    const direct = await connected("2026-07-28", undefined, rig.instanceUrls[2]);
    const { task: doomed } = await callToolAsTask(direct, "hold-task", {});
    if (doomed === undefined) throw new Error("expected a task");
    const seen = await pollUntil(modern[0] as Client, doomed.taskId, (t) => t.statusMessage !== undefined);
    expect(seen.statusMessage).toBe("held on i2");
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
    // Its task is failed by the others once i2 stayed unreachable for the grace (5 s): no task hangs.
    const orphan = await pollUntil(modern[0] as Client, doomed.taskId, (t) => t.status === "failed");
    expect(orphan.status).toBe("failed");
    expect(orphan.error?.message).toMatch(/instance running this task stopped/);
  }, 45_000);
});
