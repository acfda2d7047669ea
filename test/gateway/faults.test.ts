import { afterEach, describe, expect, it } from "vitest";
import type { GatewayPlugin } from "../../src/gateway/index.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { memoryCluster } from "../../src/server/index.js";
import { eventually, fixtureUpstream, gatewayWithClient } from "./support.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

describe.each([MODERN_VERSION, LEGACY_VERSION] as const)("gateway faults (%s client)", (era) => {
  it("survives an upstream that floods notifications: its call completes, the others go on", async () => {
    let logs = 0;
    let progress = 0;
    const { client } = await gatewayWithClient(
      {
        loud: fixtureUpstream("loud", { start: "boot" }),
        quiet: fixtureUpstream("quiet", { start: "boot" }),
      },
      { protocolVersion: era, logLevel: "debug", onLog: () => void logs++ },
      closers,
    );
    if (era === LEGACY_VERSION) await client.setLoggingLevel("debug");
    const flooded = client.callTool("loud__flood", { count: 5_000 }, { onProgress: () => void progress++ });
    expect(text(await client.callTool("quiet__echo", { text: "calm" }))).toBe("quiet: calm");
    expect(text(await flooded)).toBe("flooded 5000");
    // Some came through, bounded per request (maxNotificationsPerRequest, 256, on the upstream and the gateway):
    // the rest were dropped, not queued.
    expect(logs + progress).toBeGreaterThan(0);
    expect(logs + progress).toBeLessThanOrEqual(256);
    expect(text(await client.callTool("loud__echo", { text: "after" }))).toBe("loud: after");
  });

  it("loses no call to a config reload during traffic: calls to a kept upstream all answer", async () => {
    const { server, client } = await gatewayWithClient(
      { alpha: fixtureUpstream("alpha", { start: "boot" }) },
      { protocolVersion: era },
      closers,
    );
    const gateway = server.plugin("gateway") as GatewayPlugin;
    const calls = Array.from({ length: 40 }, (_, i) => client.callTool("alpha__echo", { text: String(i) }));
    await gateway.reload({
      mcpServers: {
        alpha: fixtureUpstream("alpha", { start: "boot" }),
        beta: fixtureUpstream("beta", { start: "boot" }),
      },
    });
    const more = Array.from({ length: 40 }, (_, i) => client.callTool("alpha__echo", { text: `+${i}` }));
    const answers = (await Promise.all([...calls, ...more])).map(text);
    expect(answers.slice(0, 3)).toEqual(["alpha: 0", "alpha: 1", "alpha: 2"]);
    expect(answers).toHaveLength(80);
    expect(text(await client.callTool("beta__echo", { text: "new" }))).toBe("beta: new");
  });
});

describe("a gateway in a cluster whose bus is down", () => {
  it("tells its own clients of an upstream's change and logs the failed publish, with no unhandled rejection", async () => {
    const shared = memoryCluster();
    const cluster = {
      ...shared,
      bus: {
        publish: () => Promise.reject(new Error("bus down")),
        subscribe: (channel: string, listener: (message: string) => void) =>
          shared.bus.subscribe(channel, listener),
      },
    };
    const warnings: string[] = [];
    let changed = 0;
    const { client } = await gatewayWithClient(
      { alpha: fixtureUpstream("alpha", { start: "boot" }) },
      {
        protocolVersion: LEGACY_VERSION,
        onNotification: (n) => {
          if (n.method === "notifications/tools/list_changed") changed++;
        },
      },
      closers,
      { cluster, logger: { warn: (message: string) => warnings.push(message), error: () => {} } },
    );
    await client.callTool("alpha__grow", {});
    await eventually(() => changed > 0 && warnings.some((w) => w.startsWith("could not publish")));
  });
});
