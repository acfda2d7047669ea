/**
 * Custom notifications on a connection, with a raw peer: when a handler takes one (era, session state, the
 * principal), how failures and a full executor are reported, and `server.notify` to 2025-11-25 sessions.
 */
import { afterEach, describe, expect, it } from "vitest";
import { connectRaw, modernMeta, resultOf } from "../../../test/support/raw-peer.js";
import { until } from "../../../test/support/until.js";
import { useWireValidation } from "../../../test/support/validating-transport.js";
import { ServerBuilder } from "../authoring/builder.js";
import type { Server } from "../server.js";
import type { NotificationContext } from "./custom.js";

useWireValidation();

let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function build(options: { maxConcurrentHandlers?: number; maxQueuedHandlers?: number } = {}) {
  const seen: [unknown, NotificationContext][] = [];
  const warnings: string[] = [];
  server = new ServerBuilder({
    serverInfo: { name: "n", version: "1" },
    logger: { warn: (message) => warnings.push(message), error: (message) => warnings.push(message) },
    ...options,
  })
    .request(
      "acme/hold",
      (_params, context) =>
        new Promise<{ [key: string]: unknown }>((resolve) =>
          context.signal.addEventListener("abort", () => resolve({})),
        ),
    )
    .notification("acme/seen", (params, context) => {
      seen.push([params, context]);
    })
    .notification("acme/boom", () => {
      throw new Error("handler exploded");
    })
    .build();
  return { server, seen, warnings };
}

describe("custom notifications on a connection", () => {
  it("2025: are taken only once initialize succeeded, with the session's identity", async () => {
    const { server, seen } = build();
    const { peer } = await connectRaw(server, { identity: "alice" });
    await peer.notify("acme/seen", { early: true });
    await peer.initialize();
    await peer.notify("acme/seen", { late: true, _meta: { trace: "t" } });
    await until(() => seen.length > 0);
    expect(seen.map(([params]) => params)).toEqual([{ late: true }]);
    expect(seen[0]?.[1]).toMatchObject({ era: "2025-11-25", method: "acme/seen", identity: "alice" });
    expect(seen[0]?.[1].meta).toEqual({ trace: "t" });
  });

  it("2026: are taken on an unpinned connection only with 2026 _meta; once pinned, always", async () => {
    const { server, seen } = build();
    const { peer } = await connectRaw(server);
    await peer.notify("acme/seen", { bare: true });
    await peer.notify("acme/seen", { first: true, _meta: modernMeta() });
    await until(() => seen.length === 1);
    resultOf(await peer.modern("server/discover"));
    await peer.notify("acme/seen", { pinned: true });
    await until(() => seen.length === 2);
    expect(seen.map(([params, context]) => [params, context.era])).toEqual([
      [{ first: true }, "2026-07-28"],
      [{ pinned: true }, "2026-07-28"],
    ]);
  });

  it("report a failing handler, and a notification that finds the executor full, to the logger", async () => {
    const { server, seen, warnings } = build({ maxConcurrentHandlers: 1, maxQueuedHandlers: 0 });
    const { peer } = await connectRaw(server);
    await peer.initialize();
    await peer.notify("acme/boom");
    await until(() => warnings.length === 1);
    expect(warnings[0]).toContain("acme/boom");
    void peer.request("acme/hold");
    await until(() => server.runningHandlers === 1);
    await peer.notify("acme/seen", { dropped: true });
    await until(() => warnings.length === 2);
    expect(warnings[1]).toContain("acme/seen");
    expect(seen).toEqual([]);
  });
});

describe("server.notify", () => {
  it("reaches every ready 2025-11-25 session and refuses core names", async () => {
    const { server } = build();
    const one = (await connectRaw(server)).peer;
    const two = (await connectRaw(server)).peer;
    const fresh = (await connectRaw(server)).peer;
    await one.initialize();
    await two.initialize();
    await server.notify("acme/rebuilt", { documents: 3 });
    await until(() => one.notifications.length === 1 && two.notifications.length === 1);
    expect(one.notifications).toEqual([{ jsonrpc: "2.0", method: "acme/rebuilt", params: { documents: 3 } }]);
    expect(fresh.notifications).toEqual([]);
    await expect(server.notify("notifications/tools/list_changed")).rejects.toMatchObject({
      code: "UNSUPPORTED",
    });
  });
});
