/**
 * A dynamic server (`ServerBuilder.buildDynamic()`) on in-process connections: adding, disabling, enabling,
 * updating and removing tools, prompts, resources and resource templates changes the lists, and each change
 * sends `notifications/<family>/list_changed` by itself, to 2025-11-25 sessions and to 2026-07-28 listen streams
 * whose filter took the family. Every message is checked against the schema of its era.
 */
import { afterEach, describe, expect, it } from "vitest";
import { connectRaw, modernMeta, type RawPeer, resultOf } from "../../../test/support/raw-peer.js";
import { until } from "../../../test/support/until.js";
import { useWireValidation } from "../../../test/support/validating-transport.js";
import { McpkitError } from "../../jsonrpc/errors.js";
import { type BuilderOptions, ServerBuilder } from "./builder.js";
import type { DynamicOptions, DynamicServer } from "./dynamic.js";
import type { RegistrationHandle } from "./dynamic-registries.js";

useWireValidation();

const serverInfo = { name: "dynamic", version: "1.0.0" };
const SUB = "io.modelcontextprotocol/subscriptionId";
const schema = { type: "object" } as const;
const empty = () => ({ content: [] });
const noMessages = () => ({ messages: [] });
const noContents = () => ({ contents: [] });

let server: DynamicServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function dynamic(
  setup: (builder: ServerBuilder) => ServerBuilder = (b) => b,
  options: Omit<BuilderOptions, "serverInfo"> = {},
  dynamicOptions?: DynamicOptions,
): DynamicServer {
  server = setup(new ServerBuilder({ serverInfo, ...options })).buildDynamic(dynamicOptions);
  return server;
}

async function legacyPeer(s: DynamicServer): Promise<RawPeer> {
  const { peer } = await connectRaw(s);
  await peer.initialize();
  return peer;
}

const changed = (peer: RawPeer, family: string) =>
  peer.notifications.filter((n) => n.method === `notifications/${family}/list_changed`).length;

/** Settles the microtask that sends the notification of a change, and the messages in flight. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

/** One family as the cases drive it: how to add an item, and how to list what clients see. */
interface Family {
  title: string;
  family: "tools" | "prompts" | "resources";
  add(s: DynamicServer, key: string): RegistrationHandle;
  update(handle: RegistrationHandle): void;
  list(peer: RawPeer): Promise<unknown[]>;
}

const FAMILIES: Family[] = [
  {
    title: "tools",
    family: "tools",
    add: (s, key) => s.tools.add({ name: key, inputSchema: schema }, empty),
    update: (h) => (h as ReturnType<DynamicServer["tools"]["add"]>).update({ description: "changed" }),
    list: async (peer) => resultOf(await peer.request("tools/list")).tools as unknown[],
  },
  {
    title: "prompts",
    family: "prompts",
    add: (s, key) => s.prompts.add({ name: key }, noMessages),
    update: (h) => (h as ReturnType<DynamicServer["prompts"]["add"]>).update({ description: "changed" }),
    list: async (peer) => resultOf(await peer.request("prompts/list")).prompts as unknown[],
  },
  {
    title: "resources",
    family: "resources",
    add: (s, key) => s.resources.add({ uri: `test://${key}`, name: key }, noContents),
    update: (h) => (h as ReturnType<DynamicServer["resources"]["add"]>).update({ description: "changed" }),
    list: async (peer) => resultOf(await peer.request("resources/list")).resources as unknown[],
  },
  {
    title: "resource templates",
    family: "resources",
    add: (s, key) => s.resourceTemplates.add({ uriTemplate: `test://${key}/{id}`, name: key }, noContents),
    update: (h) =>
      (h as ReturnType<DynamicServer["resourceTemplates"]["add"]>).update({ description: "changed" }),
    list: async (peer) =>
      resultOf(await peer.request("resources/templates/list")).resourceTemplates as unknown[],
  },
];

describe("a dynamic server on a 2025-11-25 session", () => {
  it("advertises listChanged for every family it holds, and serves what was registered before and after build", async () => {
    const s = dynamic((b) => b.tool({ name: "first", inputSchema: schema }, empty));
    const { peer } = await connectRaw(s);
    const init = resultOf(await peer.initialize());
    expect(init.capabilities).toEqual({
      logging: {},
      tools: { listChanged: true },
      resources: { listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
    s.tools.add({ name: "second", inputSchema: schema }, empty);
    await until(() => changed(peer, "tools") === 1);
    const tools = resultOf(await peer.request("tools/list")).tools as { name: string }[];
    expect(tools.map((t) => t.name)).toEqual(["first", "second"]);
  });

  it.each(FAMILIES)(
    "$title: add, disable, enable, update and remove each change the list and notify",
    async (f) => {
      const s = dynamic();
      const peer = await legacyPeer(s);
      const handle = f.add(s, "one");
      await until(() => changed(peer, f.family) === 1);
      expect(await f.list(peer)).toHaveLength(1);
      handle.disable();
      await until(() => changed(peer, f.family) === 2);
      expect(await f.list(peer)).toEqual([]);
      expect(handle.enabled).toBe(false);
      handle.disable(); // already disabled: no change, no notification
      handle.enable();
      await until(() => changed(peer, f.family) === 3);
      expect(await f.list(peer)).toHaveLength(1);
      f.update(handle);
      await until(() => changed(peer, f.family) === 4);
      expect(await f.list(peer)).toEqual([expect.objectContaining({ description: "changed" })]);
      handle.remove();
      handle.remove(); // idempotent
      await until(() => changed(peer, f.family) === 5);
      expect(await f.list(peer)).toEqual([]);
      expect(handle.removed).toBe(true);
      expect(() => handle.enable()).toThrow(McpkitError);
      await settle();
      expect(peer.notifications).toHaveLength(5);
    },
  );

  it("sends one notification per family for the changes of one synchronous run", async () => {
    const s = dynamic();
    const peer = await legacyPeer(s);
    for (let i = 0; i < 300; i++) s.tools.add({ name: `t${i}`, inputSchema: schema }, empty);
    s.tools.remove("t0");
    s.prompts.add({ name: "p" }, noMessages);
    await settle();
    expect([changed(peer, "tools"), changed(peer, "prompts"), changed(peer, "resources")]).toEqual([1, 1, 0]);
    expect(resultOf(await peer.request("tools/list")).tools).toHaveLength(299);
  });

  it("holds only the families named, and stays silent for a family whose listChanged is turned off", async () => {
    const s = dynamic((b) => b, { listChanged: { tools: false } }, { families: ["tools"] });
    const { peer } = await connectRaw(s);
    expect(resultOf(await peer.initialize()).capabilities).toEqual({ logging: {}, tools: {} });
    s.tools.add({ name: "quiet", inputSchema: schema }, empty);
    await settle();
    expect(peer.notifications).toEqual([]);
    expect(resultOf(await peer.request("tools/list")).tools).toHaveLength(1);
    expect(() => s.prompts.add({ name: "p" }, noMessages)).toThrow(/does not hold prompts/);
    expect(() => s.resourceTemplates.add({ uriTemplate: "a://{x}", name: "t" }, noContents)).toThrow(
      /does not hold resources/,
    );
  });

  it("refuses bad buildDynamic options, and families that leave out what the builder registered", () => {
    const builder = () => new ServerBuilder({ serverInfo }).prompt({ name: "p" }, noMessages);
    expect(() => builder().buildDynamic({ families: ["tools"] })).toThrow(/prompts are registered/);
    expect(() => builder().buildDynamic({ families: ["nope" as "tools"] })).toThrow(/families must list/);
    expect(() => builder().buildDynamic({ dynamic: true } as DynamicOptions)).toThrow(/is not an option/);
    const built = builder();
    built.buildDynamic();
    expect(() => built.buildDynamic()).toThrow(/already built/);
  });
});

describe("a dynamic server on 2026-07-28 subscriptions/listen streams", () => {
  const listen = (peer: RawPeer, id: string, notifications: object) =>
    peer.request("subscriptions/listen", { notifications, _meta: modernMeta() }, id);
  const received = (peer: RawPeer, id: string) =>
    peer.notifications.filter(
      (n) => (n.params?._meta as { [key: string]: unknown } | undefined)?.[SUB] === id,
    );

  it("delivers each change to the streams whose filter took its family, stamped with the listen id", async () => {
    const s = dynamic();
    const { peer } = await connectRaw(s);
    void listen(peer, "lists", { toolsListChanged: true, promptsListChanged: true });
    void listen(peer, "resources", { resourcesListChanged: true });
    await until(() => received(peer, "lists").length === 1 && received(peer, "resources").length === 1);
    expect(received(peer, "lists")[0]?.params?.notifications).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
    });
    const tool = s.tools.add({ name: "t", inputSchema: schema }, empty);
    await until(() => received(peer, "lists").length === 2);
    s.resourceTemplates.add({ uriTemplate: "test://{id}", name: "t" }, noContents);
    await until(() => received(peer, "resources").length === 2);
    tool.disable();
    s.prompts.add({ name: "p" }, noMessages).remove();
    await until(() => received(peer, "lists").length === 4);
    await settle();
    expect(received(peer, "lists").map((n) => n.method)).toEqual([
      "notifications/subscriptions/acknowledged",
      "notifications/tools/list_changed",
      "notifications/tools/list_changed",
      "notifications/prompts/list_changed",
    ]);
    expect(received(peer, "resources").slice(1)).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/resources/list_changed",
        params: { _meta: { [SUB]: "resources" } },
      },
    ]);
    const listed = resultOf(await peer.modern("tools/list")).tools;
    expect(listed).toEqual([]);
  });

  it("does not overflow a stream's 256-event queue when many items change at once", async () => {
    const s = dynamic();
    const { peer } = await connectRaw(s);
    void listen(peer, "tools", { toolsListChanged: true });
    await until(() => s.subscriptionCount === 1);
    for (let i = 0; i < 1000; i++) s.tools.add({ name: `t${i}`, inputSchema: schema }, empty).disable();
    await until(() => received(peer, "tools").length === 2);
    await settle();
    expect(s.subscriptionCount).toBe(1);
    expect(received(peer, "tools")).toHaveLength(2);
  });
});
