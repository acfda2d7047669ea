/**
 * The `subscriptionFilter` hook of a 2026-07-28 `subscriptions/listen` on an in-process connection: the handler
 * chooses the honoured subset, the runtime checks it lies within the request and the capabilities (else
 * `-32603`), the acknowledgement names it and only it is delivered. Every message is checked against the schema.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { connectRaw, errorOf, modernMeta, type RawPeer } from "../../../test/support/raw-peer.js";
import { until } from "../../../test/support/until.js";
import { useWireValidation } from "../../../test/support/validating-transport.js";
import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import type { SubscriptionFilter } from "../../protocol/types/subscriptions.js";
import { withinFilter } from "../eras/open-subscription.js";
import { createServer, type Server } from "../server.js";
import type { ServerHandler } from "./handler.js";

useWireValidation();

const SUB = "io.modelcontextprotocol/subscriptionId";
let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const logger = { warn: vi.fn(), error: vi.fn() };

function start(
  subscriptionFilter: ServerHandler["subscriptionFilter"],
  options: { maxSubscriptions?: number } = {},
) {
  server = createServer({
    serverInfo: { name: "filter", version: "1.0.0" },
    handler: {
      listTools: () => ({ tools: [] }),
      callTool: () => ({ content: [] }),
      listResources: () => ({ resources: [] }),
      readResource: () => ({ contents: [] }),
      ...(subscriptionFilter === undefined ? {} : { subscriptionFilter }),
    },
    listChanged: { tools: true, resources: true },
    subscribe: true,
    logger,
    // Every refusal is counted below: no rate limit folding lines of one kind together.
    logIntervalMs: 0,
    ...options,
  });
  return server;
}

const listen = (peer: RawPeer, id: string, notifications: object) =>
  peer.request("subscriptions/listen", { notifications, _meta: modernMeta() }, id);
const received = (peer: RawPeer, id: string) =>
  peer.notifications.filter((n) => (n.params?._meta as { [key: string]: unknown } | undefined)?.[SUB] === id);
const asked = {
  toolsListChanged: true,
  promptsListChanged: true,
  resourcesListChanged: true,
  resourceSubscriptions: ["test://a", "test://b"],
};

describe("the subscriptionFilter hook", () => {
  it("chooses the honoured subset: the acknowledgement names it, and only it is delivered", async () => {
    const hook = vi.fn(
      async ({ honourable }: { notifications: SubscriptionFilter; honourable: SubscriptionFilter }) => ({
        toolsListChanged: honourable.toolsListChanged ?? false,
        resourceSubscriptions: ["test://b"],
      }),
    );
    const s = start(hook);
    const { peer } = await connectRaw(s, { identity: { principal: "ada" } });
    void listen(peer, "s", asked);
    await until(() => received(peer, "s").length === 1);
    expect(received(peer, "s")[0]?.params?.notifications).toEqual({
      toolsListChanged: true,
      resourceSubscriptions: ["test://b"],
    });
    const [request, context] = hook.mock.calls[0] as unknown as [object, { [key: string]: unknown }];
    // The client's filter as sent, and its part the capabilities allow (prompts are not served).
    expect(request).toEqual({
      notifications: asked,
      honourable: {
        toolsListChanged: true,
        resourcesListChanged: true,
        resourceSubscriptions: ["test://a", "test://b"],
      },
    });
    expect(context).toMatchObject({
      method: "subscriptions/listen",
      era: "2026-07-28",
      identity: { principal: "ada" },
    });
    await s.notifyListChanged("resources");
    await s.notifyResourceUpdated("test://a");
    await s.notifyResourceUpdated("test://b");
    await s.notifyListChanged("tools");
    await until(() => received(peer, "s").length === 3);
    expect(received(peer, "s").map((n) => [n.method, n.params?.uri])).toEqual([
      ["notifications/subscriptions/acknowledged", undefined],
      ["notifications/resources/updated", "test://b"],
      ["notifications/tools/list_changed", undefined],
    ]);
  });

  it("refuses with -32603 a filter outside the request and capabilities; no subscription opens", async () => {
    const answers: unknown[] = [
      { promptsListChanged: true }, // not advertised
      { resourceSubscriptions: ["test://c"] }, // not requested
      { toolsListChanged: "yes" },
      { everything: true },
      null,
    ];
    const s = start(() => answers.shift() as SubscriptionFilter);
    const { peer } = await connectRaw(s);
    for (const id of ["1", "2", "3", "4", "5"]) {
      expect(errorOf(await listen(peer, id, asked))).toEqual({ code: -32603, message: "Internal error" });
    }
    expect(s.subscriptionCount).toBe(0);
    expect(logger.error.mock.calls.map((c) => String(c[1]))).toEqual([
      expect.stringMatching(/promptsListChanged, which the request and capabilities do not allow/),
      expect.stringMatching(/resourceSubscriptions "test:\/\/c" outside/),
      expect.stringMatching(/a non-boolean toolsListChanged/),
      expect.stringMatching(/an unknown member "everything"/),
      expect.stringMatching(/something other than a filter object/),
    ]);
    logger.error.mockClear();
  });

  it("refuses the subscription with the JsonRpcError the hook throws", async () => {
    const s = start(() => {
      throw new JsonRpcError(ErrorCode.InvalidParams, "Invalid params: not for you", { reason: "forbidden" });
    });
    const { peer } = await connectRaw(s);
    expect(errorOf(await listen(peer, "x", asked))).toEqual({
      code: -32602,
      message: "Invalid params: not for you",
      data: { reason: "forbidden" },
    });
    expect(s.subscriptionCount).toBe(0);
  });

  it("is not run when every subscription slot is taken", async () => {
    const hook = vi.fn(({ honourable }: { honourable: SubscriptionFilter }) => honourable);
    const s = start(hook, { maxSubscriptions: 1 });
    const { peer } = await connectRaw(s);
    void listen(peer, "first", { toolsListChanged: true });
    await until(() => s.subscriptionCount === 1);
    expect(errorOf(await listen(peer, "second", { toolsListChanged: true })).message).toBe(
      "Subscription capacity reached: 2 subscriptions, over maxSubscriptions (1)",
    );
    expect(hook).toHaveBeenCalledTimes(1);
  });

  it("sees its signal fire when the client cancels while it runs, and opens nothing", async () => {
    let release!: () => void;
    let signal: AbortSignal | undefined;
    const s = start(async ({ honourable }, context) => {
      signal = context.signal;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return honourable;
    });
    const { peer } = await connectRaw(s);
    void listen(peer, "c", { toolsListChanged: true });
    await until(() => signal !== undefined);
    await peer.notify("notifications/cancelled", { requestId: "c" });
    await until(() => signal?.aborted === true);
    release();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(s.subscriptionCount).toBe(0);
    expect(peer.notifications).toEqual([]);
  });
});

describe("withinFilter", () => {
  it("keeps what lies within, drops false and undefined members, and keeps URI order and duplicates", () => {
    const honourable = { toolsListChanged: true, resourceSubscriptions: ["a", "b", "a"] };
    expect(
      withinFilter({ toolsListChanged: false, resourceSubscriptions: ["b", "a", "a"] }, honourable),
    ).toEqual({
      resourceSubscriptions: ["b", "a", "a"],
    });
    expect(withinFilter({ resourceSubscriptions: undefined }, honourable)).toEqual({});
    expect(() => withinFilter({ resourceSubscriptions: [] }, { toolsListChanged: true })).toThrow(/outside/);
  });
});
