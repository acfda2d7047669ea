/**
 * A 2026-07-28 subscription whose listen stream is lost listens again by itself: against mcpkit's own server
 * (src/http/server behind src/node serve(), real HTTP on 127.0.0.1) that goes away and comes back on the same
 * port, with the backoff observed on a manual clock, an `interrupted` event and a warning for each gap, and the
 * same filter on every new listen. `relisten: false` ends the subscription instead; a closed subscription or
 * client never listens again; `relisten.maxAttempts` losses in a row end it.
 */
import { describe, expect, it } from "vitest";
import type { Subscription, SubscriptionNext } from "../../src/client/subscription-types.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { serve } from "../../src/node/serve.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { ManualClock } from "../support/manual-clock.js";
import { until } from "../support/until.js";
import { useWireValidation } from "../support/validating-transport.js";
import { httpClient, MODERN, useHttpCleanups } from "./helpers.js";

useWireValidation();
const cleanup = useHttpCleanups();

function buildServer() {
  return new ServerBuilder({
    serverInfo: { name: "relisten", version: "1.0.0" },
    listChanged: { tools: true },
  })
    .tool({ name: "noop", inputSchema: { type: "object" } }, () => ({ content: [] }))
    .build();
}

/** mcpkit's server on 127.0.0.1 (`port`: 0 for any); `stop()` drops every connection, as a restart would. */
async function start(port = 0) {
  const server = buildServer();
  const handler = createHttpHandler(server);
  const running = await serve(handler, { host: "127.0.0.1", port });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await running.close();
    await handler.close();
  };
  cleanup(stop);
  return { server, url: running.url, port: Number(new URL(running.url).port), stop };
}

/** A server on 127.0.0.1 and a 2026-07-28 client of it whose waits run on a manual clock. */
async function onManualClock() {
  const first = await start();
  const clock = new ManualClock();
  return { first, clock, ...httpClient(first.url, { era: MODERN, pin: MODERN, cleanup, client: { clock } }) };
}

/** The next event, which must come (within 5 s). */
async function next(sub: Subscription): Promise<SubscriptionNext> {
  const event = await sub.next(5_000);
  if (event.type === "timeout") throw new Error("no event came");
  return event;
}

describe("a subscription whose listen stream is lost", () => {
  it("listens again with backoff on the clock, says so, and delivers from the server that came back", async () => {
    const { first, clock, client, logger, messages } = await onManualClock();
    const listens = () =>
      messages.filter(
        (m) => m.from === "client" && "method" in m.message && m.message.method === "subscriptions/listen",
      );
    await client.connect();
    const filter = { toolsListChanged: true };
    const sub = await client.listenSubscriptions(filter, {
      relisten: { initialDelayMs: 1_000, maxDelayMs: 8_000, maxAttempts: 5 },
    });
    expect(await next(sub)).toMatchObject({ type: "acknowledged" });
    const firstId = sub.id;

    await first.stop();
    const lost = await next(sub);
    expect(lost).toMatchObject({ type: "interrupted", attempt: 1, error: { code: "TRANSPORT" } });
    const delay1 = (lost as { delayMs: number }).delayMs;
    expect(delay1).toBeGreaterThanOrEqual(500);
    expect(delay1).toBeLessThanOrEqual(1_000);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        level: "warn",
        message: "a subscription's listen stream was lost; listening again",
        details: expect.objectContaining({ attempt: 1, delayMs: delay1, code: "TRANSPORT" }),
      }),
    );

    // Nothing is sent before the wait is over.
    clock.advance(delay1 - 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(listens()).toHaveLength(1);
    // The server is still down: the second listen fails to connect, and the wait doubles.
    clock.advance(1);
    const refused = await next(sub);
    expect(listens()).toHaveLength(2);
    expect(refused).toMatchObject({ type: "interrupted", attempt: 2, error: { code: "TRANSPORT" } });
    const delay2 = (refused as { delayMs: number }).delayMs;
    expect(delay2).toBeGreaterThanOrEqual(1_000);
    expect(delay2).toBeLessThanOrEqual(2_000);

    // The server comes back on the same port; the third listen, same filter, is acknowledged and delivers.
    const second = await start(first.port);
    clock.advance(delay2);
    expect(await next(sub)).toMatchObject({ type: "acknowledged", notifications: filter });
    expect(listens()).toHaveLength(3);
    for (const record of listens()) {
      expect(record.message).toMatchObject({ params: { notifications: filter } });
    }
    expect(sub.id).not.toBe(firstId);
    await until(() => second.server.subscriptionCount === 1);
    await second.server.notifyListChanged("tools");
    expect(await next(sub)).toMatchObject({
      type: "notification",
      notification: { method: "notifications/tools/list_changed" },
    });
    expect(sub.end).toBeUndefined();
    expect((await sub.close()).end.reason).toBe("closed");
    await until(() => second.server.subscriptionCount === 0);
  });

  it("with relisten: false, ends with transport_closed and never listens again", async () => {
    const { first, clock, client, messages } = await onManualClock();
    await client.connect();
    const sub = await client.listenSubscriptions({ toolsListChanged: true }, { relisten: false });
    expect(await next(sub)).toMatchObject({ type: "acknowledged" });
    await first.stop();
    expect(await next(sub)).toMatchObject({ type: "end", end: { reason: "transport_closed" } });
    expect(clock.pending).toBe(0);
    const listens = messages.filter(
      (m) => m.from === "client" && "method" in m.message && m.message.method === "subscriptions/listen",
    );
    expect(listens).toHaveLength(1);
  });

  it("gives up after relisten.maxAttempts losses in a row", async () => {
    const { first, clock, client } = await onManualClock();
    await client.connect();
    const sub = await client.listenSubscriptions(
      { toolsListChanged: true },
      { relisten: { maxAttempts: 2, initialDelayMs: 100 } },
    );
    expect(await next(sub)).toMatchObject({ type: "acknowledged" });
    await first.stop();
    for (const attempt of [1, 2]) {
      const lost = await next(sub);
      expect(lost).toMatchObject({ type: "interrupted", attempt });
      clock.advance((lost as { delayMs: number }).delayMs);
    }
    expect(await next(sub)).toMatchObject({
      type: "end",
      end: { reason: "transport_closed", error: { code: "TRANSPORT" } },
    });
    expect(clock.pending).toBe(0);
  });

  it.each(["the subscription", "the client"] as const)(
    "closed while it waits (%s): never listens again",
    async (what) => {
      const { first, clock, client, messages } = await onManualClock();
      await client.connect();
      const sub = await client.listenSubscriptions({ toolsListChanged: true });
      expect(await next(sub)).toMatchObject({ type: "acknowledged" });
      await first.stop();
      expect(await next(sub)).toMatchObject({ type: "interrupted", attempt: 1 });
      if (what === "the subscription") {
        expect(await sub.close()).toMatchObject({ confirmed: true, end: { reason: "closed" } });
      } else {
        await client.close();
        expect(sub.end).toEqual({ reason: "client_closed" });
      }
      expect(clock.pending).toBe(0);
      clock.advance(60_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const listens = messages.filter(
        (m) => m.from === "client" && "method" in m.message && m.message.method === "subscriptions/listen",
      );
      expect(listens).toHaveLength(1);
    },
  );
});
