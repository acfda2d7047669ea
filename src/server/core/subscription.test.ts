import { describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../../jsonrpc/message.js";
import { SubscriptionPublisher } from "./publisher.js";
import { Subscription, type SubscriptionChannel, type SubscriptionEnd } from "./subscription.js";

const SUB_ID = "io.modelcontextprotocol/subscriptionId";
const changed = (family: string) => ({
  jsonrpc: "2.0" as const,
  method: `notifications/${family}/list_changed`,
});

/** A channel whose writes wait until the test releases them. */
function gatedChannel() {
  const written: JsonRpcMessage[] = [];
  const ends: SubscriptionEnd[] = [];
  let release: (() => void) | undefined;
  let gate = Promise.resolve();
  const channel: SubscriptionChannel = {
    write: async (message) => {
      await gate;
      written.push(message);
    },
    end: (reason) => ends.push(reason),
  };
  return {
    channel,
    written,
    ends,
    hold() {
      gate = new Promise((resolve) => (release = resolve));
    },
    release: () => release?.(),
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("Subscription", () => {
  it("sends the acknowledgement first, then what it was offered, each stamped with its id", async () => {
    const { channel, written } = gatedChannel();
    const subscription = new Subscription(
      7,
      { toolsListChanged: true },
      channel,
      { events: 4, bytes: 10_000 },
      () => {},
    );
    subscription.offer(changed("tools"));
    await tick();
    expect(written).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: { toolsListChanged: true }, _meta: { [SUB_ID]: 7 } },
      },
      { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [SUB_ID]: 7 } } },
    ]);
  });

  it("overflows past its event limit: the queue is dropped and only this subscription ends", async () => {
    const gated = gatedChannel();
    gated.hold();
    const ended: Subscription[] = [];
    const subscription = new Subscription("s", {}, gated.channel, { events: 3, bytes: 1_000_000 }, (s) =>
      ended.push(s),
    );
    // The acknowledgement is in flight (not queued); three more fit, the fourth overflows.
    for (let i = 0; i < 3; i++) subscription.offer(changed("tools"));
    expect(subscription.isOpen).toBe(true);
    subscription.offer(changed("tools"));
    expect(await subscription.ended).toBe("overflow");
    expect(gated.ends).toEqual(["overflow"]);
    expect(ended).toEqual([subscription]);
    gated.release();
    await tick();
    expect(gated.written).toHaveLength(1);
  });

  it("overflows past its byte limit", async () => {
    const gated = gatedChannel();
    gated.hold();
    const subscription = new Subscription(1, {}, gated.channel, { events: 100, bytes: 600 }, () => {});
    const big = {
      jsonrpc: "2.0" as const,
      method: "notifications/resources/updated",
      params: { uri: "x".repeat(250) },
    };
    subscription.offer(big);
    expect(subscription.isOpen).toBe(true);
    subscription.offer(big);
    expect(await subscription.ended).toBe("overflow");
  });

  it("completes gracefully: queued messages, then its complete result, then the end", async () => {
    const gated = gatedChannel();
    gated.hold();
    const subscription = new Subscription(3, {}, gated.channel, { events: 10, bytes: 10_000 }, () => {});
    subscription.offer(changed("prompts"));
    subscription.complete();
    subscription.offer(changed("prompts"));
    gated.release();
    expect(await subscription.ended).toBe("complete");
    expect(gated.written.map((m) => ("method" in m ? m.method : "result"))).toEqual([
      "notifications/subscriptions/acknowledged",
      "notifications/prompts/list_changed",
      "result",
    ]);
    expect(gated.written.at(-1)).toEqual({
      jsonrpc: "2.0",
      id: 3,
      result: { resultType: "complete", _meta: { [SUB_ID]: 3 } },
    });
  });

  it("ends as cancelled when its channel fails, or when cancelled, sending nothing more", async () => {
    const ends: SubscriptionEnd[] = [];
    const failing = new Subscription(
      1,
      {},
      { write: () => Promise.reject(new Error("gone")), end: (r) => ends.push(r) },
      {
        events: 10,
        bytes: 10_000,
      },
      () => {},
    );
    expect(await failing.ended).toBe("cancelled");
    const gated = gatedChannel();
    const cancelled = new Subscription(2, {}, gated.channel, { events: 10, bytes: 10_000 }, () => {});
    cancelled.cancel();
    cancelled.offer(changed("tools"));
    cancelled.complete();
    expect(await cancelled.ended).toBe("cancelled");
    expect(gated.ends).toEqual(["cancelled"]);
  });
});

describe("SubscriptionPublisher", () => {
  it("publishes only to the subscriptions whose filter wants it, and refuses the one past its limit", async () => {
    const publisher = new SubscriptionPublisher(2, { events: 10, bytes: 10_000 });
    const tools = gatedChannel();
    const prompts = gatedChannel();
    publisher.subscribe(1, { toolsListChanged: true }, tools.channel);
    publisher.subscribe(2, { promptsListChanged: true }, prompts.channel);
    expect(() => publisher.subscribe(3, {}, gatedChannel().channel)).toThrow(
      expect.objectContaining({
        code: -32603,
        data: { option: "maxSubscriptions", limit: 2, size: 3, reason: "subscription_limit" },
      }),
    );
    publisher.publish(changed("tools"), (filter) => filter.toolsListChanged === true);
    await tick();
    expect(tools.written).toHaveLength(2);
    expect(prompts.written).toHaveLength(1);
    publisher.completeAll();
    await tick();
    expect(publisher.size).toBe(0);
    expect([tools.ends, prompts.ends]).toEqual([["complete"], ["complete"]]);
  });
});
