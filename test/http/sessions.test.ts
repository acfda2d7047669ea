/**
 * Legacy 2025-11-25 sessions over real HTTP on 127.0.0.1: the session id, its checks on POST, GET and DELETE
 * (missing, unknown, other principal, version header), the GET stream, capacity per endpoint and per identity,
 * idle and absolute expiry and the initialization timeout (on an injected clock), and cancellation.
 */
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import type { HttpHandlerOptions } from "../../src/http/server/options.js";
import type { ServerPlugin } from "../../src/server/core/plugin.js";
import type { Server } from "../../src/server/server.js";
import { fixtureServer } from "../support/fixture-server.js";
import { HttpPeer, type Reply, raw, useServe } from "../support/http-peer.js";
import { ManualClock } from "../support/manual-clock.js";
import { until } from "../support/until.js";

const serve = useServe();
const LEGACY = "2025-11-25";

async function endpoint(options: HttpHandlerOptions = {}, server: Server = fixtureServer()) {
  const handler = createHttpHandler(server, options);
  const { url } = await serve(handler);
  return { url, handler, server, peer: () => new HttpPeer(url, LEGACY) };
}

/** Headers of a GET or DELETE on `peer`'s session (`extra` adds, replaces or removes). */
function sessionHeaders(peer: HttpPeer, extra: { [name: string]: string | undefined } = {}) {
  return peer.merge(
    { accept: "text/event-stream", "mcp-protocol-version": LEGACY, "mcp-session-id": peer.sessionId ?? "" },
    extra,
  );
}

function expectError(reply: Reply, status: number, code: number, message?: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.contentType).toMatch(/^application\/json/);
  expect(reply.messages[0]).toMatchObject({ error: message === undefined ? { code } : { code, message } });
}

const identityFrom = { authenticate: (request: Request) => request.headers.get("x-user") ?? undefined };

describe("legacy session lifecycle", () => {
  it("mints a random session id on initialize; later requests name it", async () => {
    const { peer, handler } = await endpoint();
    const a = peer();
    const init = await a.open();
    expect(init.status).toBe(200);
    // Nothing comes before these answers: they are JSON, the session id in the initialize answer's head.
    expect(init.contentType).toBe("application/json");
    expect(a.sessionId).toMatch(/^[0-9a-f]{32}$/);
    expect(init.messages[0]).toMatchObject({ result: { protocolVersion: LEGACY } });
    const b = peer();
    await b.open();
    expect(b.sessionId).not.toBe(a.sessionId);
    expect(handler.sessionCount).toBe(2);
    const list = await a.send(a.request("tools/list"));
    expect(list.status).toBe(200);
    expect(list.headers["mcp-session-id"]).toBeUndefined();
    expect(list.contentType).toBe("application/json");
    expect(list.messages.at(-1)).toHaveProperty("result.tools");
  });

  it("gives plugins the session's Mcp-Session-Id as session.id, at open, per request and at close", async () => {
    const seen: string[] = [];
    const plugin: ServerPlugin = {
      name: "test/session-ids",
      sessionOpened: (session) => void seen.push(`open ${session.id}`),
      admit: (call) => void seen.push(`${call.method} ${call.session?.id}`),
      sessionClosed: (session) => void seen.push(`close ${session.id}`),
    };
    const { peer } = await endpoint({}, fixtureServer({ plugins: [plugin] }));
    const a = peer();
    await a.open();
    await a.send(a.request("tools/list"));
    await raw(a.url, { method: "DELETE", headers: sessionHeaders(a) });
    const id = a.sessionId;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    await until(() => seen.includes(`close ${id}`));
    expect(seen).toEqual([`initialize ${id}`, `open ${id}`, `tools/list ${id}`, `close ${id}`]);
  });

  it("refuses a request with no session id (400), an unknown one (404 -32000), a bad version header (400 -32022)", async () => {
    const { peer } = await endpoint();
    const p = peer();
    await p.open();
    expectError(
      await p.send(p.request("tools/list"), { headers: { "mcp-session-id": undefined } }),
      400,
      -32600,
    );
    const unknown = await p.send(p.request("tools/list"), { headers: { "mcp-session-id": "0".repeat(32) } });
    expectError(unknown, 404, -32000, "Session not found");
    const missing = await p.send(p.request("tools/list"), { headers: { "mcp-protocol-version": undefined } });
    expectError(missing, 400, -32022);
    const old = await p.send(p.request("tools/list"), { headers: { "mcp-protocol-version": "2025-06-18" } });
    expectError(old, 400, -32022);
    expect(old.messages[0]).toMatchObject({
      error: { data: { supported: [LEGACY], requested: "2025-06-18" } },
    });
    const reinit = p.request("initialize", {
      protocolVersion: LEGACY,
      capabilities: {},
      clientInfo: { name: "c", version: "1" },
    });
    expectError(await p.send(reinit, { headers: { "mcp-session-id": p.sessionId } }), 400, -32600);
  });

  it.each([
    ["2025-06-18", undefined],
    ["2025-03-26", undefined],
    ["2025-06-18", "2025-06-18"],
  ])(
    "answers an initialize asking for %s (version header %s) with 2025-11-25; the session then requires that version",
    async (asked, header) => {
      const { peer } = await endpoint();
      const p = peer();
      const init = await p.send(
        p.request("initialize", {
          protocolVersion: asked,
          capabilities: {},
          clientInfo: { name: "old", version: "0" },
        }),
        { headers: { "mcp-protocol-version": header } },
      );
      expect(init.status).toBe(200);
      expect(init.messages[0]).toMatchObject({ result: { protocolVersion: LEGACY } });
      expect(p.sessionId).toBeDefined();
      // A client that keeps speaking its own revision is refused, naming the one version the session speaks.
      const stale = await p.send(p.request("tools/list"), { headers: { "mcp-protocol-version": asked } });
      expectError(stale, 400, -32022);
      expect(stale.messages[0]).toMatchObject({ error: { data: { supported: [LEGACY], requested: asked } } });
      const none = await p.send(p.request("tools/list"), { headers: { "mcp-protocol-version": undefined } });
      expectError(none, 400, -32022);
      await p.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      expect((await p.send(p.request("tools/list"))).status).toBe(200);
    },
  );

  it("answers a 2026-07-28 envelope on the session with 400 naming the mismatch, not 200 -32601", async () => {
    const { peer } = await endpoint();
    const p = peer();
    await p.open();
    const modernMeta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const discover = await p.send(p.request("server/discover", { _meta: modernMeta }));
    expectError(discover, 400, -32020);
    expect(discover.messages[0]).toMatchObject({
      id: expect.anything(),
      error: {
        message: expect.stringMatching(/2026-07-28.*2025-11-25/),
        data: {
          header: "MCP-Protocol-Version",
          reason: "era_mismatch",
          session: LEGACY,
          requested: "2026-07-28",
        },
      },
    });
    const list = await p.send(p.request("tools/list", { _meta: modernMeta }));
    expectError(list, 400, -32020);
    for (const method of ["server/discover", "subscriptions/listen"]) {
      const bare = await p.send(p.request(method, {}));
      expectError(bare, 400, -32600);
      expect(bare.messages[0]).toMatchObject({
        error: {
          message: expect.stringContaining(`${method} is a 2026-07-28 method`),
          data: { reason: "era_mismatch", session: LEGACY, method },
        },
      });
    }
    // 2025-11-25's own _meta (a progress token, the related-task key of its tasks) is no 2026 envelope.
    const own = await p.send(
      p.request("tools/list", {
        _meta: { progressToken: 1, "io.modelcontextprotocol/related-task": { taskId: "t" } },
      }),
    );
    expect(own.status).toBe(200);
    expect(own.messages.at(-1)).toHaveProperty("result.tools");
  });

  it("answers another principal with 403 on POST, GET and DELETE", async () => {
    const { peer } = await endpoint(identityFrom);
    const alice = peer();
    await alice.open({ headers: { "x-user": "alice" } });
    const post = await alice.send(alice.request("tools/list"), { headers: { "x-user": "mallory" } });
    expect(post.status).toBe(403);
    expect(post.text).toBe("Forbidden");
    const anonymous = await alice.send(alice.request("tools/list"));
    expect(anonymous.status).toBe(403);
    for (const method of ["GET", "DELETE"]) {
      const reply = await raw(alice.url, { method, headers: sessionHeaders(alice, { "x-user": "mallory" }) });
      expect(reply.status, method).toBe(403);
    }
    expect((await alice.send(alice.request("tools/list"), { headers: { "x-user": "alice" } })).status).toBe(
      200,
    );
  });

  it("ends a session on DELETE (200); the id is then unknown everywhere", async () => {
    const { peer, handler } = await endpoint();
    const p = peer();
    await p.open();
    const deleted = await raw(p.url, { method: "DELETE", headers: sessionHeaders(p) });
    expect(deleted.status).toBe(200);
    expect(handler.sessionCount).toBe(0);
    expectError(await p.send(p.request("tools/list")), 404, -32000);
    expect((await raw(p.url, { method: "GET", headers: sessionHeaders(p) })).status).toBe(404);
    expect((await raw(p.url, { method: "DELETE", headers: sessionHeaders(p) })).status).toBe(404);
  });

  it("never publishes a session for a failed initialize", async () => {
    const { peer, handler } = await endpoint({ sessions: { maxSessions: 1 } });
    const p = peer();
    const failed = await p.send(p.request("initialize", { protocolVersion: LEGACY, capabilities: {} }), {
      validate: false,
    });
    expect(failed.status).toBe(200);
    expect(failed.messages[0]).toMatchObject({ error: { code: -32602 } });
    expect(failed.headers["mcp-session-id"]).toBeUndefined();
    expect(handler.sessionCount).toBe(0);
    // Its reserved slot was given back: the one allowed session can still open.
    const ok = peer();
    expect((await ok.open()).status).toBe(200);
    expect(handler.sessionCount).toBe(1);
  });
});

describe("the GET stream", () => {
  it("carries list-changed notifications to ready sessions; a second GET gets 409", async () => {
    const server = fixtureServer({ listChanged: { tools: true } });
    const { peer } = await endpoint({}, server);
    const p = peer();
    await p.open();
    const { request, response } = p.stream(undefined, { method: "GET", headers: sessionHeaders(p) });
    const { res, events } = await response;
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/event-stream");
    expect(res.headers["x-accel-buffering"]).toBe("no");
    // The first bytes go out at once: some servers (Bun) send the head only with them.
    expect(await events.next()).toEqual({ comment: "stream open" });
    const second = await raw(p.url, { method: "GET", headers: sessionHeaders(p) });
    p.checkReply(second);
    expectError(second, 409, -32600);
    await server.notifyListChanged("tools");
    const event = await events.next();
    expect(event?.message).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    // Once the client closes it, a new GET stream may open.
    request.destroy();
    res.destroy();
    // The server learns of the close asynchronously: until it does, a new GET still gets 409.
    let status = 0;
    for (let attempt = 0; attempt < 500 && status !== 200; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const { request: again, response: reopened } = p.stream(undefined, {
        method: "GET",
        headers: sessionHeaders(p),
      });
      status = (await reopened).res.statusCode ?? 0;
      again.destroy();
      if (status !== 200) expect(status).toBe(409);
    }
    expect(status).toBe(200);
  });

  it("ends the GET stream when its Request's signal aborts (a fetch-style host's disconnect)", async () => {
    // Hosts that call the handler with a Web Request (app.fetch, an in-process fetch, a balancer in front of
    // instances) may tell that the client left only through request.signal, not by cancelling the body.
    const clock = new ManualClock();
    const handler = createHttpHandler(fixtureServer(), {
      clock,
      keepAliveMs: 0,
      sessions: { idleTimeoutMs: 1_000 },
    });
    const url = "http://127.0.0.1/mcp";
    const json = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const init = await handler(
      new Request(url, {
        method: "POST",
        headers: json,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      }),
    );
    const session = {
      "mcp-session-id": init.headers.get("mcp-session-id") ?? "",
      "mcp-protocol-version": LEGACY,
    };
    const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
    await handler(new Request(url, { method: "POST", headers: { ...json, ...session }, body: initialized }));
    const get = (signal?: AbortSignal) =>
      handler(
        new Request(url, {
          method: "GET",
          headers: { accept: "text/event-stream", ...session },
          ...(signal ? { signal } : {}),
        }),
      );
    const gone = new AbortController();
    const stream = await get(gone.signal);
    expect(stream.status).toBe(200);
    const reader = stream.body?.getReader();
    expect(new TextDecoder().decode((await reader?.read())?.value)).toBe(": stream open\n\n");
    expect((await get()).status).toBe(409);
    gone.abort();
    // A new stream may open, the old one has ended, and the session left alone expires when idle.
    const again = await get();
    expect(again.status).toBe(200);
    await again.body?.cancel();
    expect((await reader?.read())?.done).toBe(true);
    clock.advance(1_000);
    expect(handler.sessionCount).toBe(0);
  });

  it("sends request-scoped progress and logs on the POST's stream, not on the GET stream", async () => {
    const { peer } = await endpoint();
    const p = peer();
    await p.open();
    const reply = await p.send(
      p.request("tools/call", { name: "chatty", arguments: {}, _meta: { progressToken: 5 } }),
    );
    expect(reply.contentType).toBe("text/event-stream");
    expect(reply.messages.map((m) => ("method" in m ? m.method : "response"))).toEqual([
      "notifications/progress",
      "notifications/message",
      "notifications/message",
      "notifications/progress",
      "response",
    ]);
  });
});

describe("capacity", () => {
  it("answers 503 session_limit past the endpoint bound", async () => {
    const { peer } = await endpoint({ sessions: { maxSessions: 2 } });
    await peer().open();
    await peer().open();
    const third = peer();
    const reply = await third.open();
    expectError(reply, 503, -32603, "Session capacity reached: 3 sessions, over sessions.maxSessions (2)");
    expect(reply.messages[0]).toMatchObject({
      error: { data: { option: "sessions.maxSessions", limit: 2, size: 3, reason: "session_limit" } },
    });
    expect(third.sessionId).toBeUndefined();
  });

  it("answers 503 identity_limit past the per-identity bound; other identities still open sessions", async () => {
    const { peer } = await endpoint({ ...identityFrom, sessions: { maxSessionsPerIdentity: 2 } });
    const as = (user: string) => ({ headers: { "x-user": user } });
    await peer().open(as("alice"));
    await peer().open(as("alice"));
    const reply = await peer().open(as("alice"));
    expectError(reply, 503, -32603);
    expect(reply.messages[0]).toMatchObject({ error: { data: { reason: "identity_limit" } } });
    expect((await peer().open(as("bob"))).status).toBe(200);
  });
});

describe("expiry", () => {
  const times = { idleTimeoutMs: 1_000, absoluteTimeoutMs: 5_000, initializationTimeoutMs: 300 };

  it("closes a session idle past idleTimeoutMs; each request restarts the idle clock", async () => {
    const clock = new ManualClock();
    const { peer, handler } = await endpoint({ clock, sessions: times });
    const p = peer();
    await p.open();
    clock.advance(999);
    expect((await p.send(p.request("tools/list"))).status).toBe(200);
    clock.advance(999);
    expect((await p.send(p.request("tools/list"))).status).toBe(200);
    clock.advance(1_000);
    expectError(await p.send(p.request("tools/list")), 404, -32000);
    expect(handler.sessionCount).toBe(0);
  });

  it("closes every session at absoluteTimeoutMs, busy or not", async () => {
    const clock = new ManualClock();
    const { peer } = await endpoint({ clock, sessions: times });
    const p = peer();
    await p.open();
    const { events } = await p.stream(undefined, { method: "GET", headers: sessionHeaders(p) }).response;
    expect(await events.next()).toEqual({ comment: "stream open" });
    for (let t = 0; t < 4_900; t += 700) {
      clock.advance(700);
      expect((await p.send(p.request("tools/list"))).status).toBe(200);
    }
    clock.advance(100);
    expect(await events.next()).toBeUndefined();
    expectError(await p.send(p.request("tools/list")), 404, -32000);
  });

  it("closes a session that does not send notifications/initialized within initializationTimeoutMs", async () => {
    const clock = new ManualClock();
    const { peer } = await endpoint({ clock, sessions: times });
    const p = peer();
    await p.send(
      p.request("initialize", {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: "c", version: "1" },
      }),
    );
    expect(p.sessionId).toBeDefined();
    clock.advance(300);
    expectError(await p.send(p.request("tools/list")), 404, -32000);
  });
});

describe("cancellation", () => {
  it("notifications/cancelled aborts the session's request, which then gets no response", async () => {
    const { peer, server } = await endpoint({ enableJsonResponse: true });
    const p = peer();
    await p.open();
    const slow = p.request("tools/call", { name: "slow", arguments: {} });
    const pending = p.send(slow);
    await until(() => server.runningHandlers === 1);
    const duplicate = await p.send(slow, { validate: false });
    expectError(duplicate, 400, -32600);
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: slow.id } };
    expect((await p.send(cancel)).status).toBe(202);
    const reply = await pending;
    expect(reply.status).toBe(202);
    expect(reply.messages).toEqual([]);
    await until(() => server.runningHandlers === 0);
  });
});
