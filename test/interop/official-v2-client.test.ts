/**
 * Interop: the official v2 client (`@modelcontextprotocol/client` 2.4.0) against an mcpkit server, in both eras.
 * 2026-07-28 is forced with `versionNegotiation: { mode: { pin } }` (no silent fallback); 2025-11-25 is the v2
 * client's default (`legacy` mode: `initialize` only). Every message is checked against the official schema of
 * its era by the validating pair under the bridge.
 */
import {
  Client,
  ProtocolError,
  ResourceNotFoundError,
  SdkError,
  SdkErrorCode,
} from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { fixtureServer, STRUCTURED_VALUES } from "../support/fixture-server.js";
import { toOfficialTransport } from "../support/official-bridge.js";
import { until } from "../support/until.js";
import { type Era, useWireValidation, validatingPair } from "../support/validating-transport.js";

useWireValidation();

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const CLIENT_INFO = { name: "official-v2-client", version: "2.4.0" };
const ALL_TOOLS = ["add", "structured", "fail", "slow", "chatty", "whoami"];

const open: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((client) => client.close()));
});

async function connect(era: Era) {
  const pair = validatingPair({ era });
  const server = fixtureServer({ pageSize: 2 });
  const connection = await server.connect(pair.server);
  const transport = toOfficialTransport(pair.client);
  const client = new Client(
    CLIENT_INFO,
    era === MODERN ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  open.push(client);
  await client.connect(transport);
  /** Requests the client sent with this method, in order. */
  const sent = (method: string) =>
    pair.messages.flatMap((r) =>
      r.from === "client" && "method" in r.message && "id" in r.message && r.message.method === method
        ? [r.message]
        : [],
    );
  /** The result the server sent for a request id. */
  const answered = (id: string | number) =>
    pair.messages.find((r) => r.from === "server" && !("method" in r.message) && r.message.id === id)
      ?.message;
  return { pair, client, transport, server, connection, sent, answered };
}

/** The first error a promise rejects with. */
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

describe.each([
  { era: MODERN as Era, protocolEra: "modern", opening: "server/discover" },
  { era: LEGACY as Era, protocolEra: "legacy", opening: "initialize" },
])("official v2 Client -> mcpkit server, $era", ({ era, protocolEra, opening }) => {
  it("connects: era, server info, capabilities, instructions", async () => {
    const { client, transport, connection, pair } = await connect(era);
    expect(client.getProtocolEra()).toBe(protocolEra);
    expect(client.getNegotiatedProtocolVersion()).toBe(era);
    expect(transport.protocolVersion).toBe(era);
    expect(connection.era).toBe(era);
    expect(client.getServerVersion()).toEqual({ name: "fixture", version: "1.2.3" });
    expect(client.getInstructions()).toBe("Fixture server for mcpkit tests.");
    expect(client.getServerCapabilities()).toEqual({
      logging: {},
      tools: {},
      resources: {},
      prompts: {},
      completions: {},
    });
    const first = pair.messages[0]?.message;
    expect(first && "method" in first ? first.method : undefined).toBe(opening);
    const methods = pair.messages.flatMap((r) => ("method" in r.message ? [r.message.method] : []));
    // 2026-07-28: discover only, no initialize/initialized; 2025-11-25: the handshake only, no discover probe.
    expect(methods).toEqual(
      era === MODERN ? ["server/discover"] : ["initialize", "notifications/initialized"],
    );
    // Every message went through the validator of this era.
    expect(pair.validator.count).toBe(pair.messages.length);
    expect(pair.errors).toEqual([]);
  });

  it("lists every tool across pages and calls one", async () => {
    const { client, sent } = await connect(era);
    const { tools, nextCursor } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS);
    expect(nextCursor).toBeUndefined();
    // pageSize 2: the v2 client walked three pages, following mcpkit's cursors.
    const pages = sent("tools/list");
    expect(pages.map((r) => r.params?.cursor)).toEqual([undefined, "o:2", "o:4"]);
    const result = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("5");
  });

  it("fetches one raw page with an explicit cursor", async () => {
    const { client } = await connect(era);
    const page = await client.listTools({ cursor: "o:2" });
    expect(page.tools.map((t) => t.name)).toEqual(["fail", "slow"]);
    expect(page.nextCursor).toBe("o:4");
    const last = await client.listTools({ cursor: "o:4" });
    expect(last.tools.map((t) => t.name)).toEqual(["chatty", "whoami"]);
    expect(last.nextCursor).toBeUndefined();
    const bad = await rejection(client.listTools({ cursor: "not-a-cursor" }));
    expect(bad).toBeInstanceOf(ProtocolError);
    expect((bad as ProtocolError).code).toBe(-32602);
  });

  it("lists and reads resources: text, binary and a template", async () => {
    const { client } = await connect(era);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["test://static-text", "test://static-binary"]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([{ uriTemplate: "test://items/{id}/data", name: "item" }]);

    const text = await client.readResource({ uri: "test://static-text" });
    expect(text.contents).toEqual([{ uri: "test://static-text", mimeType: "text/plain", text: "hello" }]);
    const binary = await client.readResource({ uri: "test://static-binary" });
    expect(binary.contents).toEqual([
      { uri: "test://static-binary", mimeType: "image/png", blob: "iVBORw0KGgo=" },
    ]);
    const item = await client.readResource({ uri: "test://items/42/data" });
    expect(item.contents).toEqual([
      { uri: "test://items/42/data", mimeType: "application/json", text: JSON.stringify({ id: "42" }) },
    ]);
  });

  it("lists prompts and gets one with arguments", async () => {
    const { client } = await connect(era);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["simple", "greet"]);
    const greet = await client.getPrompt({ name: "greet", arguments: { name: "Ada", tone: "formally" } });
    expect(greet.description).toBe("greeting");
    expect(greet.messages).toEqual([{ role: "user", content: { type: "text", text: "Greet Ada formally" } }]);
    const missing = await rejection(client.getPrompt({ name: "greet", arguments: {} }));
    expect(missing).toBeInstanceOf(ProtocolError);
    expect((missing as ProtocolError).code).toBe(-32602);
  });

  it("completes a prompt argument and a template variable", async () => {
    const { client } = await connect(era);
    const tone = await client.complete({
      ref: { type: "ref/prompt", name: "greet" },
      argument: { name: "tone", value: "f" },
    });
    expect(tone.completion.values).toEqual(["formally"]);
    const id = await client.complete({
      ref: { type: "ref/resource", uri: "test://items/{id}/data" },
      argument: { name: "id", value: "a" },
    });
    expect(id.completion.values).toEqual(["alpha"]);
  });

  it("errors: unknown tool, missing resource, a tool that fails", async () => {
    const { client, sent, answered } = await connect(era);
    const unknown = await rejection(client.callTool({ name: "nope", arguments: {} }));
    expect(unknown).toBeInstanceOf(ProtocolError);
    expect((unknown as ProtocolError).code).toBe(-32602);
    expect((unknown as ProtocolError).message).toContain("nope");

    const missing = await rejection(client.readResource({ uri: "test://missing" }));
    // On the wire: -32602 in 2026-07-28 (SEP-2164), -32002 from mcpkit to a 2025-11-25 client; data.uri both.
    const [read] = sent("resources/read");
    expect(answered(read?.id ?? -1)).toMatchObject({
      error: { code: era === MODERN ? -32602 : -32002, data: { uri: "test://missing" } },
    });
    // The v2 client turns either into its ResourceNotFoundError, whose code is always -32602.
    expect(missing).toBeInstanceOf(ResourceNotFoundError);
    expect((missing as ResourceNotFoundError).code).toBe(-32602);
    expect((missing as ResourceNotFoundError).uri).toBe("test://missing");

    const failed = await client.callTool({ name: "fail", arguments: {} });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe("tool exploded");
  });

  it("unknown members: result top level kept, tool definition members stripped by the v2 client", async () => {
    const { client, sent, answered } = await connect(era);
    const { tools } = await client.listTools();
    const add = tools.find((t) => t.name === "add");
    // On the wire mcpkit sent the vendor member...
    const firstPage = answered(sent("tools/list")[0]?.id ?? -1);
    const wireTools =
      firstPage && "result" in firstPage ? (firstPage.result.tools as Array<{ [key: string]: unknown }>) : [];
    expect(wireTools.find((t) => t.name === "add")?.["x-vendor"]).toEqual({ keep: true });
    // ...the v2 client's non-loose Tool object drops it; the inputSchema is passed through whole.
    expect(add).toBeDefined();
    expect(add && "x-vendor" in add).toBe(false);
    expect(add?.inputSchema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $defs: { unused: { $ref: "#/$defs/unused" } },
    });

    const structured = await client.callTool({ name: "structured", arguments: { kind: "object" } });
    expect(structured.structuredContent).toEqual({ nested: { deep: [1, "two", null] } });
    expect((structured as { [key: string]: unknown })["x-extra"]).toEqual({ survives: true });
    if (era === MODERN) {
      // resultType is consumed by the client; cache hints and the server-info _meta stay visible.
      expect("resultType" in structured).toBe(false);
      const list = await client.listTools({ cursor: "o:4" });
      expect(list).toMatchObject({ ttlMs: 0, cacheScope: "public" });
      expect(list._meta?.["io.modelcontextprotocol/serverInfo"]).toEqual({
        name: "fixture",
        version: "1.2.3",
      });
    }
  });

  it("a client-side timeout sends notifications/cancelled, which stops the mcpkit handler", async () => {
    const { client, server, pair } = await connect(era);
    const timedOut = await rejection(client.callTool({ name: "slow", arguments: {} }, { timeout: 30 }));
    expect(timedOut).toBeInstanceOf(SdkError);
    expect((timedOut as SdkError).code).toBe(SdkErrorCode.RequestTimeout);
    await until(() => server.runningHandlers === 0);
    const cancelled = pair.messages.find(
      (r) => "method" in r.message && r.message.method === "notifications/cancelled",
    )?.message;
    expect(cancelled).toMatchObject({ params: { requestId: expect.anything() } });
    // The cancelled call got no response.
    const call = pair.messages.find(
      (r) => "method" in r.message && "id" in r.message && r.message.method === "tools/call",
    )?.message;
    const id = call && "id" in call ? call.id : undefined;
    expect(
      pair.messages.some((r) => r.from === "server" && !("method" in r.message) && r.message.id === id),
    ).toBe(false);
  });

  it("closes cleanly from the official side", async () => {
    const { client, connection } = await connect(era);
    await client.close();
    await expect(connection.closed).resolves.toEqual({ kind: "remote" });
  });
});

describe("official v2 Client -> mcpkit server: negotiation modes", () => {
  it("auto mode picks 2026-07-28 from mcpkit's server/discover", async () => {
    const pair = validatingPair();
    await fixtureServer().connect(pair.server);
    const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: "auto" } });
    open.push(client);
    await client.connect(toOfficialTransport(pair.client));
    expect(client.getProtocolEra()).toBe("modern");
    expect(pair.validator.era).toBe(MODERN);
    const result = await client.callTool({ name: "add", arguments: { a: 1, b: 1 } });
    expect(textOf(result)).toBe("2");
  });

  it("2025-11-25: ping, and progress reaches the call's onprogress", async () => {
    const { client } = await connect(LEGACY);
    await expect(client.ping()).resolves.toEqual({});
    const progress: number[] = [];
    const result = await client.callTool(
      { name: "chatty", arguments: {} },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(textOf(result)).toBe(`era ${LEGACY}`);
    expect(progress).toEqual([1, 2]);
  });

  it("2026-07-28: ping is refused locally; progress flows, logs stay off without a logLevel", async () => {
    const { client, sent, pair } = await connect(MODERN);
    const refused = await rejection(client.ping());
    expect(refused).toBeInstanceOf(SdkError);
    expect((refused as SdkError).code).toBe(SdkErrorCode.MethodNotSupportedByProtocolVersion);
    expect(sent("ping")).toEqual([]);
    const progress: number[] = [];
    const result = await client.callTool(
      { name: "chatty", arguments: {} },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(textOf(result)).toBe(`era ${MODERN}`);
    expect(progress).toEqual([1, 2]);
    // The v2 client sets no io.modelcontextprotocol/logLevel, so a 2026 server must send no log messages.
    expect(
      pair.messages.some((r) => "method" in r.message && r.message.method === "notifications/message"),
    ).toBe(false);
  });
});

describe("official v2 Client -> mcpkit server: structured content per era", () => {
  const kinds = Object.keys(STRUCTURED_VALUES);

  it("2026-07-28: any JSON value as structuredContent reaches the v2 client as itself", async () => {
    const { client } = await connect(MODERN);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "structured")?.outputSchema).toEqual({});
    for (const kind of kinds) {
      const result = await client.callTool({ name: "structured", arguments: { kind } });
      expect(result.structuredContent, kind).toEqual(STRUCTURED_VALUES[kind]);
      expect("structuredContent" in result, kind).toBe(true);
    }
  });

  it("2025-11-25: mcpkit leaves out what 2025 cannot carry (non-object structuredContent)", async () => {
    const { client } = await connect(LEGACY);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "structured")?.outputSchema).toBeUndefined();
    for (const kind of kinds) {
      const result = await client.callTool({ name: "structured", arguments: { kind } });
      if (kind === "object") expect(result.structuredContent).toEqual(STRUCTURED_VALUES.object);
      else expect("structuredContent" in result, kind).toBe(false);
      expect(textOf(result), kind).toBe(JSON.stringify(STRUCTURED_VALUES[kind]));
    }
  });
});
