/**
 * The cases in which an official MCP client (v1 `@modelcontextprotocol/sdk` or v2 `@modelcontextprotocol/client`)
 * talks to the mcpkit fixture server, table-driven by SDK flavour and era. The client runs over
 * `toOfficialTransport` on the client half of a {@link validatingPair}, so every message is checked against the
 * official schema of its era (the test file still calls `useWireValidation()`).
 *
 * What the SDKs do differently (how a call takes its options, which error classes they throw, what they check
 * after connecting) is described by an {@link OfficialClientFlavour}; the cases themselves are shared.
 * {@link sharedOfficialClientCases} are the ones that need no more than a connected client and its wire traffic;
 * the stdio tests run them too (./interop-stdio-official-client.ts), against the stdio fixture server.
 *
 * @example
 * const harness = useOfficialClient(V2);
 * describe.each(ERAS)("official v2 Client -> mcpkit server, $era", ({ era }) => officialClientCases(harness, era));
 */
import { expect, it } from "vitest";
import type { ServerConnection } from "../../src/server/connection.js";
import type { Server } from "../../src/server/server.js";
import { fixtureServer, STRUCTURED_VALUES } from "./fixture-server.js";
import { LEGACY, MODERN, rejection, textOf, useCleanups, type WireLog, wireLog } from "./interop-helpers.js";
import { type OfficialTransportAdapter, toOfficialTransport } from "./official-bridge.js";
import { until } from "./until.js";
import { type Era, type ValidatingPair, validatingPair } from "./validating-transport.js";

/** A tool as the official clients return it from `tools/list`. */
export interface OfficialTool {
  name: string;
  inputSchema: unknown;
  outputSchema?: unknown;
}

/** A `tools/call` result as the official clients return it. */
export interface OfficialToolResult {
  isError?: boolean | undefined;
  content?: unknown;
  structuredContent?: unknown;
  [key: string]: unknown;
}

/** The options of a tool call that the cases use, as the flavour passes them on to its SDK. */
export interface OfficialCallOptions {
  timeout?: number;
  onprogress?: (progress: { progress: number }) => void;
}

type CompletionRef = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };

/** What the cases use of an official `Client`: v1's and v2's both fit. */
export interface OfficialClient {
  /** The bridge's adapter in process, an SDK's `StdioClientTransport` over a subprocess. */
  connect(transport: object): Promise<void>;
  close(): Promise<void>;
  getServerVersion(): unknown;
  getInstructions(): string | undefined;
  getServerCapabilities(): unknown;
  ping(): Promise<unknown>;
  setLoggingLevel(level: "info"): Promise<unknown>;
  listTools(params?: { cursor?: string }): Promise<{
    tools: OfficialTool[];
    nextCursor?: string | undefined;
    _meta?: { [key: string]: unknown } | undefined;
  }>;
  listResources(): Promise<{ resources: Array<{ uri: string }>; nextCursor?: string | undefined }>;
  listResourceTemplates(): Promise<{ resourceTemplates: unknown[] }>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
  listPrompts(): Promise<{ prompts: Array<{ name: string }> }>;
  getPrompt(params: {
    name: string;
    arguments?: { [key: string]: string };
  }): Promise<{ description?: string | undefined; messages: unknown[] }>;
  complete(params: {
    ref: CompletionRef;
    argument: { name: string; value: string };
  }): Promise<{ completion: { values: string[] } }>;
}

/** An error the cases expect: its class, and members it must have. */
export interface ErrorShape {
  type: abstract new (...args: never[]) => Error;
  members: { [key: string]: unknown };
}

/** How one official SDK's client differs, for the shared cases. */
export interface OfficialClientFlavour<C extends OfficialClient> {
  /** `"v1"` or `"v2"`, for the test titles. */
  sdk: "v1" | "v2";
  /** A new, unconnected client set up to speak `era`. */
  create(era: Era): C;
  /** Calls a tool with the SDK's own way of passing options. */
  callTool(
    client: C,
    params: { name: string; arguments: { [key: string]: unknown } },
    options?: OfficialCallOptions,
  ): Promise<OfficialToolResult>;
  /** Checks of the SDK's own view of the connection, run right after it connects. */
  connected?(client: C, era: Era): void;
  errors: {
    /** A JSON-RPC error response with this code, as the client throws it. */
    protocol(code: number): ErrorShape;
    /** mcpkit's answer for a missing resource (-32002 in 2025-11-25, -32602 in 2026-07-28), as thrown. */
    resourceNotFound(uri: string): ErrorShape;
    /** The client's own request timeout. */
    timeout: ErrorShape;
    /** The client refusing `ping` in 2026-07-28 (only for a flavour that speaks that era). */
    pingRefused?: ErrorShape;
  };
}

/** Checks that `error` has the class and members of `shape` (which the flavour must name for this case). */
export function expectError(error: unknown, shape: ErrorShape | undefined): void {
  if (shape === undefined) throw new Error("the flavour names no error for this case");
  expect(error).toBeInstanceOf(shape.type);
  expect(error).toMatchObject(shape.members);
}

/** Calls the fixture's `chatty` tool: its two progress notifications reach the call's `onprogress`. */
async function expectChattyProgress(
  callTool: OfficialClientSession<OfficialClient>["callTool"],
  era: Era,
): Promise<void> {
  const progress: number[] = [];
  const result = await callTool(
    { name: "chatty", arguments: {} },
    { onprogress: (p) => progress.push(p.progress) },
  );
  expect(textOf(result)).toBe(`era ${era}`);
  expect(progress).toEqual([1, 2]);
}

/**
 * One official client connected to an mcpkit fixture server (page size 2), however it got there, and what crossed
 * the wire: all that {@link sharedOfficialClientCases} need.
 */
export interface OfficialConnection<C extends OfficialClient> extends Pick<WireLog, "sent" | "answer"> {
  client: C;
  callTool(
    params: { name: string; arguments: { [key: string]: unknown } },
    options?: OfficialCallOptions,
  ): Promise<OfficialToolResult>;
}

/** What a fixture server (in process or the stdio one) answers to the shared cases. */
export interface FixtureExpectation {
  serverInfo: { name: string; version: string };
  instructions: string;
  /** Its tools, in order (an even number: pages of two). */
  tools: string[];
  /** The contents of each of its fixed resources, in listing order. */
  resources: Array<{ uri: string; mimeType: string; text?: string; blob?: string }>;
}

/** Checks what the client learnt about the server when it connected. */
export function expectServer(client: OfficialClient, fixture: FixtureExpectation): void {
  expect(client.getServerVersion()).toEqual(fixture.serverInfo);
  expect(client.getInstructions()).toBe(fixture.instructions);
  expect(client.getServerCapabilities()).toEqual({
    logging: {},
    tools: {},
    resources: {},
    prompts: {},
    completions: {},
  });
}

/** One official client connected to a fresh mcpkit fixture server (page size 2), and what it sent. */
export interface OfficialClientSession<C extends OfficialClient> extends WireLog, OfficialConnection<C> {
  pair: ValidatingPair;
  /** The official side of the bridge, which records the version the client negotiated. */
  transport: OfficialTransportAdapter;
  server: Server;
  connection: ServerConnection;
}

export interface OfficialClientHarness<C extends OfficialClient> {
  flavour: OfficialClientFlavour<C>;
  connect(era: Era): Promise<OfficialClientSession<C>>;
  /** Runs what it is given after the current test (as it does for what `connect` opened). */
  cleanup(...cleanups: Array<() => Promise<unknown>>): void;
}

/**
 * Connects clients of `flavour` to the mcpkit fixture server and closes them after each test. Call at the top of
 * a test file.
 */
export function useOfficialClient<C extends OfficialClient>(
  flavour: OfficialClientFlavour<C>,
): OfficialClientHarness<C> {
  const cleanup = useCleanups();
  return {
    flavour,
    cleanup,
    async connect(era) {
      const pair = validatingPair({ era });
      const server = fixtureServer({ pageSize: 2 });
      const connection = await server.connect(pair.server);
      const transport = toOfficialTransport(pair.client);
      const client = flavour.create(era);
      cleanup(() => client.close());
      await client.connect(transport);
      return {
        ...wireLog(pair.messages),
        client,
        pair,
        transport,
        server,
        connection,
        callTool: (params, options) => flavour.callTool(client, params, options),
      };
    },
  };
}

/** The in-process fixture server (test/support/fixture-server.ts), as the shared cases see it. */
export const FIXTURE: FixtureExpectation = {
  serverInfo: { name: "fixture", version: "1.2.3" },
  instructions: "Fixture server for mcpkit tests.",
  tools: ["add", "structured", "fail", "slow", "chatty", "whoami"],
  resources: [
    { uri: "test://static-text", mimeType: "text/plain", text: "hello" },
    { uri: "test://static-binary", mimeType: "image/png", blob: "iVBORw0KGgo=" },
  ],
};

/**
 * Registers, in the current `describe`, the cases every setup shares (in process or over stdio): how `connect`
 * reaches a fixture server is the caller's, `fixture` says what that server holds.
 */
export function sharedOfficialClientCases<C extends OfficialClient>(
  flavour: OfficialClientFlavour<C>,
  connect: (era: Era) => Promise<OfficialConnection<C>>,
  era: Era,
  fixture: FixtureExpectation,
): void {
  if (flavour.sdk === "v1") {
    it("pages through tools with mcpkit's cursors (v1's listTools returns one page) and calls one", async () => {
      const { client, callTool } = await connect(era);
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
      expect(names).toEqual(fixture.tools);
      expect(cursors).toEqual([...pairCursors(fixture.tools.length), undefined]);
      expectAdd(await callTool({ name: "add", arguments: { a: 20, b: 22 } }), "42");
    });
  } else {
    it("lists every tool across pages (v2's listTools follows the cursors) and calls one", async () => {
      const { client, callTool, sent } = await connect(era);
      const { tools, nextCursor } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(fixture.tools);
      expect(nextCursor).toBeUndefined();
      // pageSize 2: the v2 client walked every page, following mcpkit's cursors.
      expect(sent("tools/list").map((r) => r.params?.cursor)).toEqual([
        undefined,
        ...pairCursors(fixture.tools.length),
      ]);
      expectAdd(await callTool({ name: "add", arguments: { a: 2, b: 3 } }), "5");
    });
  }

  it("lists and reads resources: every fixed one and a template", async () => {
    const { client } = await connect(era);
    const { resources, nextCursor } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(fixture.resources.map((r) => r.uri));
    expect(nextCursor).toBeUndefined();
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([{ uriTemplate: "test://items/{id}/data", name: "item" }]);

    for (const resource of fixture.resources) {
      expect((await client.readResource({ uri: resource.uri })).contents).toEqual([resource]);
    }
    for (const id of ["x-1", "42"]) {
      const uri = `test://items/${id}/data`;
      const item = await client.readResource({ uri });
      expect(item.contents).toEqual([{ uri, mimeType: "application/json", text: JSON.stringify({ id }) }]);
    }
  });

  it("lists prompts and gets one with arguments; a missing required argument is -32602", async () => {
    const { client } = await connect(era);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["simple", "greet"]);
    const formal = await client.getPrompt({ name: "greet", arguments: { name: "Ada", tone: "formally" } });
    expect(formal.description).toBe("greeting");
    expect(formal.messages).toEqual([
      { role: "user", content: { type: "text", text: "Greet Ada formally" } },
    ]);
    const plain = await client.getPrompt({ name: "greet", arguments: { name: "Lin" } });
    expect(plain.description).toBe("greeting");
    expect(plain.messages).toEqual([{ role: "user", content: { type: "text", text: "Greet Lin warmly" } }]);
    const missing = await rejection(client.getPrompt({ name: "greet", arguments: {} }));
    expectError(missing, flavour.errors.protocol(-32602));
  });

  it("completes a prompt argument and a template variable", async () => {
    const { client } = await connect(era);
    const complete = async (ref: CompletionRef, name: string, value: string) =>
      (await client.complete({ ref, argument: { name, value } })).completion.values;
    const greet: CompletionRef = { type: "ref/prompt", name: "greet" };
    const item: CompletionRef = { type: "ref/resource", uri: "test://items/{id}/data" };
    expect(await complete(greet, "tone", "w")).toEqual(["warmly", "wryly"]);
    expect(await complete(greet, "tone", "f")).toEqual(["formally"]);
    expect(await complete(item, "id", "g")).toEqual(["gamma"]);
    expect(await complete(item, "id", "a")).toEqual(["alpha"]);
  });

  it("errors: unknown tool -32602, missing resource, a failing tool's isError result", async () => {
    const { client, callTool, sent, answer } = await connect(era);
    const unknown = await rejection(callTool({ name: "nope", arguments: {} }));
    expectError(unknown, flavour.errors.protocol(-32602));
    expect((unknown as Error).message).toContain("nope");

    const missing = await rejection(client.readResource({ uri: "test://missing" }));
    // On the wire: -32602 in 2026-07-28 (SEP-2164), -32002 from mcpkit to a 2025-11-25 client; data.uri both.
    expect(answer(sent("resources/read")[0])).toMatchObject({
      error: { code: era === MODERN ? -32602 : -32002, data: { uri: "test://missing" } },
    });
    expectError(missing, flavour.errors.resourceNotFound("test://missing"));

    const failed = await callTool({ name: "fail", arguments: {} });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe("tool exploded");
  });

  it("bad arguments: an isError result naming every failing path; the tool does not run", async () => {
    const { callTool } = await connect(era);
    const mistyped = await callTool({ name: "add", arguments: { a: "1", b: 2 } });
    expect(mistyped.isError).toBe(true);
    expect(textOf(mistyped)).toBe('Invalid arguments for tool "add":\n/a: expected number, got string');
    const empty = await callTool({ name: "add", arguments: {} });
    expect(empty.isError).toBe(true);
    expect(textOf(empty)).toBe('Invalid arguments for tool "add":\n/a: required\n/b: required');
  });
}

/** The cursors mcpkit hands out listing `count` items two to a page: `o:2`, `o:4`, ... (the last page has none). */
function pairCursors(count: number): string[] {
  return Array.from({ length: Math.ceil(count / 2) - 1 }, (_, i) => `o:${2 * (i + 1)}`);
}

function expectAdd(result: OfficialToolResult, sum: string): void {
  expect(result.isError).toBeFalsy();
  expect(textOf(result)).toBe(sum);
}

/** Registers, in the current `describe`, every case shared by the official clients, for one era. */
export function officialClientCases<C extends OfficialClient>(
  { flavour, connect }: OfficialClientHarness<C>,
  era: Era,
): void {
  it("connects: era, server info, capabilities, instructions", async () => {
    const { client, transport, connection, pair, sequence } = await connect(era);
    flavour.connected?.(client, era);
    expect(transport.protocolVersion).toBe(era);
    expect(connection.era).toBe(era);
    expectServer(client, FIXTURE);
    // 2026-07-28: discover only, no initialize/initialized; 2025-11-25: the handshake only, no discover probe.
    if (era === MODERN) {
      expect(sequence()).toEqual(["server/discover", "response"]);
    } else {
      expect(sequence()).toEqual(["initialize", "response", "notifications/initialized"]);
      expect(pair.messages[0]?.message).toMatchObject({ id: 0, params: { protocolVersion: LEGACY } });
    }
    // Every message went through the validator of this era.
    expect(pair.validator.count).toBe(pair.messages.length);
    expect(pair.errors).toEqual([]);
  });

  sharedOfficialClientCases(flavour, connect, era, FIXTURE);

  it("fetches one raw page with an explicit cursor; a bad cursor is -32602", async () => {
    const { client } = await connect(era);
    const page = await client.listTools({ cursor: "o:2" });
    expect(page.tools.map((t) => t.name)).toEqual(["fail", "slow"]);
    expect(page.nextCursor).toBe("o:4");
    const last = await client.listTools({ cursor: "o:4" });
    expect(last.tools.map((t) => t.name)).toEqual(["chatty", "whoami"]);
    expect(last.nextCursor).toBeUndefined();
    expectError(
      await rejection(client.listTools({ cursor: "not-a-cursor" })),
      flavour.errors.protocol(-32602),
    );
  });

  it(`unknown members: result top level kept, tool definition members stripped by the ${flavour.sdk} client`, async () => {
    const { client, callTool, sent, answer } = await connect(era);
    const { tools } = await client.listTools();
    const add = tools.find((t) => t.name === "add");
    // On the wire mcpkit sent the vendor member...
    const firstPage = answer(sent("tools/list")[0]);
    const wireTools =
      firstPage && "result" in firstPage ? (firstPage.result.tools as Array<{ [key: string]: unknown }>) : [];
    expect(wireTools.find((t) => t.name === "add")?.["x-vendor"]).toEqual({ keep: true });
    // ...the client's non-loose Tool object drops it; the inputSchema is passed through whole.
    expect(add).toBeDefined();
    expect(add && "x-vendor" in add).toBe(false);
    expect(add?.inputSchema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $defs: { unused: { $ref: "#/$defs/unused" } },
    });

    const structured = await callTool({ name: "structured", arguments: { kind: "object" } });
    expect(structured.structuredContent).toEqual({ nested: { deep: [1, "two", null] } });
    expect(structured["x-extra"]).toEqual({ survives: true });
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
    const { server, callTool, sent, answer, notified } = await connect(era);
    const timedOut = await rejection(callTool({ name: "slow", arguments: {} }, { timeout: 30 }));
    expectError(timedOut, flavour.errors.timeout);
    await until(() => server.runningHandlers === 0);
    const [call] = sent("tools/call");
    const cancelled = notified("notifications/cancelled");
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]).toMatchObject({ params: { requestId: call?.id } });
    // The cancelled call got no response.
    expect(call).toBeDefined();
    expect(answer(call)).toBeUndefined();
  });

  it("closes cleanly from the official side", async () => {
    const { client, connection } = await connect(era);
    await client.close();
    await expect(connection.closed).resolves.toEqual({ kind: "remote" });
  });

  if (era === LEGACY) {
    it("2025-11-25: ping answers; progress reaches the call's onprogress, and the server's logs arrive", async () => {
      const { client, callTool, notified } = await connect(era);
      await expect(client.ping()).resolves.toEqual({});
      await expectChattyProgress(callTool, era);
      expect(notified("notifications/message")).toHaveLength(2);
    });

    it("2025-11-25: logging/setLevel filters the server's log messages", async () => {
      const { client, callTool, notified } = await connect(era);
      await expect(client.setLoggingLevel("info")).resolves.toEqual({});
      await callTool({ name: "chatty", arguments: {} });
      expect(notified("notifications/message").map((m) => m.params)).toEqual([
        { level: "info", data: { step: "working" }, logger: "fixture" },
      ]);
    });
  } else {
    it("2026-07-28: ping is refused locally; progress flows, logs stay off without a logLevel", async () => {
      const { client, callTool, sent, notified } = await connect(era);
      expectError(await rejection(client.ping()), flavour.errors.pingRefused);
      expect(sent("ping")).toEqual([]);
      await expectChattyProgress(callTool, era);
      // The client sets no io.modelcontextprotocol/logLevel, so a 2026 server must send no log messages.
      expect(notified("notifications/message")).toEqual([]);
    });
  }

  const kinds = Object.keys(STRUCTURED_VALUES);
  if (era === MODERN) {
    it("2026-07-28: any JSON value as structuredContent reaches the client as itself", async () => {
      const { client, callTool } = await connect(era);
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === "structured")?.outputSchema).toEqual({});
      for (const kind of kinds) {
        const result = await callTool({ name: "structured", arguments: { kind } });
        expect(result.structuredContent, kind).toEqual(STRUCTURED_VALUES[kind]);
        expect("structuredContent" in result, kind).toBe(true);
      }
    });
  } else {
    it("2025-11-25: mcpkit leaves out what 2025 cannot carry (outputSchema {}, non-object structuredContent)", async () => {
      const { client, callTool } = await connect(era);
      const { tools } = await client.listTools();
      // mcpkit leaves the 2026-only loose `outputSchema: {}` out of a 2025 tools/list.
      const structuredTool = tools.find((t) => t.name === "structured");
      expect(structuredTool).toBeDefined();
      expect(structuredTool && "outputSchema" in structuredTool).toBe(false);
      for (const kind of kinds) {
        const result = await callTool({ name: "structured", arguments: { kind } });
        if (kind === "object") expect(result.structuredContent).toEqual(STRUCTURED_VALUES.object);
        else expect("structuredContent" in result, kind).toBe(false);
        expect(textOf(result), kind).toBe(JSON.stringify(STRUCTURED_VALUES[kind]));
      }
    });
  }
}
