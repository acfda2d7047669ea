/**
 * Subscriptions on an in-process connection: 2026-07-28 `subscriptions/listen` (acknowledgement first, the
 * honoured filter, stamped notifications, cancellation, overflow, the subscription limit, graceful and abrupt
 * ends) and the 2025-11-25 equivalents (`resources/subscribe`, list-changed and resource-updated notifications).
 * Every message is checked against the schema of its era.
 */
import { afterEach, describe, expect, it } from "vitest";
import { inputServer } from "../../../test/support/input-server.js";
import { connectRaw, errorOf, modernMeta, type RawPeer, resultOf } from "../../../test/support/raw-peer.js";
import { until } from "../../../test/support/until.js";
import { useWireValidation } from "../../../test/support/validating-transport.js";
import type { Server } from "../server.js";

useWireValidation();

const SUB = "io.modelcontextprotocol/subscriptionId";

let server: Server;
afterEach(async () => {
  await server?.close();
});

function listen(peer: RawPeer, id: string | number, notifications: object) {
  return peer.request("subscriptions/listen", { notifications, _meta: modernMeta() }, id);
}

const received = (peer: RawPeer, id: string | number) =>
  peer.notifications.filter((n) => (n.params?._meta as { [key: string]: unknown } | undefined)?.[SUB] === id);

describe("2026-07-28 subscriptions/listen on a connection", () => {
  it("acknowledges the honoured subset first, then sends only what it honours, stamped", async () => {
    server = inputServer({ listChanged: { tools: true } }).server;
    const { peer } = await connectRaw(server);
    void listen(peer, "s1", {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: false,
      resourceSubscriptions: ["test://secret", "test://secret"],
    });
    await until(() => received(peer, "s1").length === 1);
    expect(peer.notifications[0]).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: {
        notifications: { toolsListChanged: true, resourceSubscriptions: ["test://secret", "test://secret"] },
        _meta: { [SUB]: "s1" },
      },
    });
    await server.notifyListChanged("prompts");
    await server.notifyResourceUpdated("test://plain");
    await server.notifyListChanged("tools");
    await server.notifyResourceUpdated("test://secret");
    await until(() => received(peer, "s1").length === 3);
    expect(received(peer, "s1").slice(1)).toEqual([
      { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [SUB]: "s1" } } },
      {
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri: "test://secret", _meta: { [SUB]: "s1" } },
      },
    ]);
    expect(server.subscriptionCount).toBe(1);
  });

  it("keeps subscriptions apart, ends one on notifications/cancelled without answering it", async () => {
    server = inputServer().server;
    const { peer } = await connectRaw(server);
    const tools = listen(peer, 1, { toolsListChanged: true });
    void listen(peer, 2, { promptsListChanged: true });
    await until(() => server.subscriptionCount === 2 && peer.notifications.length === 2);
    await server.notifyListChanged("tools");
    await until(() => received(peer, 1).length === 2);
    expect(received(peer, 2)).toHaveLength(1);
    await peer.notify("notifications/cancelled", { requestId: 1 });
    await until(() => server.subscriptionCount === 1);
    await server.notifyListChanged("tools");
    await server.notifyListChanged("prompts");
    await until(() => received(peer, 2).length === 2);
    expect(received(peer, 1)).toHaveLength(2);
    const outcome = await Promise.race([
      tools.then(() => "answered"),
      new Promise((r) => setTimeout(r, 20, "none")),
    ]);
    expect(outcome).toBe("none");
  });

  it("ends only the subscription whose queue overflows, with notifications/cancelled naming it", async () => {
    server = inputServer().server;
    const { peer } = await connectRaw(server);
    void listen(peer, "slow", { toolsListChanged: true });
    void listen(peer, "calm", { promptsListChanged: true });
    await until(() => server.subscriptionCount === 2);
    // Publishing never waits: 300 changes at once fill the 256-event queue of the tools subscription.
    for (let i = 0; i < 300; i++) void server.notifyListChanged("tools");
    await until(() => server.subscriptionCount === 1);
    await until(() => peer.notifications.some((n) => n.method === "notifications/cancelled"));
    expect(peer.notifications.find((n) => n.method === "notifications/cancelled")?.params).toEqual({
      requestId: "slow",
      reason: "subscription queue overflow",
    });
    await server.notifyListChanged("prompts");
    await until(() => received(peer, "calm").length === 2);
  });

  it("refuses the 1,025th subscription with a clear error, and takes a new one once a slot frees", async () => {
    server = inputServer().server;
    const { peer } = await connectRaw(server);
    for (let i = 0; i < 1024; i++) void listen(peer, i, { toolsListChanged: true });
    await until(() => server.subscriptionCount === 1024);
    expect(errorOf(await listen(peer, "one-too-many", { toolsListChanged: true }))).toEqual({
      code: -32603,
      message: "Subscription capacity reached: 1025 subscriptions, over maxSubscriptions (1024)",
      data: { option: "maxSubscriptions", limit: 1024, size: 1025, reason: "subscription_limit" },
    });
    await peer.notify("notifications/cancelled", { requestId: 0 });
    await until(() => server.subscriptionCount === 1023);
    void listen(peer, "again", { toolsListChanged: true });
    await until(() => server.subscriptionCount === 1024);
  });

  it("ends every subscription with its complete result when the server closes", async () => {
    server = inputServer().server;
    const { peer } = await connectRaw(server);
    const ended = listen(peer, 9, { toolsListChanged: true });
    await until(() => server.subscriptionCount === 1);
    await server.close();
    expect(resultOf(await ended)).toEqual({ resultType: "complete", _meta: { [SUB]: 9 } });
    expect(server.subscriptionCount).toBe(0);
  });

  it("drops a subscription without a result when the transport goes away", async () => {
    server = inputServer().server;
    const { peer, connection } = await connectRaw(server);
    void listen(peer, 1, { toolsListChanged: true });
    await until(() => server.subscriptionCount === 1);
    await peer.close();
    await connection.closed;
    expect(server.subscriptionCount).toBe(0);
    expect(peer.responses.size).toBe(0);
  });

  it("refuses a malformed filter (-32602) and a second listen under an open id (-32600)", async () => {
    server = inputServer().server;
    const { peer } = await connectRaw(server, { lenient: true });
    expect(errorOf(await listen(peer, 1, { toolsListChanged: "yes" })).code).toBe(-32602);
    expect(errorOf(await peer.request("subscriptions/listen", { _meta: modernMeta() }, 2)).code).toBe(-32602);
    void listen(peer, 3, {});
    await until(() => server.subscriptionCount === 1);
    expect(errorOf(await listen(peer, 3, {})).code).toBe(-32600);
  });
});

describe("2025-11-25 subscriptions on a connection", () => {
  it("serves resources/subscribe and resources/unsubscribe, and sends updates only for subscribed URIs", async () => {
    server = inputServer().server;
    const { peer } = await connectRaw(server);
    await peer.initialize();
    expect(resultOf(await peer.request("resources/subscribe", { uri: "test://secret" }))).toEqual({});
    await server.notifyResourceUpdated("test://plain");
    await server.notifyResourceUpdated("test://secret");
    await server.notifyListChanged("tools");
    await until(() => peer.notifications.length === 2);
    expect(peer.notifications).toEqual([
      { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "test://secret" } },
      { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
    ]);
    expect(resultOf(await peer.request("resources/unsubscribe", { uri: "test://secret" }))).toEqual({});
    expect(resultOf(await peer.request("resources/unsubscribe", { uri: "test://never" }))).toEqual({});
    await server.notifyResourceUpdated("test://secret");
    await new Promise((r) => setTimeout(r, 10));
    expect(peer.notifications).toHaveLength(2);
    expect(errorOf(await peer.request("subscriptions/listen", { notifications: {} })).code).toBe(-32601);
  });

  it("bounds the URIs per session, and refuses subscribe when the capability is not advertised", async () => {
    server = inputServer({ maxSessionSubscriptions: 2 }).server;
    const { peer } = await connectRaw(server);
    await peer.initialize();
    for (const uri of ["a://1", "a://2", "a://2"]) await peer.request("resources/subscribe", { uri });
    expect(errorOf(await peer.request("resources/subscribe", { uri: "a://3" }))).toEqual({
      code: -32603,
      message:
        "Too many resource subscriptions on this session: 3 subscriptions, over maxSessionSubscriptions (2)",
      data: { option: "maxSessionSubscriptions", limit: 2, size: 3, reason: "subscription_limit" },
    });
    const plain = inputServer({ subscribe: false });
    const { peer: other } = await connectRaw(plain.server);
    await other.initialize();
    expect(errorOf(await other.request("resources/subscribe", { uri: "a://1" })).code).toBe(-32601);
    await plain.server.notifyResourceUpdated("a://1");
    await plain.server.close();
  });
});
