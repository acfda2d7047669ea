import { describe, expect, it } from "vitest";
import {
  connectFake,
  type FakeServer,
  fail,
  fakePair,
  ok,
  TEST_CLIENT_INFO,
} from "../../test/support/fake-server.js";
import { useWireValidation } from "../../test/support/validating-transport.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../jsonrpc/message.js";
import type { SubscriptionFilter } from "../protocol/types/subscriptions.js";
import type { Transport, TransportSendOptions } from "../transports/transport.js";
import { Client } from "./client.js";
import type { SubscriptionEvent } from "./subscription-types.js";
import type { ClientOptions, ServerNotification } from "./types.js";

useWireValidation();

const SID = "io.modelcontextprotocol/subscriptionId";
const sleep = (ms = 5) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface ListeningOptions {
  client?: Omit<ClientOptions, "transport" | "clientInfo">;
  setup?: (server: FakeServer) => void;
  /** Wraps the client's transport. */
  wrap?: (transport: Transport) => Transport;
}

/** A client and a fake server that holds every listen request, with helpers to feed one subscription. */
async function listening(filter: SubscriptionFilter, options: ListeningOptions = {}) {
  const warnings: string[] = [];
  const pair = await fakePair();
  const server = pair.server
    .modern()
    .primitives()
    .on("subscriptions/listen", () => undefined);
  options.setup?.(server);
  const client = new Client({
    transport: options.wrap ? options.wrap(pair.clientTransport) : pair.clientTransport,
    clientInfo: TEST_CLIENT_INFO,
    logger: { warn: (message) => warnings.push(message) },
    ...options.client,
  });
  await client.connect();
  const sub = await client.listenSubscriptions(filter);
  const request = await server.waitForRequest("subscriptions/listen");
  const emit = (method: string, params: { [key: string]: unknown } = {}) =>
    server.notify(method, { ...params, _meta: { [SID]: request.id } });
  const ack = (notifications: SubscriptionFilter = filter) =>
    emit("notifications/subscriptions/acknowledged", { notifications });
  return { server, client, sub, request, emit, ack, warnings };
}

const event = (method: string, params?: { [key: string]: unknown }): SubscriptionEvent => ({
  type: "notification",
  notification: { method, params: { ...params, _meta: { [SID]: expect.any(Number) } } },
});

describe("subscriptions/listen", () => {
  it("sends the filter, delivers the acknowledgment first, then the notifications it honours", async () => {
    const filter = {
      toolsListChanged: true,
      promptsListChanged: false,
      resourceSubscriptions: ["file:///a", "file:///a"],
    };
    const { sub, request, emit, ack, warnings } = await listening(filter);
    expect(request.params).toMatchObject({
      notifications: { toolsListChanged: true, resourceSubscriptions: ["file:///a", "file:///a"] },
    });
    expect(request.params?.notifications).not.toHaveProperty("promptsListChanged");
    expect(sub.id).toBe(request.id);

    await emit("notifications/tools/list_changed"); // before the acknowledgment: dropped
    await ack({ toolsListChanged: true, resourceSubscriptions: ["file:///a"] });
    await emit("notifications/tools/list_changed");
    await emit("notifications/resources/updated", { uri: "file:///a" });
    expect(await sub.next(100)).toEqual({
      type: "acknowledged",
      notifications: { toolsListChanged: true, resourceSubscriptions: ["file:///a"] },
    });
    expect(await sub.next(100)).toEqual(event("notifications/tools/list_changed"));
    expect(await sub.next(100)).toEqual(event("notifications/resources/updated", { uri: "file:///a" }));
    expect(sub.honored).toEqual({ toolsListChanged: true, resourceSubscriptions: ["file:///a"] });
    expect(warnings).toEqual(["dropped a notification sent before the subscription's acknowledgment"]);
  });

  it("exists before the transport can deliver the acknowledgment", async () => {
    const { client } = await connectFake({
      setup: (s) =>
        s.on("subscriptions/listen", (request, fake) => {
          void fake.notify("notifications/subscriptions/acknowledged", {
            notifications: { toolsListChanged: true },
            _meta: { [SID]: request.id },
          });
          return undefined;
        }),
    });
    const sub = await client.listenSubscriptions({ toolsListChanged: true });
    expect(await sub.next(100)).toEqual({ type: "acknowledged", notifications: { toolsListChanged: true } });
  });

  it("drops what was not requested or not honoured, and keeps it from onNotification", async () => {
    const seen: ServerNotification[] = [];
    const { sub, emit, ack, server, warnings } = await listening(
      { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["file:///a"] },
      // Every drop logged (no rate limit), so that each one can be counted.
      { client: { onNotification: (n) => seen.push(n), logIntervalMs: 0 } },
    );
    await ack({ toolsListChanged: true, resourceSubscriptions: ["file:///a"] });
    await emit("notifications/prompts/list_changed"); // requested, not honoured
    await emit("notifications/resources/list_changed"); // neither
    await emit("notifications/resources/updated", { uri: "file:///b" }); // another resource
    await emit("notifications/message", { level: "info", data: "x" }); // never on a subscription
    await emit("notifications/resources/updated", { uri: "file:///a/part" }); // a sub-resource
    await server.notify("notifications/tools/list_changed"); // not on the subscription: onNotification
    await sleep();
    expect((await sub.next(100)).type).toBe("acknowledged");
    expect(await sub.next(100)).toEqual(event("notifications/resources/updated", { uri: "file:///a/part" }));
    expect(await sub.next(20)).toEqual({ type: "timeout" });
    expect(
      warnings.filter((w) => w === "dropped a notification the subscription does not honour"),
    ).toHaveLength(4);
    expect(seen).toEqual([{ method: "notifications/tools/list_changed" }]);
  });

  it("next() waits at most timeoutMs, and an event arriving later is delivered", async () => {
    const { sub, ack } = await listening({ toolsListChanged: true });
    const before = Date.now();
    expect(await sub.next(30)).toEqual({ type: "timeout" });
    expect(Date.now() - before).toBeGreaterThanOrEqual(28);
    const waiting = sub.next(1_000);
    await ack();
    expect(await waiting).toMatchObject({ type: "acknowledged" });
    await expect(sub.next(0)).rejects.toMatchObject({ code: "INVALID_CONFIG" });
  });

  it("closes only the subscription whose queue overflows, sending notifications/cancelled", async () => {
    const { client, sub, emit, ack, server, request } = await listening({ toolsListChanged: true });
    const other = await client.listenSubscriptions({ toolsListChanged: true }, { queueSize: 2 });
    const otherRequest = server.requests("subscriptions/listen")[1];
    await ack();
    for (let i = 0; i < 255; i++) await emit("notifications/tools/list_changed");
    const emitOther = (method: string, params = {}) =>
      server.notify(method, { ...params, _meta: { [SID]: otherRequest?.id } });
    await emitOther("notifications/subscriptions/acknowledged", {
      notifications: { toolsListChanged: true },
    });
    await emitOther("notifications/tools/list_changed");
    await emitOther("notifications/tools/list_changed"); // the third event: over queueSize 2
    await sleep();
    expect(other.end).toEqual({ reason: "queue_overflow", queueSize: 2 });
    expect(sub.end).toBeUndefined();
    expect(server.notifications("notifications/cancelled").map((n) => n.params?.requestId)).toEqual([
      otherRequest?.id,
    ]);
    // What was queued is still delivered, then the loop ends with CAPACITY.
    const drained: SubscriptionEvent[] = [];
    const error = await (async () => {
      for await (const e of other) drained.push(e);
    })().catch((e: unknown) => e);
    expect(drained.map((e) => e.type)).toEqual(["acknowledged", "notification"]);
    expect(error).toMatchObject({ code: "CAPACITY", details: { option: "queueSize", limit: 2, size: 3 } });
    await expect(other.close()).resolves.toMatchObject({
      confirmed: true,
      end: { reason: "queue_overflow" },
    });

    // The default queue holds 256: the acknowledgment and 255 notifications fit, one more overflows.
    await emit("notifications/tools/list_changed");
    await sleep();
    expect(sub.end).toMatchObject({ reason: "queue_overflow", queueSize: 256 });
    expect(server.notifications("notifications/cancelled").map((n) => n.params?.requestId)).toEqual([
      otherRequest?.id,
      request.id,
    ]);
  });

  it("refuses the 65th subscription with CAPACITY, sending nothing; closing one frees a slot", async () => {
    const { client, server } = await connectFake({
      setup: (s) => s.on("subscriptions/listen", () => undefined),
    });
    const subs = await Promise.all(
      Array.from({ length: 64 }, () => client.listenSubscriptions({ toolsListChanged: true })),
    );
    await expect(client.listenSubscriptions({ toolsListChanged: true })).rejects.toMatchObject({
      code: "CAPACITY",
      details: { option: "maxSubscriptions", limit: 64, size: 65 },
    });
    await sleep();
    expect(server.requests("subscriptions/listen")).toHaveLength(64);
    await subs[0]?.close();
    await expect(client.listenSubscriptions({ toolsListChanged: true })).resolves.toHaveProperty("id");
  });

  it("honours a smaller maxSubscriptions", async () => {
    const { client } = await connectFake({
      client: { maxSubscriptions: 1 },
      setup: (s) => s.on("subscriptions/listen", () => undefined),
    });
    await client.listenSubscriptions({});
    await expect(client.listenSubscriptions({})).rejects.toMatchObject({ code: "CAPACITY" });
  });
});

describe("ending a subscription", () => {
  it("close() cancels on the wire once, is idempotent, and ends a loop normally", async () => {
    const seen: ServerNotification[] = [];
    const { sub, server, request, emit, ack } = await listening(
      { toolsListChanged: true },
      // Every drop logged (no rate limit), so that each one can be counted.
      { client: { onNotification: (n) => seen.push(n), logIntervalMs: 0 } },
    );
    await ack();
    const loop = (async () => {
      const events: SubscriptionEvent[] = [];
      for await (const e of sub) events.push(e);
      return events;
    })();
    await sleep();
    const first = sub.close();
    const second = sub.close(1);
    expect(second).toBe(first);
    expect(await first).toEqual({ confirmed: true, end: { reason: "closed" } });
    expect(await loop).toEqual([{ type: "acknowledged", notifications: { toolsListChanged: true } }]);
    await sleep();
    const cancelled = server.notifications("notifications/cancelled");
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]?.params).toMatchObject({
      requestId: request.id,
      reason: "subscription closed",
      _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
    });
    await emit("notifications/tools/list_changed"); // late: dropped, not handed to onNotification
    await sleep();
    expect(seen).toEqual([]);
    expect(await sub.next(10)).toEqual({ type: "end", end: { reason: "closed" } });
    await expect(sub.ended).resolves.toEqual({ reason: "closed" });
  });

  it("leaving a for-await loop early closes the subscription", async () => {
    const { sub, ack, server } = await listening({ toolsListChanged: true });
    await ack();
    for await (const e of sub) {
      expect(e.type).toBe("acknowledged");
      break;
    }
    expect(sub.end).toEqual({ reason: "closed" });
    expect(server.notifications("notifications/cancelled")).toHaveLength(1);
  });

  it("the signal option closes it", async () => {
    const { client, server } = await connectFake({
      setup: (s) => s.on("subscriptions/listen", () => undefined),
    });
    const controller = new AbortController();
    const sub = await client.listenSubscriptions({ toolsListChanged: true }, { signal: controller.signal });
    controller.abort();
    await expect(sub.ended).resolves.toEqual({ reason: "closed" });
    await sleep();
    expect(server.notifications("notifications/cancelled")).toHaveLength(1);
  });

  it("reports a close whose cancellation is not handed over in time as unconfirmed", async () => {
    const { sub } = await listening({ toolsListChanged: true }, { wrap: hangOnCancel });
    expect(await sub.close(30)).toEqual({ confirmed: false, reason: "timeout", end: { reason: "closed" } });
  });

  it("reports a close whose cancellation fails to send as unconfirmed", async () => {
    const { sub } = await listening({ toolsListChanged: true }, { wrap: failOnCancel });
    expect(await sub.close()).toMatchObject({
      confirmed: false,
      reason: "send_failed",
      end: { reason: "closed" },
    });
  });

  it("ends with completed when the server answers the listen request", async () => {
    const { sub, server, request, ack } = await listening({ toolsListChanged: true });
    await ack();
    await server.respond(request.id, ok({ _meta: { [SID]: request.id } }));
    const events: SubscriptionEvent[] = [];
    for await (const e of sub) events.push(e);
    expect(events).toHaveLength(1);
    expect(sub.end).toMatchObject({
      reason: "completed",
      result: { resultType: "complete", _meta: { [SID]: request.id } },
    });
    expect(await sub.close()).toMatchObject({ confirmed: true, end: { reason: "completed" } });
    expect(server.notifications("notifications/cancelled")).toEqual([]);
  });

  it("ends with server_cancelled when the server sends notifications/cancelled for it (stdio)", async () => {
    const { sub, server, request, ack } = await listening({ toolsListChanged: true });
    await ack();
    await server.notify("notifications/cancelled", { requestId: request.id, reason: "shutting down" });
    await expect(sub.ended).resolves.toEqual({ reason: "server_cancelled" });
    expect(server.notifications("notifications/cancelled")).toEqual([]);
  });

  it("ends with the server's error when the listen request fails", async () => {
    const { client } = await connectFake({
      setup: (s) => s.on("subscriptions/listen", () => fail(-32601, "Method not found")),
    });
    const sub = await client.listenSubscriptions({ toolsListChanged: true });
    const end = await sub.ended;
    expect(end).toMatchObject({ reason: "error", error: { code: -32601 } });
    const error = await (async () => {
      for await (const _ of sub) throw new Error("no event expected");
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
  });

  it("ends every subscription with transport_closed when the transport is lost", async () => {
    const { client, sub, server, ack } = await listening({ toolsListChanged: true });
    const other = await client.listenSubscriptions({ promptsListChanged: true });
    await ack();
    await server.close();
    await expect(sub.ended).resolves.toMatchObject({ reason: "transport_closed" });
    await expect(other.ended).resolves.toMatchObject({ reason: "transport_closed" });
    const events: SubscriptionEvent[] = [];
    const error = await (async () => {
      for await (const e of sub) events.push(e);
    })().catch((e: unknown) => e);
    expect(events.map((e) => e.type)).toEqual(["acknowledged"]);
    expect(error).toBeInstanceOf(McpkitError);
    // The message names the cause once, not as "the transport closed: the transport closed: ...".
    expect(error).toMatchObject({
      code: "CLOSED",
      message: "the transport closed: the server ended the connection",
    });
    expect(await sub.close()).toMatchObject({ confirmed: false, reason: "transport_closed" });
  });

  it("ends every subscription with client_closed when the client closes", async () => {
    const { client, sub, server } = await listening({ toolsListChanged: true });
    await client.close();
    await expect(sub.ended).resolves.toEqual({ reason: "client_closed" });
    expect(await sub.next(10)).toEqual({ type: "end", end: { reason: "client_closed" } });
    await sleep();
    expect(server.notifications("notifications/cancelled")).toEqual([]);
  });

  it("on a cancelsByStream transport, ends the listen exchange and sends no notifications/cancelled", async () => {
    const signals: AbortSignal[] = [];
    const { sub, server } = await listening(
      { toolsListChanged: true },
      {
        wrap: (inner: Transport) => byStream(inner, signals),
      },
    );
    expect(await sub.close()).toEqual({ confirmed: true, end: { reason: "closed" } });
    const listenSignal = signals.at(-1);
    expect(listenSignal?.aborted).toBe(true);
    await sleep();
    expect(server.notifications("notifications/cancelled")).toEqual([]);
  });
});

describe("subscriptions and eras", () => {
  it("refuses a bad filter with INVALID_CONFIG", async () => {
    const { client } = await connectFake();
    await expect(client.listenSubscriptions({ toolsChanged: true } as never)).rejects.toMatchObject({
      code: "INVALID_CONFIG",
    });
    await expect(client.listenSubscriptions({ resourceSubscriptions: [1] } as never)).rejects.toMatchObject({
      code: "INVALID_CONFIG",
    });
  });

  it("2026-07-28 refuses resources/subscribe and resources/unsubscribe without sending", async () => {
    const { client, server } = await connectFake();
    const before = server.received.length;
    await expect(client.subscribeResource("file:///a")).rejects.toMatchObject({ code: "UNSUPPORTED" });
    await expect(client.unsubscribeResource("file:///a")).rejects.toMatchObject({ code: "UNSUPPORTED" });
    expect(server.received).toHaveLength(before);
  });

  it("2025-11-25: subscribeResource/unsubscribeResource, updates reach onNotification, no listen", async () => {
    const seen: ServerNotification[] = [];
    const { client, server } = await connectFake({
      era: "legacy",
      client: { onNotification: (n) => seen.push(n) },
      setup: (s) => {
        s.on("resources/subscribe", () => ok());
        s.on("resources/unsubscribe", () => ok());
      },
    });
    await expect(client.subscribeResource("file:///a")).resolves.toEqual({});
    await server.notify("notifications/resources/updated", { uri: "file:///a" });
    await expect(client.unsubscribeResource("file:///a")).resolves.toEqual({});
    expect(server.requests("resources/subscribe")[0]?.params).toEqual({ uri: "file:///a" });
    expect(server.requests("resources/unsubscribe")[0]?.params).toEqual({ uri: "file:///a" });
    await sleep();
    expect(seen).toEqual([{ method: "notifications/resources/updated", params: { uri: "file:///a" } }]);
    await expect(client.listenSubscriptions({ toolsListChanged: true })).rejects.toMatchObject({
      code: "UNSUPPORTED",
    });
    await expect(client.request("subscriptions/listen", {})).rejects.toMatchObject({ code: "UNSUPPORTED" });
  });
});

/** A client transport whose `notifications/cancelled` never finishes sending. */
function hangOnCancel(inner: Transport): Transport {
  return intercept(inner, () => new Promise(() => {}));
}

/** A client transport that fails to send `notifications/cancelled`. */
function failOnCancel(inner: Transport): Transport {
  return intercept(inner, () => Promise.reject(new McpkitError("TRANSPORT", "broken pipe")));
}

function intercept(inner: Transport, onCancel: () => Promise<void>): Transport {
  return {
    start: (handlers) => inner.start(handlers),
    send: (message: JsonRpcMessage, options?: TransportSendOptions) =>
      "method" in message && message.method === "notifications/cancelled"
        ? onCancel()
        : inner.send(message, options),
    close: () => inner.close(),
  };
}

/** A client transport that cancels by stream, recording each request's send signal. */
function byStream(inner: Transport, signals: AbortSignal[]): Transport {
  return {
    cancelsByStream: true,
    start: (handlers) => inner.start(handlers),
    send: (message: JsonRpcMessage, options?: TransportSendOptions) => {
      if (options?.signal) signals.push(options.signal);
      return inner.send(message, options);
    },
    close: () => inner.close(),
  };
}
