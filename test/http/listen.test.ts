/**
 * 2026-07-28 `subscriptions/listen` over real HTTP on 127.0.0.1: a long-lived SSE answer whose first event is
 * the acknowledgement, stamped notifications from the server's publishing methods, keepalive comments,
 * cancellation by closing the stream, a graceful `complete` end when the handler closes, the endpoint limit
 * (503), overflow, and the refusals. Every event is checked against the 2026 schema by the peer.
 */
import { describe, expect, it } from "vitest";
import { createHttpHandler, type HttpHandlerOptions } from "../../src/http/index.js";
import type { Server } from "../../src/server/server.js";
import { HttpPeer, useServe } from "../support/http-peer.js";
import { inputServer } from "../support/input-server.js";
import { ManualClock } from "../support/manual-clock.js";
import { until } from "../support/until.js";

const serve = useServe();
const MODERN = "2026-07-28";
const SUB = "io.modelcontextprotocol/subscriptionId";

async function start(options: HttpHandlerOptions = {}, server: Server = inputServer().server) {
  const handler = createHttpHandler(server, options);
  const { url } = await serve(handler);
  return { server, handler, peer: new HttpPeer(url, MODERN) };
}

function open(peer: HttpPeer, notifications: object, headers: { [name: string]: string } = {}) {
  const message = peer.request("subscriptions/listen", { notifications });
  const opened = peer.stream(message, { headers });
  return { id: message.id, request: opened.request, response: opened.response };
}

describe("subscriptions/listen over HTTP", () => {
  it("streams the acknowledgement first, then the stamped notifications it honours", async () => {
    const { server, peer } = await start();
    const { id, response } = open(peer, { toolsListChanged: true, resourceSubscriptions: ["test://secret"] });
    const { res, events } = await response;
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/event-stream");
    expect(res.headers["x-accel-buffering"]).toBe("no");
    expect((await events.next())?.message).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        notifications: { toolsListChanged: true, resourceSubscriptions: ["test://secret"] },
        _meta: { [SUB]: id },
      },
    });
    await server.notifyListChanged("prompts");
    await server.notifyListChanged("tools");
    await server.notifyResourceUpdated("test://secret");
    expect((await events.next())?.message).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { [SUB]: id } },
    });
    expect((await events.next())?.message).toMatchObject({
      method: "notifications/resources/updated",
      params: { uri: "test://secret", _meta: { [SUB]: id } },
    });
  });

  it("sends a keepalive comment every keepAliveMs", async () => {
    const clock = new ManualClock();
    const { peer } = await start({ clock, keepAliveMs: 15_000 });
    const { events } = await open(peer, { toolsListChanged: true }).response;
    await events.next();
    clock.advance(15_000);
    expect(await events.next()).toEqual({ comment: "keepalive" });
  });

  it("ends the subscription when the client closes the stream (nothing more is sent)", async () => {
    const { server, handler, peer } = await start();
    const { request, response } = open(peer, { toolsListChanged: true });
    const { res, events } = await response;
    await events.next();
    expect([handler.subscriptionCount, server.subscriptionCount]).toEqual([1, 1]);
    res.destroy();
    request.destroy();
    await until(() => server.subscriptionCount === 0 && handler.subscriptionCount === 0);
    await server.notifyListChanged("tools");
  });

  it("ends every listen stream gracefully when the handler closes: the complete result, then the end", async () => {
    const { handler, peer } = await start();
    const { id, response } = open(peer, { promptsListChanged: true });
    const { events } = await response;
    await events.next();
    await handler.close();
    expect((await events.next())?.message).toEqual({
      jsonrpc: "2.0",
      id,
      result: { resultType: "complete", _meta: { [SUB]: id } },
    });
    expect(await events.next()).toBeUndefined();
  });

  it("refuses a subscription past the server's limit with 503, and takes one once a slot frees", async () => {
    const { server, peer } = await start({}, inputServer({ maxSubscriptions: 1 }).server);
    const first = open(peer, { toolsListChanged: true });
    const { res, events } = await first.response;
    await events.next();
    const refused = await peer.send(
      peer.request("subscriptions/listen", { notifications: { toolsListChanged: true } }),
    );
    expect(refused.status).toBe(503);
    expect(refused.messages[0]).toMatchObject({
      error: {
        code: -32603,
        message: "Subscription capacity reached: 2 subscriptions, over maxSubscriptions (1)",
        data: { option: "maxSubscriptions", limit: 1, size: 2, reason: "subscription_limit" },
      },
    });
    res.destroy();
    first.request.destroy();
    await until(() => server.subscriptionCount === 0);
    const again = await open(peer, { toolsListChanged: true }).response;
    expect((await again.events.next())?.message).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
    });
  });

  it("closes only the stream whose queue overflows, without a result", async () => {
    const { server, peer } = await start({}, inputServer({ subscriptionQueueEvents: 4 }).server);
    const slow = await open(peer, { toolsListChanged: true }).response;
    const calm = await open(peer, { promptsListChanged: true }).response;
    await slow.events.next();
    await calm.events.next();
    for (let i = 0; i < 50; i++) void server.notifyListChanged("tools");
    const seen: unknown[] = [];
    for (let event = await slow.events.next(); event !== undefined; event = await slow.events.next()) {
      seen.push(event.message);
    }
    expect(seen.every((m) => (m as { method?: string }).method === "notifications/tools/list_changed")).toBe(
      true,
    );
    expect(server.subscriptionCount).toBe(1);
    await server.notifyListChanged("prompts");
    expect((await calm.events.next())?.message).toMatchObject({
      method: "notifications/prompts/list_changed",
    });
  });

  it("refuses a malformed filter (400 -32602) and a client that does not accept SSE (406)", async () => {
    const { peer } = await start({ enableJsonResponse: true });
    const bad = await peer.send(peer.request("subscriptions/listen", { notifications: [] }), {
      validate: false,
    });
    expect(bad.status).toBe(400);
    expect(bad.messages[0]).toMatchObject({ error: { code: -32602 } });
    const json = await peer.send(peer.request("subscriptions/listen", { notifications: {} }), {
      headers: { accept: "application/json" },
    });
    expect(json.status).toBe(406);
    expect(json.messages[0]).toMatchObject({ error: { code: -32600 } });
    // enableJsonResponse does not apply: a listen answer is a stream.
    const { res } = await open(peer, {}).response;
    expect(res.headers["content-type"]).toBe("text/event-stream");
    res.destroy();
  });
});
