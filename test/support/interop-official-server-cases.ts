/**
 * The cases in which the mcpkit client talks to an official MCP server (v1 `@modelcontextprotocol/sdk` or v2
 * `@modelcontextprotocol/server`), table-driven by SDK flavour and by cell (how the server is hosted, which era
 * the client forces, which era it must settle on). The client runs over `fromOfficialTransport` on one half of
 * the SDK's in-memory pair, wrapped in a validating transport that checks every message, both ways, against the
 * official schema of its era (the test file still calls `useWireValidation()`).
 *
 * Both SDKs' servers serve the same content, defined once here ({@link OFFICIAL}); each test file only registers
 * it with its SDK's API and says how it hosts the server ({@link Host}).
 *
 * @example
 * const harness = describeMcpkitClient(V1, [{ label: "default negotiation", host, era: "2025-11-25" }]);
 */
import { describe, expect, it } from "vitest";
import * as z from "zod";
import {
  Client,
  type ConnectionInfo,
  isResourceNotFound,
  JsonRpcError,
  McpkitError,
} from "../../src/client/index.js";
import { LEGACY, MODERN, rejection, textOf, useCleanups, type WireLog, wireLog } from "./interop-helpers.js";
import { fromOfficialTransport, type OfficialTransportLike } from "./official-bridge.js";
import { until } from "./until.js";
import { type Era, type WireRecord, WireValidator, wrapTransport } from "./validating-transport.js";

const CLIENT_INFO = { name: "mcpkit-interop", version: "0.1.0" };

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/** Why each call of the official servers' `slow` tool was aborted. */
export const cancelledCalls: unknown[] = [];

/** The tools of the low-level paged servers, each with an unknown member. */
const PAGED_TOOLS = ["t1", "t2", "t3", "t4", "t5"].map((name) => ({
  name,
  inputSchema: { type: "object" as const },
  "x-vendor": { tool: name },
}));

/**
 * What the official servers serve, the same for both SDKs: each test file registers it with its SDK's API. The
 * tools come with their config and handler (`slow` takes the SDK's abort signal).
 */
export const OFFICIAL = {
  add: {
    config: { description: "Adds two numbers", inputSchema: z.object({ a: z.number(), b: z.number() }) },
    run: async ({ a, b }: { a: number; b: number }) => text(String(a + b)),
  },
  double: {
    config: { inputSchema: z.object({ n: z.number() }), outputSchema: z.object({ doubled: z.number() }) },
    run: async ({ n }: { n: number }) => ({ ...text(String(2 * n)), structuredContent: { doubled: 2 * n } }),
  },
  boom: {
    config: { description: "Always fails" },
    run: async (): Promise<never> => {
      throw new Error("kaboom");
    },
  },
  slow: {
    config: { description: "Waits until cancelled" },
    /** Waits until the call is aborted, then records why in {@link cancelledCalls}. */
    run: async (signal: AbortSignal) => {
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener("abort", () => resolve(), { once: true });
      });
      cancelledCalls.push(signal.reason);
      return text("cancelled");
    },
  },
  /** The `config` resource. */
  config: {
    uri: "config://app",
    metadata: { mimeType: "text/plain" },
    read: async (uri: URL) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: "cfg" }] }),
  },
  /** The `user` resource template. */
  users: {
    uriTemplate: "users://{id}",
    completeId: (value: string) => ["1", "2", "12"].filter((id) => id.startsWith(value)),
    metadata: { mimeType: "text/plain" },
    read: async (uri: URL, variables: { [name: string]: unknown }) => ({
      contents: [{ uri: uri.href, text: `user ${String(variables.id)}` }],
    }),
  },
  /** The `greet` prompt: `name` (completed) and an optional `tone`. */
  greet: {
    description: "Greets someone",
    completeName: (value: string) => ["alice", "bob", "alan"].filter((n) => n.startsWith(value)),
    run: ({ name, tone }: { name: string; tone?: string | undefined }) => ({
      messages: [
        {
          role: "user" as const,
          content: { type: "text" as const, text: `hi ${name}, ${tone ?? "plainly"}` },
        },
      ],
    }),
  },
  /** A low-level server's `tools/list`: two tools a page, numeric cursors, an unknown member on the result. */
  toolsPage(cursor: string | undefined) {
    const start = cursor ? Number(cursor) : 0;
    const tools = PAGED_TOOLS.slice(start, start + 2);
    const next = start + 2 < PAGED_TOOLS.length ? { nextCursor: String(start + 2) } : {};
    return { tools, ...next, "x-page": start };
  },
  /** A low-level server's `tools/call`: the tool's name, with unknown members on the content block and result. */
  toolResult(name: string) {
    return { content: [{ type: "text" as const, text: name, "x-content": 1 }], "x-result": { kept: true } };
  },
};

/** An official server hosted on the server half of a fresh official in-memory pair. */
export interface HostedServer {
  /** The other half, for the mcpkit client. */
  clientSide: OfficialTransportLike;
  close(): Promise<unknown>;
  /** What the official server reported through its `onerror`. */
  errors: Error[];
}

/** Hosts one SDK's fixture server (`"fixture"`) or its low-level paged server (`"paged"`). */
export type Host = (server: "fixture" | "paged") => Promise<HostedServer>;

/**
 * Connects `server` to the server half of `pair` and collects its errors from `protocol` (the server itself, or
 * the low-level server under an `McpServer`).
 */
export async function hostConnected<T>(
  [clientSide, serverSide]: [OfficialTransportLike, T],
  server: { connect(transport: T): Promise<void>; close(): Promise<void> },
  protocol: { onerror?: ((error: Error) => void) | undefined },
): Promise<HostedServer> {
  const errors: Error[] = [];
  protocol.onerror = (error) => errors.push(error);
  await server.connect(serverSide);
  return { clientSide, close: () => server.close(), errors };
}

/** One way of meeting an official server: how it is hosted, what the client forces, where it must end up. */
export interface ServerCell {
  label: string;
  host: Host;
  /** Forced with the mcpkit client's `protocolVersion`; absent: default negotiation. */
  protocolVersion?: Era | undefined;
  /** The era the connection must settle on. */
  era: Era;
}

/** How one official SDK's server differs, for the shared cases. */
export interface OfficialServerFlavour {
  /** How the test titles name the server, e.g. `"official v1 McpServer"`. */
  title: string;
  serverInfo: { name: string; version: string };
  instructions: string;
  /** How its McpServer answers a call of an unknown tool: a tool error result, or a JSON-RPC error. */
  unknownTool: { isErrorText: string } | { error: { code: number; message: string } };
  /** The -32602 its McpServer sends for a missing resource (`isResourceNotFound` must recognize it). */
  missingResource: { message: string; data?: unknown };
}

/** The mcpkit client over one official server, before or after `connect()`, and what crossed the wire. */
export interface McpkitClientSession extends WireLog {
  client: Client;
  validator: WireValidator;
  messages: WireRecord[];
  serverErrors: Error[];
}

export interface McpkitClientHarness {
  flavour: OfficialServerFlavour;
  /** Hosts a server and builds the mcpkit client for it, without connecting. */
  start(
    cell: Pick<ServerCell, "host" | "protocolVersion">,
    server?: "fixture" | "paged",
  ): Promise<McpkitClientSession>;
  /** {@link start}, then `connect()`. */
  connect(
    cell: Pick<ServerCell, "host" | "protocolVersion">,
    server?: "fixture" | "paged",
  ): Promise<McpkitClientSession & { info: ConnectionInfo }>;
}

/**
 * Starts mcpkit clients against `flavour`'s official servers and closes both after each test. Call at the top of
 * a test file.
 */
export function useMcpkitClient(flavour: OfficialServerFlavour): McpkitClientHarness {
  const cleanup = useCleanups();
  const start: McpkitClientHarness["start"] = async ({ host, protocolVersion }, server = "fixture") => {
    const hosted = await host(server);
    const validator =
      protocolVersion === undefined ? WireValidator.auto() : new WireValidator(protocolVersion);
    const messages: WireRecord[] = [];
    const transport = wrapTransport(fromOfficialTransport(hosted.clientSide), "client", validator, {
      messages,
    });
    const client = new Client({
      transport,
      clientInfo: CLIENT_INFO,
      ...(protocolVersion === undefined ? {} : { protocolVersion }),
      requestTimeoutMs: 5_000,
      connectTimeoutMs: 5_000,
    });
    cleanup(
      () => client.close(),
      () => hosted.close(),
    );
    return { ...wireLog(messages), client, validator, messages, serverErrors: hosted.errors };
  };
  return {
    flavour,
    start,
    async connect(cell, server) {
      const session = await start(cell, server);
      const info = await session.client.connect();
      return { ...session, info };
    },
  };
}

/**
 * Starts mcpkit clients against `flavour`'s servers ({@link useMcpkitClient}) and registers one `describe` per cell
 * with every shared case ({@link mcpkitClientCases}). Returns the harness, for the file's own tests.
 */
export function describeMcpkitClient(
  flavour: OfficialServerFlavour,
  cells: ServerCell[],
): McpkitClientHarness {
  const harness = useMcpkitClient(flavour);
  describe.each(cells)(`mcpkit Client -> ${flavour.title}, $label`, (cell) => {
    mcpkitClientCases(harness, cell);
  });
  return harness;
}

/** Registers, in the current `describe`, every case shared by the official servers, for one cell. */
export function mcpkitClientCases({ flavour, connect }: McpkitClientHarness, cell: ServerCell): void {
  const { era, protocolVersion } = cell;

  it("connects: era, server info, capabilities, instructions", async () => {
    const { client, info, sequence, sent, answer, validator, messages, serverErrors } = await connect(cell);
    expect(info).toMatchObject({ era, protocolVersion: era });
    expect(client.era).toBe(era);
    expect(info.serverInfo).toEqual(flavour.serverInfo);
    expect(info.instructions).toBe(flavour.instructions);
    expect(info.capabilities).toMatchObject({
      tools: { listChanged: true },
      resources: { listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
    const discover = ["server/discover", "response"];
    const handshake = ["initialize", "response", "notifications/initialized"];
    if (era === MODERN) {
      expect(sequence()).toEqual(discover);
      expect(info.supportedVersions).toEqual([MODERN]);
      expect(info.cache).toEqual({ ttlMs: 0, cacheScope: "private" });
    } else if (protocolVersion === undefined) {
      // The ladder: server/discover first, the 2025-only server's -32601, then initialize on the same transport.
      expect(sequence()).toEqual([...discover, ...handshake]);
      expect(answer(sent("server/discover")[0])).toMatchObject({ error: { code: -32601 } });
      expect(info.supportedVersions).toBeUndefined();
    } else {
      expect(sequence()).toEqual(handshake);
      expect(info.supportedVersions).toBeUndefined();
    }
    expect(validator.era).toBe(era);
    expect(validator.count).toBe(messages.length);
    expect(serverErrors).toEqual([]);
  });

  it("lists tools and calls one", async () => {
    const { client } = await connect(cell);
    const { tools, nextCursor } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["add", "double", "boom", "slow"]);
    expect(nextCursor).toBeUndefined();
    const result = await client.callTool("add", { a: 1.5, b: 40.5 });
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe("42");
    const doubled = await client.callTool("double", { n: 21 });
    expect(doubled.structuredContent).toEqual({ doubled: 42 });
    if (era === MODERN) expect(doubled.resultType).toBe("complete");
    else expect("resultType" in doubled).toBe(false);
  });

  it("reads a text resource and a templated one", async () => {
    const { client } = await connect(cell);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["config://app"]);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["users://{id}"]);
    const config = await client.readResource("config://app");
    expect(config.contents).toEqual([{ uri: "config://app", mimeType: "text/plain", text: "cfg" }]);
    if (era === MODERN) expect(config).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    const user = await client.readResource("users://7");
    expect(user.contents).toMatchObject([{ uri: "users://7", text: "user 7" }]);
  });

  it("lists prompts and gets one with arguments", async () => {
    const { client } = await connect(cell);
    const { prompts } = await client.listPrompts();
    expect(prompts).toMatchObject([
      {
        name: "greet",
        description: "Greets someone",
        arguments: [
          { name: "name", required: true },
          { name: "tone", required: false },
        ],
      },
    ]);
    const warm = await client.getPrompt("greet", { name: "ada", tone: "warmly" });
    expect(warm.messages).toEqual([{ role: "user", content: { type: "text", text: "hi ada, warmly" } }]);
    const plain = await client.getPrompt("greet", { name: "bob" });
    expect(plain.messages).toEqual([{ role: "user", content: { type: "text", text: "hi bob, plainly" } }]);
  });

  it("completes a prompt argument and a template variable", async () => {
    const { client } = await connect(cell);
    const complete = async (ref: Parameters<Client["complete"]>[0]["ref"], name: string, value: string) =>
      (await client.complete({ ref, argument: { name, value } })).completion.values;
    const greet = { type: "ref/prompt", name: "greet" } as const;
    const user = { type: "ref/resource", uri: "users://{id}" } as const;
    expect(await complete(greet, "name", "al")).toEqual(["alice", "alan"]);
    expect(await complete(greet, "name", "b")).toEqual(["bob"]);
    expect(await complete(user, "id", "1")).toEqual(["1", "12"]);
    expect(await complete(user, "id", "2")).toEqual(["2"]);
  });

  it("errors: unknown tool, missing resource, a tool that throws", async () => {
    const { client } = await connect(cell);
    if ("isErrorText" in flavour.unknownTool) {
      // Reported as a tool error result, not a JSON-RPC error.
      const unknown = await client.callTool("nope", {});
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toBe(flavour.unknownTool.isErrorText);
    } else {
      const unknown = await rejection(client.callTool("nope", {}));
      expect(unknown).toBeInstanceOf(JsonRpcError);
      expect(unknown).toMatchObject(flavour.unknownTool.error);
    }

    // The official servers send -32602 in both eras (they never send -32002).
    const missing = await rejection(client.readResource("config://missing"));
    expect(missing).toBeInstanceOf(JsonRpcError);
    expect((missing as JsonRpcError).code).toBe(-32602);
    expect((missing as JsonRpcError).message).toBe(flavour.missingResource.message);
    expect((missing as JsonRpcError).data).toEqual(flavour.missingResource.data);
    expect(isResourceNotFound(missing)).toBe(true);

    const failed = await client.callTool("boom", {});
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe("kaboom");
  });

  it("walks a low-level server's pages with listAllTools; unknown members survive", async () => {
    const { client, sent, answer } = await connect(cell, "paged");
    const all = await client.listAllTools();
    expect(all.map((t) => t.name)).toEqual(["t1", "t2", "t3", "t4", "t5"]);
    expect(sent("tools/list").map((r) => r.params?.cursor)).toEqual([undefined, "2", "4"]);
    // The mcpkit client keeps what it receives: the official server passed these members through.
    expect(all[0]).toEqual({ name: "t1", inputSchema: { type: "object" }, "x-vendor": { tool: "t1" } });

    const first = await client.listTools();
    expect(first.tools.map((t) => t.name)).toEqual(["t1", "t2"]);
    expect(first.nextCursor).toBe("2");
    expect((first as { [key: string]: unknown })["x-page"]).toBe(0);
    const last = await client.listTools({ cursor: "4" });
    expect(last.tools.map((t) => t.name)).toEqual(["t5"]);
    expect(last.nextCursor).toBeUndefined();

    const result = await client.callTool("t3", {});
    expect((result as { [key: string]: unknown })["x-result"]).toEqual({ kept: true });
    // The official server parses its own tools/call result before sending: the unknown member of the content
    // block is stripped there (it never reaches the wire); the result's top-level member is kept.
    expect(result.content).toEqual([{ type: "text", text: "t3" }]);
    const wire = answer(sent("tools/call")[0]);
    expect(wire && "result" in wire ? wire.result.content : undefined).toEqual([
      { type: "text", text: "t3" },
    ]);
  });

  it("a client-side timeout sends notifications/cancelled, which aborts the official handler", async () => {
    const { client, sent, notified } = await connect(cell);
    cancelledCalls.length = 0;
    const timedOut = await rejection(client.callTool("slow", {}, { timeoutMs: 30 }));
    expect(timedOut).toBeInstanceOf(McpkitError);
    expect((timedOut as McpkitError).code).toBe("TIMEOUT");
    await until(() => cancelledCalls.length === 1);
    // mcpkit's cancellation carries no _meta in either era (a 2026 notification's _meta is optional); the
    // official server honours it all the same.
    expect(notified("notifications/cancelled")).toMatchObject([
      { params: { requestId: sent("tools/call")[0]?.id } },
    ]);
  });

  it("ping exists only in 2025-11-25", async () => {
    const { client, sent } = await connect(cell);
    if (era === LEGACY) {
      await expect(client.ping()).resolves.toEqual({});
    } else {
      const refused = await rejection(client.ping());
      expect(refused).toBeInstanceOf(McpkitError);
      expect((refused as McpkitError).code).toBe("UNSUPPORTED");
      expect(sent("ping")).toEqual([]);
    }
  });
}
