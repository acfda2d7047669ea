/**
 * Calls on a dynamic server while its registrations change: a removed or disabled item answers as an unknown
 * one, a call in flight keeps the item it started with, tools added at run time are validated as built ones are,
 * renames keep keys unique, and each family is bounded by `maxRegistrations`. Both eras, through the mcpkit
 * client over the validating in-process pair.
 */
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { LEGACY, MODERN, rejection, textOf } from "../../../test/support/interop-helpers.js";
import { useWireValidation, validatingPair } from "../../../test/support/validating-transport.js";
import { Client } from "../../client/client.js";
import { JsonRpcError, McpkitError } from "../../jsonrpc/errors.js";
import type { Era } from "../../protocol/versions.js";
import { ServerBuilder } from "./builder.js";

useWireValidation();

const serverInfo = { name: "dynamic", version: "1.0.0" };
const schema = { type: "object" } as const;
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function start(era: Era, options: { maxRegistrations?: number } = {}) {
  const server = new ServerBuilder({ serverInfo, ...options }).buildDynamic();
  const pair = validatingPair({ era });
  await server.connect(pair.server);
  const client = new Client({
    transport: pair.client,
    clientInfo: { name: "c", version: "1" },
    protocolVersion: era,
  });
  closers.push(
    () => client.close(),
    () => server.close(),
  );
  await client.connect();
  return { server, client };
}

/** The wire error of a rejected call, without its stack. */
async function wireError(promise: Promise<unknown>) {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(JsonRpcError);
  return (error as JsonRpcError).toJSON();
}

describe.each([{ era: MODERN }, { era: LEGACY }])("calls on a dynamic server, $era", ({ era }) => {
  it("answers a removed or disabled tool or prompt exactly as an unknown one, and a removed resource as not found", async () => {
    const { server, client } = await start(era);
    server.tools.add({ name: "gone", inputSchema: schema }, () => text("here"));
    const hidden = server.tools.add({ name: "hidden", inputSchema: schema }, () => text("here"));
    server.prompts.add({ name: "p" }, () => ({ messages: [] }));
    server.resources.add({ uri: "test://r", name: "r" }, (uri) => ({ contents: [{ uri, text: "r" }] }));
    const template = server.resourceTemplates.add(
      { uriTemplate: "test://t/{id}", name: "t" },
      (uri, { id }) => ({
        contents: [{ uri, text: id }],
      }),
    );
    expect(textOf(await client.callTool("gone", {}))).toBe("here");
    server.tools.remove("gone");
    hidden.disable();
    server.prompts.get("p")?.remove();
    server.resources.remove("test://r");
    const unknownTool = await wireError(client.callTool("never", {}));
    expect(await wireError(client.callTool("gone", {}))).toEqual({
      ...unknownTool,
      message: unknownTool.message.replace("never", "gone"),
    });
    expect(await wireError(client.callTool("hidden", {}))).toEqual({
      ...unknownTool,
      message: unknownTool.message.replace("never", "hidden"),
    });
    expect(unknownTool).toEqual({ code: -32602, message: "Invalid params: Unknown tool: never" });
    expect(await wireError(client.getPrompt("p"))).toEqual({
      code: -32602,
      message: "Invalid params: Unknown prompt: p",
    });
    const notFound = await wireError(client.readResource("test://nothing"));
    expect(await wireError(client.readResource("test://r"))).toEqual({
      ...notFound,
      data: { uri: "test://r" },
    });
    expect((await client.readResource("test://t/7")).contents).toEqual([{ uri: "test://t/7", text: "7" }]);
    template.disable();
    expect((await wireError(client.readResource("test://t/7"))).code).toBe(notFound.code);
    hidden.enable();
    expect(textOf(await client.callTool("hidden", {}))).toBe("here");
  });

  it("lets a call in flight finish with the tool it started with while the tool is removed and replaced", async () => {
    const { server, client } = await start(era);
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = false;
    server.tools.add({ name: "job", inputSchema: schema }, async () => {
      started = true;
      await released;
      return text("old");
    });
    const running = client.callTool("job", {});
    while (!started) await new Promise((r) => setTimeout(r, 1));
    server.tools.remove("job");
    await expect(client.callTool("job", {})).rejects.toThrow(/Unknown tool: job/);
    server.tools.add({ name: "job", inputSchema: schema }, () => text("new"));
    release();
    expect(textOf(await running)).toBe("old");
    expect(textOf(await client.callTool("job", {}))).toBe("new");
  });

  it("validates the arguments of tools added at run time, Standard Schema and raw JSON Schema, and after update", async () => {
    const { server, client } = await start(era);
    server.tools.add({ name: "typed", inputSchema: z.object({ n: z.number() }) }, ({ n }) =>
      text(String(n * 2)),
    );
    const raw = server.tools.add(
      {
        name: "raw",
        inputSchema: { type: "object", properties: { s: { type: "string" } }, required: ["s"] },
      },
      ({ s }) => text(String(s)),
    );
    expect(textOf(await client.callTool("typed", { n: 2 }))).toBe("4");
    const bad = await client.callTool("typed", { n: "2" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^Invalid arguments for tool "typed":\n\/n: /);
    expect(textOf(await client.callTool("raw", {}))).toBe('Invalid arguments for tool "raw":\n/s: required');
    raw.update({ inputSchema: z.object({ s: z.string().min(3) }), description: "now typed" });
    expect(textOf(await client.callTool("raw", { s: "ab" }))).toMatch(
      /^Invalid arguments for tool "raw":\n\/s: /,
    );
    expect(textOf(await client.callTool("raw", { s: "abc" }))).toBe("abc");
    raw.update({ validate: false });
    expect(textOf(await client.callTool("raw", { s: "ab" }))).toBe("ab");
    const listed = (await client.listTools()).tools.find((t) => t.name === "raw");
    expect(listed?.description).toBe("now typed");
    expect(listed?.inputSchema).toMatchObject({
      type: "object",
      properties: { s: { type: "string", minLength: 3 } },
    });
  });
});

describe("a dynamic server's registries", () => {
  it("renames keep keys unique; the old key is free again; handles follow their item", async () => {
    const server = new ServerBuilder({ serverInfo }).buildDynamic();
    const a = server.tools.add({ name: "a", inputSchema: schema }, () => text("a"));
    server.tools.add({ name: "b", inputSchema: schema }, () => text("b"));
    expect(() => a.update({ name: "b" })).toThrow(/"b" is registered twice/);
    a.update({ name: "c", title: "C" });
    expect(a.name).toBe("c");
    expect(a.definition).toMatchObject({ name: "c", title: "C" });
    a.update({ title: undefined });
    expect(a.definition.title).toBeUndefined();
    expect(server.tools.get("c")).toBe(a);
    expect([server.tools.has("a"), server.tools.size]).toEqual([false, 2]);
    expect(server.tools.list().map((h) => h.name)).toEqual(["c", "b"]);
    server.tools.add({ name: "a", inputSchema: schema }, () => text("again"));
    expect(() => server.tools.add({ name: "a", inputSchema: schema }, () => text("twice"))).toThrow(
      McpkitError,
    );
    expect(() => a.update({ inputSchema: { type: "array" } })).toThrow(/"type": "object"/);
    expect(a.definition.inputSchema).toEqual(schema);
    const resource = server.resources.add({ uri: "test://x", name: "x" }, () => ({ contents: [] }));
    resource.update({ uri: "test://y" });
    expect([resource.uri, server.resources.has("test://x"), server.resources.has("test://y")]).toEqual([
      "test://y",
      false,
      true,
    ]);
    const template = server.resourceTemplates.add({ uriTemplate: "t://{a}", name: "t" }, () => ({
      contents: [],
    }));
    expect(() => template.update({ uriTemplate: "t://{a" })).toThrow(/unclosed/);
    template.update({ uriTemplate: "t://{a}{?b}" });
    expect(server.resourceTemplates.get("t://{a}{?b}")).toBe(template);
    expect(() => server.prompts.add({ name: "" }, () => ({ messages: [] }))).toThrow(/non-empty name/);
    await server.close();
  });

  it("refuses the 10,001st tool with CAPACITY, and takes one again once a tool is removed", async () => {
    const { server, client } = await start(LEGACY);
    for (let i = 0; i < 10_000; i++)
      server.tools.add({ name: `t${i}`, inputSchema: schema }, () => text(String(i)));
    const past = (() => {
      try {
        server.tools.add({ name: "one-too-many", inputSchema: schema }, () => text("x"));
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(past).toBeInstanceOf(McpkitError);
    expect(past).toMatchObject({ code: "CAPACITY", details: { kind: "tool", limit: 10_000 } });
    server.tools.remove("t0");
    server.tools.add({ name: "one-more", inputSchema: schema }, () => text("in"));
    expect((await client.listTools()).tools).toHaveLength(10_000);
    expect(textOf(await client.callTool("one-more", {}))).toBe("in");
  });

  it("applies maxRegistrations per family, in the builder as at run time, and checks it", () => {
    const builder = new ServerBuilder({ serverInfo, maxRegistrations: 1 })
      .tool({ name: "t", inputSchema: schema }, () => text("t"))
      .prompt({ name: "p" }, () => ({ messages: [] }));
    expect(() => builder.tool({ name: "u", inputSchema: schema }, () => text("u"))).toThrow(
      /too many tools registered: 2 tools, over maxRegistrations \(1\)/,
    );
    const server = builder.buildDynamic();
    expect(() => server.prompts.add({ name: "q" }, () => ({ messages: [] }))).toThrow(
      /over maxRegistrations \(1\)/,
    );
    server.resources.add({ uri: "a://1", name: "1" }, () => ({ contents: [] }));
    server.resourceTemplates.add({ uriTemplate: "a://{x}", name: "x" }, () => ({ contents: [] }));
    expect(() => server.resources.add({ uri: "a://2", name: "2" }, () => ({ contents: [] }))).toThrow(
      McpkitError,
    );
    for (const bad of [0, -1, 1.5]) {
      expect(() => new ServerBuilder({ serverInfo, maxRegistrations: bad })).toThrow(/maxRegistrations/);
    }
  });
});
