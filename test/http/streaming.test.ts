/**
 * Answers over real HTTP on 127.0.0.1: JSON or SSE, request-scoped progress and log notifications before the
 * result, keepalive comments, and cancellation by closing the response stream (2026-07-28 has no
 * `notifications/cancelled` over HTTP: the handler's signal fires instead).
 */
import { describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../../src/jsonrpc/message.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { fixtureServer } from "../support/fixture-server.js";
import { HttpPeer, useServe } from "../support/http-peer.js";
import { ManualClock } from "../support/manual-clock.js";
import { until } from "../support/until.js";

const serve = useServe();
const MODERN = "2026-07-28";

/** A server whose `wait` tool reports progress once, then waits for its signal; what it saw is recorded. */
function waitingServer() {
  const aborted: unknown[] = [];
  const server = new ServerBuilder({ serverInfo: { name: "waiting", version: "1.0.0" } })
    .tool({ name: "wait", inputSchema: { type: "object" } }, async (_args, context) => {
      await context.progress(1);
      await new Promise<void>((resolve) => {
        context.signal.addEventListener("abort", () => {
          aborted.push(context.signal.reason);
          resolve();
        });
      });
      return { content: [{ type: "text", text: "stopped" }] };
    })
    .build();
  return { server, aborted };
}

const kinds = (messages: JsonRpcMessage[]) => messages.map((m) => ("method" in m ? m.method : "response"));

describe("response formats", () => {
  it("streams progress and log notifications before the result on SSE (logs only with a logLevel)", async () => {
    const { url } = await serve(fixtureServer());
    const peer = new HttpPeer(url, MODERN);
    const call = (meta: { [key: string]: unknown }) =>
      peer.send(peer.request("tools/call", { name: "chatty", arguments: {} }, meta));
    const withLogs = await call({ progressToken: "t", "io.modelcontextprotocol/logLevel": "debug" });
    expect(withLogs.contentType).toBe("text/event-stream");
    expect(kinds(withLogs.messages)).toEqual([
      "notifications/progress",
      "notifications/message",
      "notifications/message",
      "notifications/progress",
      "response",
    ]);
    expect(withLogs.messages[0]).toMatchObject({ params: { progressToken: "t", progress: 1, total: 2 } });
    const quiet = await call({ progressToken: "t" });
    expect(kinds(quiet.messages)).toEqual(["notifications/progress", "notifications/progress", "response"]);
  });

  it("answers with one JSON body under enableJsonResponse (notifications have nowhere to go)", async () => {
    const { url } = await serve(fixtureServer(), { handler: { enableJsonResponse: true } });
    const peer = new HttpPeer(url, MODERN);
    const request = peer.request("tools/call", { name: "chatty", arguments: {} }, { progressToken: "t" });
    const reply = await peer.send(request);
    expect(reply.status).toBe(200);
    expect(reply.contentType).toBe("application/json");
    expect(reply.headers["x-accel-buffering"]).toBeUndefined();
    expect(reply.messages).toEqual([expect.objectContaining({ id: request.id, result: expect.anything() })]);
  });

  it("answers with JSON when the result comes before any message and the client accepts JSON", async () => {
    const { url } = await serve(fixtureServer());
    const peer = new HttpPeer(url, MODERN);
    const plain = await peer.send(peer.request("tools/call", { name: "add", arguments: { a: 1, b: 2 } }));
    expect(plain.status).toBe(200);
    expect(plain.contentType).toBe("application/json");
    expect(plain.headers["x-accel-buffering"]).toBeUndefined();
    expect(plain.messages).toEqual([expect.objectContaining({ result: expect.anything() })]);
    // Without a progressToken or a logLevel the chatty tool sends nothing before its result.
    const quiet = await peer.send(peer.request("tools/call", { name: "chatty", arguments: {} }));
    expect(quiet.contentType).toBe("application/json");
    // Through `application/*` and `*/*` as well.
    for (const accept of ["application/*, text/event-stream", "*/*"]) {
      const reply = await peer.send(peer.request("tools/list"), { headers: { accept } });
      expect(reply.contentType).toBe("application/json");
    }
  });

  it("streams SSE when a message comes first, or when the client does not accept JSON", async () => {
    const { url } = await serve(fixtureServer());
    const peer = new HttpPeer(url, MODERN);
    const request = peer.request("tools/call", { name: "chatty", arguments: {} }, { progressToken: 7 });
    const progressed = await peer.send(request);
    expect(progressed.contentType).toBe("text/event-stream");
    expect(progressed.headers["x-accel-buffering"]).toBe("no");
    expect(kinds(progressed.messages)).toEqual([
      "notifications/progress",
      "notifications/progress",
      "response",
    ]);
    for (const accept of ["text/event-stream", "text/event-stream, text/plain;q=0.5"]) {
      const reply = await peer.send(peer.request("tools/call", { name: "add", arguments: { a: 1, b: 2 } }), {
        headers: { accept },
      });
      expect(reply.contentType).toBe("text/event-stream");
      expect(kinds(reply.messages)).toEqual(["response"]);
    }
  });

  it("answers with JSON when the client does not accept text/event-stream", async () => {
    const { url } = await serve(fixtureServer());
    const peer = new HttpPeer(url, MODERN);
    const reply = await peer.send(peer.request("tools/list"), { headers: { accept: "application/json" } });
    expect(reply.contentType).toBe("application/json");
    expect(reply.messages[0]).toHaveProperty("result");
  });
});

describe("keepalive", () => {
  it("sends a comment every keepAliveMs while the handler works, and clients ignore it", async () => {
    const clock = new ManualClock();
    const { server, aborted } = waitingServer();
    const { url } = await serve(server, { handler: { clock, keepAliveMs: 15_000 } });
    const peer = new HttpPeer(url, MODERN);
    const request = peer.request("tools/call", { name: "wait", arguments: {} }, { progressToken: 1 });
    const { request: req, response } = peer.stream(request);
    const { events } = await response;
    const first = await events.next();
    expect(first?.message).toMatchObject({ method: "notifications/progress" });
    clock.advance(14_999);
    clock.advance(1);
    expect(await events.next()).toEqual({ comment: "keepalive" });
    clock.advance(15_000);
    expect(await events.next()).toEqual({ comment: "keepalive" });
    req.destroy();
    await until(() => aborted.length === 1);
  });

  it("commits an SSE stream with a keepalive when the handler has sent nothing for keepAliveMs", async () => {
    const clock = new ManualClock();
    const { url } = await serve(fixtureServer(), { handler: { clock, keepAliveMs: 1_000 } });
    const peer = new HttpPeer(url, MODERN);
    const request = peer.request("tools/call", { name: "slow", arguments: {} });
    const { request: req, response } = peer.stream(request);
    await new Promise((resolve) => setTimeout(resolve, 20));
    clock.advance(1_000);
    const { res, events } = await response;
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/event-stream");
    expect(await events.next()).toEqual({ comment: "keepalive" });
    req.destroy();
  });
});

describe("cancellation by closing the stream", () => {
  it("aborts the handler when the client closes an open SSE stream", async () => {
    const { server, aborted } = waitingServer();
    const { url } = await serve(server);
    const peer = new HttpPeer(url, MODERN);
    const request = peer.request("tools/call", { name: "wait", arguments: {} }, { progressToken: 1 });
    const { request: req, response } = peer.stream(request);
    const { res, events } = await response;
    expect((await events.next())?.message).toMatchObject({ method: "notifications/progress" });
    expect(server.runningHandlers).toBe(1);
    res.destroy();
    req.destroy();
    await until(() => aborted.length === 1 && server.runningHandlers === 0);
    expect(aborted[0]).toMatchObject({ code: "ABORTED" });
  });

  it("aborts the handler when the client goes away before anything was sent (JSON mode too)", async () => {
    const { server, aborted } = waitingServer();
    const { url } = await serve(server, { handler: { enableJsonResponse: true } });
    const peer = new HttpPeer(url, MODERN);
    const request = peer.request("tools/call", { name: "wait", arguments: {} });
    const { request: req, response } = peer.stream(request);
    response.catch(() => {});
    await until(() => server.runningHandlers === 1);
    req.destroy();
    await until(() => aborted.length === 1 && server.runningHandlers === 0);
  });

  it("a request that finishes normally is not aborted, and its stream ends", async () => {
    const { url } = await serve(fixtureServer());
    const peer = new HttpPeer(url, MODERN);
    const request = peer.request("tools/call", { name: "chatty", arguments: {} }, { progressToken: 1 });
    const { response } = peer.stream(request);
    const { events } = await response;
    const methods: string[] = [];
    for (let event = await events.next(); event !== undefined; event = await events.next()) {
      const message = event.message as { method?: string };
      methods.push(message.method ?? "response");
    }
    expect(methods).toEqual(["notifications/progress", "notifications/progress", "response"]);
  });
});
