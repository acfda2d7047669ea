/**
 * Interop over real HTTP on 127.0.0.1: the official v2 client (`@modelcontextprotocol/client` 2.4.0) pinned to
 * 2026-07-28 and in its legacy mode, and the official v1 client (`@modelcontextprotocol/sdk` 1.32.2, 2025-11-25),
 * each with its own Streamable HTTP transport against an mcpkit server served by `serve()`. Every message both
 * ways is checked against the official schema of the era by a validating `fetch` under the client.
 */
import {
  ProtocolError,
  ResourceNotFoundError,
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpHandler, type HttpHandler } from "../../src/http/server/handler.js";
import { fixtureServer } from "../support/fixture-server.js";
import { useServe } from "../support/http-peer.js";
import { rejection, textOf, useCleanups } from "../support/interop-helpers.js";
import { until } from "../support/until.js";
import { type ValidatingFetch, validatingFetch } from "../support/validating-fetch.js";
import { WireValidator } from "../support/wire-schema.js";

const serve = useServe();
const cleanup = useCleanups();
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const ALL_TOOLS = ["add", "structured", "fail", "slow", "chatty", "whoami"];

interface Flavour {
  title: string;
  era: typeof MODERN | typeof LEGACY;
  connect(url: string, fetch: typeof globalThis.fetch): Promise<OfficialSession>;
  errorClass: abstract new (...args: never[]) => Error;
  notFound(uri: string): {
    type: abstract new (...args: never[]) => Error;
    members: { [key: string]: unknown };
  };
}

/** What the cases use of a connected official client, whichever SDK. */
interface OfficialSession {
  client: V1Client | V2Client;
  listToolNames(): Promise<string[]>;
  call(
    name: string,
    args: { [key: string]: unknown },
    options?: { timeout?: number; onprogress?: (p: { progress: number }) => void },
  ): Promise<unknown>;
  terminate(): Promise<void>;
}

const v2 = (era: Flavour["era"]): Flavour => ({
  title: `official v2 client, ${era}`,
  era,
  async connect(url, fetch) {
    const mode = era === MODERN ? { pin: MODERN } : "legacy";
    const client = new V2Client({ name: "official-v2", version: "2.4.0" }, { versionNegotiation: { mode } });
    const transport = new V2Transport(new URL(url), { fetch });
    await client.connect(transport);
    cleanup(() => client.close());
    expect(client.getProtocolEra()).toBe(era === MODERN ? "modern" : "legacy");
    expect(client.getNegotiatedProtocolVersion()).toBe(era);
    return {
      client,
      listToolNames: async () => (await client.listTools()).tools.map((t) => t.name),
      call: (name, args, options) => client.callTool({ name, arguments: args }, options),
      terminate: () => transport.terminateSession(),
    };
  },
  errorClass: ProtocolError,
  notFound: (uri) => ({ type: ResourceNotFoundError, members: { code: -32602, uri } }),
});

const v1: Flavour = {
  title: "official v1 client, 2025-11-25",
  era: LEGACY,
  async connect(url, fetch) {
    const client = new V1Client({ name: "official-v1", version: "1.32.2" });
    const transport = new V1Transport(new URL(url), { fetch });
    await client.connect(transport);
    cleanup(() => client.close());
    return {
      client,
      async listToolNames() {
        const names: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor === undefined ? undefined : { cursor });
          names.push(...page.tools.map((t) => t.name));
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        return names;
      },
      call: (name, args, options) => client.callTool({ name, arguments: args }, undefined, options),
      terminate: () => transport.terminateSession(),
    };
  },
  errorClass: McpError,
  notFound: (uri) => ({ type: McpError, members: { code: -32002, data: { uri } } }),
};

let wire: ValidatingFetch | undefined;
afterEach(() => {
  const errors = wire?.errors ?? [];
  wire = undefined;
  if (errors.length > 0) throw errors[0];
});

async function start(flavour: Flavour) {
  const server = fixtureServer({ pageSize: 2, listChanged: { tools: true } });
  const handler: HttpHandler = createHttpHandler(server);
  const { url } = await serve(handler);
  wire = validatingFetch(new WireValidator(flavour.era));
  const session = await flavour.connect(url, wire.fetch);
  return { ...session, server, handler, wire };
}

describe.each([v2(MODERN), v2(LEGACY), v1])("$title -> mcpkit over HTTP", (flavour) => {
  it("connects in its era: server info, instructions, capabilities; the wire shows the era's lifecycle", async () => {
    const { client, wire, handler } = await start(flavour);
    expect(client.getServerVersion()).toEqual({ name: "fixture", version: "1.2.3" });
    expect(client.getInstructions()).toBe("Fixture server for mcpkit tests.");
    expect(client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      resources: {},
      prompts: {},
    });
    const methods = wire.messages().flatMap((m) => ("method" in m ? [m.method] : []));
    if (flavour.era === MODERN) {
      expect(methods).toEqual(["server/discover"]);
      expect(wire.exchanges[0]?.headers).toMatchObject({
        "mcp-protocol-version": MODERN,
        "mcp-method": "server/discover",
      });
      expect(handler.sessionCount).toBe(0);
    } else {
      expect(methods.slice(0, 2)).toEqual(["initialize", "notifications/initialized"]);
      expect(handler.sessionCount).toBe(1);
    }
    expect(wire.validator.count).toBeGreaterThanOrEqual(2);
  });

  it("lists and calls tools, with progress on the call's stream", async () => {
    const session = await start(flavour);
    expect(await session.listToolNames()).toEqual(ALL_TOOLS);
    expect(textOf(await session.call("add", { a: 20, b: 22 }))).toBe("42");
    const progress: number[] = [];
    const chatty = await session.call("chatty", {}, { onprogress: (p) => progress.push(p.progress) });
    expect(textOf(chatty)).toBe(`era ${flavour.era}`);
    expect(progress).toEqual([1, 2]);
  });

  it("reads resources and gets prompts", async () => {
    const { client } = await start(flavour);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["test://static-text", "test://static-binary"]);
    const text = await client.readResource({ uri: "test://static-text" });
    expect(text.contents).toEqual([{ uri: "test://static-text", mimeType: "text/plain", text: "hello" }]);
    const item = await client.readResource({ uri: "test://items/7/data" });
    expect(item.contents[0]).toMatchObject({ text: JSON.stringify({ id: "7" }) });
    const prompt = await client.getPrompt({ name: "greet", arguments: { name: "Ada", tone: "formally" } });
    expect(prompt.messages).toEqual([
      { role: "user", content: { type: "text", text: "Greet Ada formally" } },
    ]);
    const completion = await client.complete({
      ref: { type: "ref/prompt", name: "greet" },
      argument: { name: "tone", value: "w" },
    });
    expect(completion.completion.values).toEqual(["warmly", "wryly"]);
  });

  it("gets errors: an unknown tool (-32602), a missing resource, a failing tool's isError result", async () => {
    const session = await start(flavour);
    const unknown = await rejection(session.call("nope", {}));
    expect(unknown).toBeInstanceOf(flavour.errorClass);
    expect(unknown).toMatchObject({ code: -32602 });
    const missing = await rejection(session.client.readResource({ uri: "test://missing" }));
    const expected = flavour.notFound("test://missing");
    expect(missing).toBeInstanceOf(expected.type);
    expect(missing).toMatchObject(expected.members);
    const failed = (await session.call("fail", {})) as { isError?: boolean };
    expect(failed.isError).toBe(true);
  });

  it("cancels: a client timeout stops the mcpkit handler (stream closed in 2026, notifications/cancelled in 2025)", async () => {
    const session = await start(flavour);
    await rejection(session.call("slow", {}, { timeout: 50 }));
    await until(() => session.server.runningHandlers === 0);
    const cancelled = session.wire
      .messages()
      .filter((m) => "method" in m && m.method === "notifications/cancelled");
    expect(cancelled).toHaveLength(flavour.era === MODERN ? 0 : 1);
  });

  if (flavour.era === LEGACY) {
    it("2025-11-25: gets list-changed on the GET stream, and DELETE ends the session", async () => {
      const session = await start(flavour);
      await until(() => session.wire.exchanges.some((e) => e.method === "GET" && e.status === 200));
      await session.server.notifyListChanged("tools");
      await until(() =>
        session.wire.messages().some((m) => "method" in m && m.method === "notifications/tools/list_changed"),
      );
      await session.terminate();
      expect(session.handler.sessionCount).toBe(0);
      expect(session.wire.exchanges.at(-1)).toMatchObject({ method: "DELETE", status: 200 });
    });
  }
});
