/**
 * `mcpkit gateway` scaled out: three instances (the BUILT command, real subprocesses) with one config naming one
 * real redis-server (`gateway.redis`), behind a real nginx balancing round robin without stickiness
 * (test/support/cluster-harness.ts's `nginxConfig`, the one docs/deployment.md shows); each instance runs its own
 * stdio upstream, which answers with the name of its instance (GATEWAY_FIXTURE_NAME, passed by `inheritEnv`).
 * Needs redis-server and nginx (scripts/system-deps.sh) and `npm run build` first.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../src/http/index.js";
import type { Era } from "../../src/protocol/versions.js";
import { type CliProcess, startCli, waitUntil } from "../cli/built-cli.js";
import { startBalancer, startRedisServer, upstreamRecordingFetch } from "../support/cluster-harness.js";
import { builtFixture } from "../support/fixture-build.js";
import { systemTool } from "../support/system-tools.js";
import { eventually } from "./support.js";

const redisPath = systemTool("redis-server");
const nginxPath = systemTool("nginx");
const NAMES = ["g0", "g1", "g2"];
const NOTE = "gateway://up/note://a";

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

describe.skipIf(redisPath === undefined || nginxPath === undefined)(
  "mcpkit gateway x3 + Redis + nginx",
  () => {
    let dir = "";
    let redis: Awaited<ReturnType<typeof startRedisServer>> | undefined;
    let balancer: Awaited<ReturnType<typeof startBalancer>> | undefined;
    const instances: { cli: CliProcess; url: string; port: string }[] = [];
    const open: Client[] = [];

    const connect = async (
      era: Era,
      options: { url?: string; fetch?: typeof globalThis.fetch; updates?: string[] } = {},
    ) => {
      const client = new Client({
        transport: new StreamableHttpClientTransport({
          url: options.url ?? balancer?.url ?? "",
          ...(options.fetch ? { fetch: options.fetch as never } : {}),
        }),
        clientInfo: { name: "scale-out", version: "1.0.0" },
        protocolVersion: era,
        onNotification: (n) => {
          if (n.method === "notifications/resources/updated") {
            options.updates?.push((n.params as { uri: string }).uri);
          }
        },
      });
      open.push(client);
      await client.connect();
      return client;
    };
    /** The instance whose nginx address is `upstream` ("127.0.0.1:<port>"). */
    const instanceAt = (upstream: string) => instances.findIndex((i) => upstream.endsWith(`:${i.port}`));

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "mcpkit-gateway-scale-"));
      redis = await startRedisServer(redisPath as string);
      const file = join(dir, "gateway.json");
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: {
            up: {
              command: process.execPath,
              args: [builtFixture("gateway-upstream")],
              inheritEnv: ["PATH", "GATEWAY_FIXTURE_NAME"],
              start: "boot",
            },
          },
          gateway: { redis: { url: `redis://127.0.0.1:${redis.port}`, prefix: "gateway-scale-test:" } },
        }),
      );
      for (const name of NAMES) {
        const cli = startCli(["gateway", "--config", file, "--no-watch"], {
          keepStdin: true,
          env: { ...process.env, GATEWAY_FIXTURE_NAME: name },
        });
        instances.push({ cli, url: "", port: "" });
      }
      for (const instance of instances) {
        await waitUntil(
          () => instance.cli.stdout().includes("\n"),
          () => `no URL printed; stderr: ${instance.cli.stderr()}`,
        );
        instance.url = instance.cli.stdout().split("\n")[0] ?? "";
        instance.port = new URL(instance.url).port;
      }
      balancer = await startBalancer(
        nginxPath as string,
        instances.map((i) => Number(i.port)),
      );
    }, 60_000);

    afterAll(async () => {
      await Promise.allSettled(open.map((c) => c.close()));
      await Promise.allSettled(
        instances.map(async ({ cli }) => {
          if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill("SIGTERM");
          await cli.exited;
        }),
      );
      await balancer?.stop();
      await redis?.stop();
      rmSync(dir, { recursive: true, force: true });
    }, 30_000);

    it("serves a 2026-07-28 client's calls from every instance, each on its own upstream", async () => {
      const client = await connect("2026-07-28");
      const answers: string[] = [];
      for (let i = 0; i < 9; i++) answers.push(text(await client.callTool("up__echo", { text: `#${i}` })));
      for (const [i, answer] of answers.entries()) expect(answer).toMatch(new RegExp(`^g\\d: #${i}$`));
      expect(new Set(answers.map((a) => a.slice(0, 2))).size).toBeGreaterThanOrEqual(2);
    });

    it("serves a 2025-11-25 session initialized on one instance from the others: each forwards it to its owner", async () => {
      const { fetch, upstreams } = upstreamRecordingFetch();
      const session = await connect("2025-11-25", { fetch });
      const answers: string[] = [];
      for (let i = 0; i < 6; i++) answers.push(text(await session.callTool("up__echo", { text: "s" })));
      // The requests reached 2+ instances; the session's upstream calls all ran on its owner.
      expect(new Set(upstreams).size).toBeGreaterThanOrEqual(2);
      expect(new Set(answers).size).toBe(1);
      expect(answers[0]).toMatch(/^g\d: s$/);
    });

    it("delivers to a 2025 subscriber an update caused on another instance's upstream", async () => {
      const updates: string[] = [];
      const session = await connect("2025-11-25", { updates });
      const owner = NAMES.indexOf(text(await session.callTool("up__echo", { text: "" })).slice(0, 2));
      await session.subscribeResource(NOTE);
      const others = instances.filter((_, i) => i !== owner);
      const toucher = await connect("2026-07-28", { url: others[0]?.url ?? "" });
      // The subscription reaches the other instances' upstreams over Redis, not at once: touch until it has.
      await eventually(async () => {
        await toucher.callTool("up__touch", {});
        return updates.length > 0;
      });
      expect(updates[0]).toBe(NOTE);
    });

    it("delivers to a 2026 listen stream an update caused on another instance's upstream", async () => {
      const { fetch, upstreams } = upstreamRecordingFetch();
      const listener = await connect("2026-07-28", { fetch });
      const subscription = await listener.listenSubscriptions({ resourceSubscriptions: [NOTE] });
      expect(await subscription.next(10_000)).toMatchObject({
        type: "acknowledged",
        notifications: { resourceSubscriptions: [NOTE] },
      });
      const holder = instanceAt(upstreams.at(-1) ?? "");
      expect(holder).toBeGreaterThanOrEqual(0);
      const toucher = await connect("2026-07-28", { url: instances[(holder + 1) % 3]?.url ?? "" });
      const next = subscription.next(15_000);
      let done = false;
      void next.finally(() => {
        done = true;
      });
      await eventually(async () => {
        await toucher.callTool("up__touch", {});
        return done;
      });
      expect(await next).toMatchObject({
        type: "notification",
        notification: { method: "notifications/resources/updated", params: { uri: NOTE } },
      });
      await subscription.close();
    });

    it("goes on when instances are killed mid-traffic: 2026 calls on the others, the 2025 session continuing", async () => {
      const modern = await connect("2026-07-28");
      const session = await connect("2025-11-25");
      const owner = text(await session.callTool("up__echo", { text: "" })).slice(0, 2);
      const victim = NAMES.findIndex((name) => name !== owner);
      const traffic = Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => modern.callTool("up__echo", { text: `${i}` })),
      );
      instances[victim]?.cli.child.kill("SIGKILL");
      await instances[victim]?.cli.exited;
      // A call already sent to the victim is not retried elsewhere (tool calls need not be idempotent): a 502.
      for (const outcome of await traffic) {
        if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ details: { status: 502 } });
      }
      const after = await Promise.allSettled(
        Array.from({ length: 6 }, () => modern.callTool("up__echo", { text: "after" })),
      );
      expect(after.filter((outcome) => outcome.status === "rejected")).toEqual([]);
      const served = after.map((o) => text((o as PromiseFulfilledResult<unknown>).value).slice(0, 2));
      expect(served).not.toContain(NAMES[victim]);
      // The session's owner is alive: its session goes on as it was, through whichever instance nginx picks.
      for (let i = 0; i < 3; i++) {
        expect(text(await session.callTool("up__echo", { text: "still" }))).toBe(`${owner}: still`);
      }
      // Its owner killed too: the session answers 404, the client initializes again on the survivor.
      const ownerIndex = NAMES.indexOf(owner);
      instances[ownerIndex]?.cli.child.kill("SIGKILL");
      await instances[ownerIndex]?.cli.exited;
      const survivor = NAMES.find((_, i) => i !== victim && i !== ownerIndex);
      expect(text(await session.callTool("up__echo", { text: "again" }))).toBe(`${survivor}: again`);
      expect(text(await modern.callTool("up__echo", { text: "last" }))).toBe(`${survivor}: last`);
    }, 30_000);
  },
);
