import { afterEach, describe, expect, it } from "vitest";
import type { GatewayPlugin } from "../../src/gateway/index.js";
import { createHttpHandler } from "../../src/http/index.js";
import { serve } from "../../src/node/index.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { ServerBuilder } from "../../src/server/index.js";
import { ManualClock } from "../support/manual-clock.js";
import { eventually, fixtureUpstream, gatewayWithClient } from "./support.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

const text = (result: { content?: unknown }) => (result.content as { text: string }[])[0]?.text;

describe("gateway health", () => {
  it.each([MODERN_VERSION, LEGACY_VERSION] as const)(
    "withdraws a crashed stdio upstream's items, names it in errors while it is down, and restarts it after the backoff (%s client)",
    async (era) => {
      const clock = new ManualClock();
      let changes = 0;
      const { server, client } = await gatewayWithClient(
        {
          alpha: fixtureUpstream("alpha", { start: "boot" }),
          beta: fixtureUpstream("beta", { start: "boot" }),
        },
        {
          protocolVersion: era,
          onNotification: (n) => {
            if (n.method === "notifications/tools/list_changed") changes++;
          },
        },
        closers,
        { clock, gateway: { restart: { initialDelayMs: 1_000, maxDelayMs: 8_000 } } },
      );
      const gateway = server.plugin("gateway") as GatewayPlugin;
      expect(gateway.status().map((s) => s.state)).toEqual(["up", "up"]);

      await expect(client.callTool("alpha__crash", {})).rejects.toMatchObject({
        code: -32603,
        message: expect.stringContaining('upstream "alpha"'),
      });
      await eventually(() => gateway.status()[0]?.state === "down");
      const tools = (await client.listAllTools()).map((t) => t.name);
      expect(tools.some((n) => n.startsWith("alpha__"))).toBe(false);
      expect(tools).toContain("beta__echo");
      if (era === LEGACY_VERSION) await eventually(() => changes > 0);
      await expect(client.callTool("alpha__echo", { text: "x" })).rejects.toMatchObject({
        code: -32603,
        message: expect.stringMatching(/^upstream "alpha" is unavailable: exited with code 3/),
        data: { upstream: "alpha", reason: "upstream_unavailable" },
      });
      expect(text(await client.callTool("beta__echo", { text: "still" }))).toBe("beta: still");

      clock.advance(999);
      expect(gateway.status()[0]?.state).toBe("down");
      clock.advance(1);
      await eventually(() => gateway.status()[0]?.state === "up");
      expect(text(await client.callTool("alpha__echo", { text: "back" }))).toBe("alpha: back");
    },
  );

  it("one hung upstream holds only its own slots: past its queue a call to it is refused at once, others go on", async () => {
    const { server, client } = await gatewayWithClient(
      {
        slow: fixtureUpstream("slow", { start: "boot", maxConcurrent: 1, maxQueued: 1 }),
        fast: fixtureUpstream("fast", { start: "boot" }),
      },
      { protocolVersion: MODERN_VERSION },
      closers,
    );
    const first = new AbortController();
    const hung = client.callTool("slow__hang", {}, { signal: first.signal }).catch((e: unknown) => e);
    const queued = client.callTool("slow__echo", { text: "queued" });
    const gateway = server.plugin("gateway") as GatewayPlugin;
    await eventually(() => gateway.status()[0]?.queued === 1);
    await expect(client.callTool("slow__echo", { text: "refused" })).rejects.toMatchObject({
      code: -32603,
      data: { upstream: "slow", reason: "upstream_capacity" },
    });
    expect(text(await client.callTool("fast__echo", { text: "free" }))).toBe("fast: free");
    // Cancelling the hung call frees its slot: the queued call then runs.
    first.abort();
    await hung;
    expect(text(await queued)).toBe("slow: queued");
  });

  it("ends a call to an upstream that does not answer within its timeoutMs with an error naming it", async () => {
    const { client } = await gatewayWithClient(
      { slow: fixtureUpstream("slow", { start: "boot", timeoutMs: 300 }) },
      { protocolVersion: MODERN_VERSION },
      closers,
    );
    await expect(client.callTool("slow__hang", {})).rejects.toMatchObject({
      code: -32603,
      data: { upstream: "slow", reason: "upstream_timeout" },
    });
  });

  it("lists the other upstreams when one never finishes its handshake: it is down past its startTimeoutMs, named in errors", async () => {
    const { server, client } = await gatewayWithClient(
      {
        mute: { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"], startTimeoutMs: 300 },
        alpha: fixtureUpstream("alpha"),
      },
      { protocolVersion: MODERN_VERSION },
      closers,
    );
    const tools = (await client.listAllTools()).map((t) => t.name);
    expect(tools).toContain("alpha__echo");
    expect(tools.some((name) => name.startsWith("mute__"))).toBe(false);
    const gateway = server.plugin("gateway") as GatewayPlugin;
    expect(gateway.status()[0]?.state).toBe("down");
    await expect(client.callTool("mute__anything", {})).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('upstream "mute" is unavailable: it failed to start'),
    });
  });

  it("keeps a hung upstream's waiting calls out of the engine's way: the server has a slot for every upstream's calls", async () => {
    const { server, client } = await gatewayWithClient(
      {
        slow: fixtureUpstream("slow", { start: "boot", maxConcurrent: 2, maxQueued: 40 }),
        fast: fixtureUpstream("fast", { start: "boot" }),
      },
      { protocolVersion: MODERN_VERSION },
      closers,
    );
    const gateway = server.plugin("gateway") as GatewayPlugin;
    const controller = new AbortController();
    const hung = Array.from({ length: 42 }, () =>
      client.callTool("slow__hang", {}, { signal: controller.signal }).catch(() => undefined),
    );
    await eventually(() => gateway.status()[0]?.queued === 40);
    expect(server.queuedHandlers).toBe(0);
    expect(text(await client.callTool("fast__echo", { text: "free" }))).toBe("fast: free");
    controller.abort();
    await Promise.all(hung);
  });

  it("keeps what a failing upstream wrote to stderr out of the client's error, and in the operator's log", async () => {
    const logged: unknown[] = [];
    const { client } = await gatewayWithClient(
      { leaky: { command: process.execPath, args: ["-e", "console.error('SECRET-123'); process.exit(1)"] } },
      { protocolVersion: MODERN_VERSION },
      closers,
      {
        logger: {
          warn: (...args: unknown[]) => logged.push(args),
          error: (...args: unknown[]) => logged.push(args),
        },
      },
    );
    const error = await client.callTool("leaky__x", {}).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: -32603,
      data: { upstream: "leaky", reason: "upstream_unavailable" },
    });
    expect((error as Error).message).toMatch(/^upstream "leaky" is unavailable: it failed to start/);
    expect(JSON.stringify(error)).not.toContain("SECRET-123");
    expect((error as Error).message).not.toContain("SECRET-123");
    expect(JSON.stringify(logged)).toContain("SECRET-123");
  });
});

describe("an HTTP upstream whose credentials stop working", () => {
  it.each([MODERN_VERSION, LEGACY_VERSION] as const)(
    "names the refused authorization in the call's error and takes the upstream down (%s upstream)",
    async (upstreamEra) => {
      const upstream = new ServerBuilder({ serverInfo: { name: "guarded", version: "1.0.0" } })
        .tool({ name: "ping", inputSchema: { type: "object" } }, () => ({ content: [] }))
        .build();
      const handler = createHttpHandler(upstream);
      let accepted = true;
      const front = await serve(async (request: Request) => {
        if (!accepted || request.headers.get("authorization") !== "Bearer good") {
          return new Response(null, {
            status: 401,
            headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' },
          });
        }
        const body = request.method === "POST" ? await request.clone().text() : "";
        if (upstreamEra === LEGACY_VERSION && body.includes('"server/discover"')) {
          return Response.json({
            jsonrpc: "2.0",
            id: (JSON.parse(body) as { id: unknown }).id,
            error: { code: -32601, message: "Method not found" },
          });
        }
        return handler(request);
      });
      closers.push(
        () => front.close(),
        () => handler.close(),
        () => upstream.close(),
      );
      const { server, client } = await gatewayWithClient(
        { guarded: { url: front.url, headers: { Authorization: "Bearer good" }, start: "boot" } },
        { protocolVersion: MODERN_VERSION },
        closers,
      );
      const gateway = server.plugin("gateway") as GatewayPlugin;
      expect(gateway.status()[0]?.state).toBe("up");
      accepted = false;
      await expect(client.callTool("guarded__ping", {})).rejects.toMatchObject({
        code: -32603,
        message: expect.stringMatching(/^upstream "guarded" is unavailable: its authorization failed/),
      });
      expect(gateway.status()[0]?.state).toBe("down");
    },
  );
});
