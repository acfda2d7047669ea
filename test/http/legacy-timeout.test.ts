/**
 * `legacySseTimeoutMs` over real HTTP on 127.0.0.1, on an injected clock: a 2025-11-25 POST still unanswered
 * when it passes gets `-32603` "Request timeout": 504 when nothing was sent yet, else as the last event of its
 * SSE stream. The handler's signal fires; a late answer is dropped; 2026-07-28 POSTs are not affected.
 */
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import type { HttpHandlerOptions } from "../../src/http/server/options.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { HttpPeer, readReply, useServe } from "../support/http-peer.js";
import { ManualClock } from "../support/manual-clock.js";
import { until } from "../support/until.js";

const serve = useServe();
const LEGACY = "2025-11-25";
const MODERN = "2026-07-28";
const TIMEOUT = { code: -32603, message: "Request timeout" };

/** A server whose `wait` tool sends `notes` progress notifications, then waits for its signal (or `release`). */
function waitingServer() {
  const reasons: unknown[] = [];
  const warnings: string[] = [];
  const state = { started: 0 };
  let release: (() => void) | undefined;
  const server = new ServerBuilder({
    serverInfo: { name: "waiting", version: "1.0.0" },
    logger: { warn: (message) => warnings.push(message), error: (message) => warnings.push(message) },
  })
    .tool({ name: "wait", inputSchema: { type: "object" } }, async ({ notes, ignoreSignal }, context) => {
      for (let i = 1; i <= Number(notes ?? 0); i++) await context.progress(i);
      await new Promise<void>((resolve) => {
        state.started++;
        release = resolve;
        if (!ignoreSignal) context.signal.addEventListener("abort", () => resolve());
      });
      if (context.signal.aborted) reasons.push(context.signal.reason);
      return { content: [{ type: "text", text: "late" }] };
    })
    .build();
  return { server, reasons, warnings, state, release: () => release?.() };
}

async function endpoint(options: HttpHandlerOptions = {}) {
  const clock = new ManualClock();
  const waiting = waitingServer();
  const { url } = await serve(createHttpHandler(waiting.server, { clock, ...options }));
  return { clock, url, ...waiting };
}

function callWait(peer: HttpPeer, args: { [key: string]: unknown } = {}) {
  const params = { name: "wait", arguments: args };
  return peer.request(
    "tools/call",
    peer.era === LEGACY ? { ...params, _meta: { progressToken: "p" } } : params,
  );
}

describe("legacySseTimeoutMs (2025-11-25 POSTs)", () => {
  it("answers 504 -32603 'Request timeout' at 25,000 ms when nothing was sent, and fires the handler's signal", async () => {
    const { clock, url, reasons, warnings, state } = await endpoint({ keepAliveMs: 0 });
    const peer = new HttpPeer(url, LEGACY);
    await peer.open();
    const request = callWait(peer);
    const opened = peer.stream(request);
    await until(() => state.started === 1);
    // The handler is running and waits: one millisecond short of the deadline, nothing happens.
    clock.advance(24_999);
    expect(reasons).toEqual([]);
    clock.advance(1);
    const { res } = await opened.response;
    const reply = await readReply(res);
    peer.checkReply(reply);
    expect(reply.status).toBe(504);
    expect(reply.contentType).toBe("application/json");
    expect(reply.messages).toEqual([{ jsonrpc: "2.0", id: request.id, error: TIMEOUT }]);
    await until(() => reasons.length === 1);
    expect(reasons[0]).toMatchObject({ code: "TIMEOUT", details: { limit: 25_000 } });
    expect(warnings).toEqual(["a request outlasted legacySseTimeoutMs"]);
  });

  it("ends an SSE stream already open with the error as its last event for the request id, then closes it", async () => {
    const { clock, url, reasons, state } = await endpoint({ legacySseTimeoutMs: 5_000 });
    const peer = new HttpPeer(url, LEGACY);
    await peer.open();
    const request = callWait(peer, { notes: 2 });
    const opened = peer.stream(request);
    const { res, events } = await opened.response;
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/event-stream");
    expect(await events.next()).toMatchObject({
      message: { method: "notifications/progress", params: { progress: 1 } },
    });
    expect(await events.next()).toMatchObject({
      message: { method: "notifications/progress", params: { progress: 2 } },
    });
    await until(() => state.started === 1);
    clock.advance(5_000);
    expect(await events.next()).toEqual({ message: { jsonrpc: "2.0", id: request.id, error: TIMEOUT } });
    expect(await events.next()).toBeUndefined();
    await until(() => reasons.length === 1);
  });

  it("with the default keepalive (15,000 ms) an SSE-accepting request is a stream by 25,000 ms: the error is its last event", async () => {
    const { clock, url, state } = await endpoint();
    const peer = new HttpPeer(url, LEGACY);
    await peer.open();
    const request = callWait(peer);
    const opened = peer.stream(request);
    await until(() => state.started === 1);
    clock.advance(14_999);
    clock.advance(1);
    const { res, events } = await opened.response;
    expect(res.statusCode).toBe(200);
    expect(await events.next()).toEqual({ comment: "keepalive" });
    clock.advance(9_999);
    clock.advance(1);
    expect(await events.next()).toEqual({ message: { jsonrpc: "2.0", id: request.id, error: TIMEOUT } });
    expect(await events.next()).toBeUndefined();
  });

  it("drops the late answer of a handler that ignores its signal, and the session serves on", async () => {
    const { clock, url, release, warnings, state } = await endpoint({ enableJsonResponse: true });
    const peer = new HttpPeer(url, LEGACY);
    await peer.open();
    const request = callWait(peer, { ignoreSignal: true });
    const opened = peer.stream(request);
    await until(() => state.started === 1);
    clock.advance(25_000);
    const reply = await readReply((await opened.response).res);
    expect(reply.status).toBe(504);
    expect(reply.messages).toEqual([{ jsonrpc: "2.0", id: request.id, error: TIMEOUT }]);
    release();
    const list = await peer.send(peer.request("tools/list"));
    expect(list.status).toBe(200);
    expect(list.messages[0]).toHaveProperty("result.tools");
    expect(warnings).toEqual(["a request outlasted legacySseTimeoutMs"]);
  });

  it("leaves an answer that comes in time alone, its deadline cleared", async () => {
    const { clock, url } = await endpoint({ keepAliveMs: 0 });
    const peer = new HttpPeer(url, LEGACY);
    await peer.open();
    const before = clock.pending;
    for (let i = 0; i < 3; i++) {
      const reply = await peer.send(peer.request("tools/list"));
      expect(reply.status).toBe(200);
    }
    expect(clock.pending).toBe(before);
    clock.advance(60_000);
    expect((await peer.send(peer.request("tools/list"))).status).toBe(200);
  });
});

describe("legacySseTimeoutMs does not apply to 2026-07-28", () => {
  it("leaves a slow 2026-07-28 request running past it", async () => {
    const { clock, url, reasons, release, state } = await endpoint({
      keepAliveMs: 0,
      legacySseTimeoutMs: 1_000,
    });
    const peer = new HttpPeer(url, MODERN);
    const request = callWait(peer);
    const opened = peer.stream(request);
    await until(() => state.started === 1);
    clock.advance(60_000);
    expect(reasons).toEqual([]);
    release();
    const reply = await readReply((await opened.response).res);
    expect(reply.status).toBe(200);
    expect(reply.messages.at(-1)).toMatchObject({ id: request.id, result: { content: [{ text: "late" }] } });
  });
});
