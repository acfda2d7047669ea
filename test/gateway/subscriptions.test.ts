import { createRequire } from "node:module";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Client } from "../../src/client/index.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { memoryCluster } from "../../src/server/index.js";
import { eventually, fixtureUpstream, gatewayWithClient } from "./support.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

const require = createRequire(import.meta.url);
const everything = {
  command: process.execPath,
  args: [
    join(require.resolve("@modelcontextprotocol/server-everything/package.json"), "..", "dist", "index.js"),
  ],
};

/** Follows `uri` in the client's era and resolves with a function telling how many updates of it came. */
async function follow(client: Client, era: string, uri: string, updates: string[]): Promise<void> {
  if (era === LEGACY_VERSION) {
    await client.subscribeResource(uri);
    return;
  }
  const sub = await client.listenSubscriptions({ resourceSubscriptions: [uri] });
  closers.push(() => sub.close());
  const ack = await sub.next(10_000);
  expect(ack).toMatchObject({ type: "acknowledged", notifications: { resourceSubscriptions: [uri] } });
  void (async () => {
    for await (const event of sub) {
      if (event.type === "notification") updates.push((event.notification.params as { uri: string }).uri);
    }
  })();
}

describe.each([MODERN_VERSION, LEGACY_VERSION] as const)(
  "resource subscriptions through the gateway (%s client)",
  (era) => {
    const client = (updates: string[]) => ({
      protocolVersion: era,
      onNotification: (n: { method: string; params?: unknown }) => {
        if (n.method === "notifications/resources/updated") updates.push((n.params as { uri: string }).uri);
      },
    });

    it("forwards a subscription to a 2026 upstream (subscriptions/listen there) and its updates back, URI mapped", async () => {
      const updates: string[] = [];
      const { client: downstream } = await gatewayWithClient(
        { up: fixtureUpstream("up", { start: "boot" }) },
        client(updates),
        closers,
      );
      await follow(downstream, era, "gateway://up/note://a", updates);
      await downstream.callTool("up__touch", {});
      await eventually(() => updates.length > 0);
      expect(updates[0]).toBe("gateway://up/note://a");
    });

    it("forwards a subscription to a 2025 upstream (resources/subscribe there: server-everything) and its updates back", async () => {
      const updates: string[] = [];
      const { client: downstream } = await gatewayWithClient(
        { ev: { ...everything, start: "boot" } },
        client(updates),
        closers,
      );
      const uri = "gateway://ev/demo://resource/dynamic/text/1";
      await follow(downstream, era, uri, updates);
      await downstream.callTool("ev__toggle-subscriber-updates", {});
      await eventually(() => updates.includes(uri));
    });

    it("shares a subscription between the instances of a cluster: an update caused on another instance's upstream comes back", async () => {
      const cluster = memoryCluster();
      const updates: string[] = [];
      const upstream = { up: fixtureUpstream("up", { start: "boot" }) };
      const { client: subscriber } = await gatewayWithClient(upstream, client(updates), closers, { cluster });
      const { client: other } = await gatewayWithClient(upstream, { protocolVersion: era }, closers, {
        cluster,
      });
      await follow(subscriber, era, "gateway://up/note://a", updates);
      // The other instance's upstream is its own process: it says "updated" only once it is subscribed too.
      await eventually(async () => {
        await other.callTool("up__touch", {});
        return updates.length > 0;
      });
      expect(updates[0]).toBe("gateway://up/note://a");
    });

    it("tells an instance that joins the cluster later of the subscriptions made before it", async () => {
      const cluster = memoryCluster();
      const updates: string[] = [];
      const upstream = { up: fixtureUpstream("up", { start: "boot" }) };
      const { client: subscriber } = await gatewayWithClient(upstream, client(updates), closers, { cluster });
      await follow(subscriber, era, "gateway://up/note://a", updates);
      // Only now does the second instance start: it asks, and the first repeats what it shared.
      const { client: late } = await gatewayWithClient(upstream, { protocolVersion: era }, closers, {
        cluster,
      });
      await eventually(async () => {
        await late.callTool("up__touch", {});
        return updates.length > 0;
      });
      expect(updates[0]).toBe("gateway://up/note://a");
    });

    it("refuses a subscription to a URI that names no upstream", async () => {
      const updates: string[] = [];
      const { client: downstream } = await gatewayWithClient(
        { up: fixtureUpstream("up") },
        client(updates),
        closers,
      );
      if (era === LEGACY_VERSION) {
        await expect(downstream.subscribeResource("gateway://nobody/x")).rejects.toMatchObject({
          code: -32602,
        });
      } else {
        const sub = await downstream.listenSubscriptions({ resourceSubscriptions: ["gateway://nobody/x"] });
        closers.push(() => sub.close());
        expect(await sub.next(10_000)).toMatchObject({
          type: "acknowledged",
          notifications: { resourceSubscriptions: [] },
        });
      }
    });
  },
);
