/**
 * Interop: the official v1 client (`@modelcontextprotocol/sdk` 1.32.2, 2025-11-25 only) against an mcpkit server.
 * Every message is checked against the official 2025-11-25 schema by the validating pair under the bridge.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { fixtureServer } from "../support/fixture-server.js";
import { toOfficialTransport } from "../support/official-bridge.js";
import { until } from "../support/until.js";
import { useWireValidation, validatingPair } from "../support/validating-transport.js";

useWireValidation();

const LEGACY = "2025-11-25";
const CLIENT_INFO = { name: "official-v1-client", version: "1.32.2" };

const open: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((client) => client.close()));
});

async function connect() {
  const pair = validatingPair({ era: LEGACY });
  const server = fixtureServer({ pageSize: 2 });
  const connection = await server.connect(pair.server);
  const transport = toOfficialTransport(pair.client);
  const client = new Client(CLIENT_INFO);
  open.push(client);
  await client.connect(transport);
  const sent = (method: string) =>
    pair.messages.flatMap((r) =>
      r.from === "client" && "method" in r.message && "id" in r.message && r.message.method === method
        ? [r.message]
        : [],
    );
  const answered = (id: string | number) =>
    pair.messages.find((r) => r.from === "server" && !("method" in r.message) && r.message.id === id)
      ?.message;
  return { pair, client, transport, server, connection, sent, answered };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

/** The text of a result's first content block, if it is a text block. */
function textOf(result: unknown): string | undefined {
  const content = (result as { content?: Array<{ type?: string; text?: string }> }).content;
  const first = content?.[0];
  return first?.type === "text" ? first.text : undefined;
}

describe("official v1 Client -> mcpkit server, 2025-11-25", () => {
  it("initializes: version, server info, capabilities, instructions", async () => {
    const { client, transport, connection, pair } = await connect();
    expect(transport.protocolVersion).toBe(LEGACY);
    expect(connection.era).toBe(LEGACY);
    expect(client.getServerVersion()).toEqual({ name: "fixture", version: "1.2.3" });
    expect(client.getInstructions()).toBe("Fixture server for mcpkit tests.");
    expect(client.getServerCapabilities()).toEqual({
      logging: {},
      tools: {},
      resources: {},
      prompts: {},
      completions: {},
    });
    expect(pair.messages.map((r) => ("method" in r.message ? r.message.method : "response"))).toEqual([
      "initialize",
      "response",
      "notifications/initialized",
    ]);
    expect(pair.messages[0]?.message).toMatchObject({ id: 0, params: { protocolVersion: LEGACY } });
    expect(pair.validator.count).toBe(pair.messages.length);
  });

  it("pages through tools with mcpkit's cursors and calls one", async () => {
    const { client } = await connect();
    const names: string[] = [];
    const cursors: Array<string | undefined> = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor });
      expect(page.tools.length).toBe(2);
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      cursors.push(cursor);
    } while (cursor !== undefined);
    expect(names).toEqual(["add", "structured", "fail", "slow", "chatty", "whoami"]);
    expect(cursors).toEqual(["o:2", "o:4", undefined]);

    const result = await client.callTool({ name: "add", arguments: { a: 20, b: 22 } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("42");
  });

  it("lists and reads resources: text and a template", async () => {
    const { client } = await connect();
    const { resources, nextCursor } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["test://static-text", "test://static-binary"]);
    expect(nextCursor).toBeUndefined();
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([{ uriTemplate: "test://items/{id}/data", name: "item" }]);

    const text = await client.readResource({ uri: "test://static-text" });
    expect(text.contents).toEqual([{ uri: "test://static-text", mimeType: "text/plain", text: "hello" }]);
    const item = await client.readResource({ uri: "test://items/x-1/data" });
    expect(item.contents).toEqual([
      { uri: "test://items/x-1/data", mimeType: "application/json", text: JSON.stringify({ id: "x-1" }) },
    ]);
  });

  it("gets a prompt with arguments", async () => {
    const { client } = await connect();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["simple", "greet"]);
    const greet = await client.getPrompt({ name: "greet", arguments: { name: "Lin" } });
    expect(greet.description).toBe("greeting");
    expect(greet.messages).toEqual([{ role: "user", content: { type: "text", text: "Greet Lin warmly" } }]);
  });

  it("completes a prompt argument and a template variable", async () => {
    const { client } = await connect();
    const tone = await client.complete({
      ref: { type: "ref/prompt", name: "greet" },
      argument: { name: "tone", value: "w" },
    });
    expect(tone.completion.values).toEqual(["warmly", "wryly"]);
    const id = await client.complete({
      ref: { type: "ref/resource", uri: "test://items/{id}/data" },
      argument: { name: "id", value: "g" },
    });
    expect(id.completion.values).toEqual(["gamma"]);
  });

  it("errors: unknown tool -32602, missing resource -32002, a failing tool's isError result", async () => {
    const { client } = await connect();
    const unknown = await rejection(client.callTool({ name: "nope", arguments: {} }));
    expect(unknown).toBeInstanceOf(McpError);
    expect((unknown as McpError).code).toBe(-32602);

    const missing = await rejection(client.readResource({ uri: "test://missing" }));
    expect(missing).toBeInstanceOf(McpError);
    expect((missing as McpError).code).toBe(-32002);
    expect((missing as McpError).data).toEqual({ uri: "test://missing" });

    const failed = await client.callTool({ name: "fail", arguments: {} });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe("tool exploded");
  });

  it("unknown members: result top level kept, tool definition members stripped by the v1 client", async () => {
    const { client, sent, answered } = await connect();
    const { tools } = await client.listTools();
    const wire = answered(sent("tools/list")[0]?.id ?? -1);
    const wireTools =
      wire && "result" in wire ? (wire.result.tools as Array<{ [key: string]: unknown }>) : [];
    expect(wireTools.find((t) => t.name === "add")?.["x-vendor"]).toEqual({ keep: true });
    const add = tools.find((t) => t.name === "add");
    expect(add && "x-vendor" in add).toBe(false);
    expect(add?.inputSchema).toMatchObject({ $defs: { unused: { $ref: "#/$defs/unused" } } });
    // mcpkit leaves the 2026-only loose `outputSchema: {}` out of a 2025 tools/list.
    const structuredTool = tools.find((t) => t.name === "structured");
    expect(structuredTool && "outputSchema" in structuredTool).toBe(false);

    const structured = await client.callTool({ name: "structured", arguments: { kind: "object" } });
    expect(structured.structuredContent).toEqual({ nested: { deep: [1, "two", null] } });
    expect(structured["x-extra"]).toEqual({ survives: true });
  });

  it("ping, progress and the server's log messages", async () => {
    const { client, pair } = await connect();
    await expect(client.ping()).resolves.toEqual({});
    const progress: number[] = [];
    const result = await client.callTool({ name: "chatty", arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(textOf(result)).toBe(`era ${LEGACY}`);
    expect(progress).toEqual([1, 2]);
    const logs = pair.messages.filter(
      (r) => "method" in r.message && r.message.method === "notifications/message",
    );
    expect(logs.length).toBe(2);
  });

  it("logging/setLevel filters the server's log messages", async () => {
    const { client, pair } = await connect();
    await expect(client.setLoggingLevel("info")).resolves.toEqual({});
    await client.callTool({ name: "chatty", arguments: {} });
    const logs = pair.messages.flatMap((r) =>
      "method" in r.message && r.message.method === "notifications/message" ? [r.message.params] : [],
    );
    expect(logs).toEqual([{ level: "info", data: { step: "working" }, logger: "fixture" }]);
  });

  it("a client-side timeout sends notifications/cancelled, which stops the mcpkit handler", async () => {
    const { client, server, pair } = await connect();
    const timedOut = await rejection(
      client.callTool({ name: "slow", arguments: {} }, undefined, { timeout: 30 }),
    );
    expect(timedOut).toBeInstanceOf(McpError);
    expect((timedOut as McpError).code).toBe(ErrorCode.RequestTimeout);
    await until(() => server.runningHandlers === 0);
    expect(
      pair.messages.filter((r) => "method" in r.message && r.message.method === "notifications/cancelled"),
    ).toHaveLength(1);
  });

  it("closes cleanly from the official side", async () => {
    const { client, connection } = await connect();
    await client.close();
    await expect(connection.closed).resolves.toEqual({ kind: "remote" });
  });
});
