/**
 * A result that JSON cannot carry (a BigInt in `structuredContent`, a cycle) over real HTTP on 127.0.0.1, both
 * eras, JSON and SSE answers: the request is answered `-32603` "Response could not be encoded" with its id, and
 * the server goes on serving. (Before, the failed encoding was an unhandled rejection that ended the process.)
 */
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import type { JsonObject, JsonRpcMessage } from "../../src/jsonrpc/message.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { HttpPeer, useServe } from "../support/http-peer.js";
import { rejection, textOf, useCleanups } from "../support/interop-helpers.js";
import { validatingFetch } from "../support/validating-fetch.js";
import type { Era } from "../support/wire-schema.js";
import { WireValidator } from "../support/wire-schema.js";

const serve = useServe();
const cleanup = useCleanups();
const ERAS: Era[] = ["2026-07-28", "2025-11-25"];

const logged: string[] = [];
const logger = {
  warn: (message: string) => logged.push(`warn: ${message}`),
  error: (message: string) => logged.push(`error: ${message}`),
};

/** Tools whose results cannot be encoded; `streamed` reports progress first, so the answer is an SSE stream. */
function unencodableServer() {
  const circular: { [key: string]: unknown } = { name: "loop" };
  circular.self = circular;
  const results = {
    bigint: () => ({ content: [], structuredContent: { n: 1n } as unknown as JsonObject }),
    circular: () => ({ content: [], structuredContent: circular as JsonObject }),
  };
  return new ServerBuilder({ serverInfo: { name: "unencodable", version: "1.0.0" }, logger })
    .tool({ name: "result", inputSchema: { type: "object" } }, async (args, context) => {
      if (args.streamed === true) await context.progress(1, 2);
      return results[args.kind as keyof typeof results]();
    })
    .tool({ name: "ok", inputSchema: { type: "object" } }, () => ({
      content: [{ type: "text", text: "still serving" }],
    }))
    .build();
}

const UNENCODABLE = {
  code: -32603,
  message: "Response could not be encoded",
  data: { reason: "response_not_encodable" },
};

describe.each(ERAS)("an unencodable result over HTTP (%s)", (era) => {
  it.each([
    ["a BigInt, as JSON", "bigint", false],
    ["a cycle, as JSON", "circular", false],
    ["a BigInt, after progress on an SSE stream", "bigint", true],
    ["a cycle, after progress on an SSE stream", "circular", true],
  ])("%s: answered -32603 with its id, and the server goes on", async (_name, kind, streamed) => {
    const { url } = await serve(unencodableServer());
    const peer = new HttpPeer(url, era);
    if (era === "2025-11-25") expect((await peer.open()).status).toBe(200);
    logged.length = 0;
    const args = { name: "result", arguments: { kind, streamed } };
    // The progress token: in the per-request `_meta` (2026-07-28, added by the peer) or in params (2025-11-25).
    const call =
      era === "2026-07-28"
        ? peer.request("tools/call", args, { progressToken: "p" })
        : peer.request("tools/call", { ...args, _meta: { progressToken: "p" } });
    const reply = await peer.send(call);
    expect(reply.status).toBe(200);
    expect(reply.contentType).toMatch(streamed ? /^text\/event-stream/ : /^application\/json/);
    const last = reply.messages.at(-1) as JsonRpcMessage;
    expect(last).toEqual({ jsonrpc: "2.0", id: call.id, error: UNENCODABLE });
    if (streamed)
      expect(reply.messages.map((m) => ("method" in m ? m.method : "response"))).toEqual([
        "notifications/progress",
        "response",
      ]);
    expect(logged).toEqual(["error: a response could not be encoded"]);
    const next = await peer.send(peer.request("tools/call", { name: "ok", arguments: {} }));
    expect(next.messages.at(-1)).toMatchObject({ result: { content: [{ text: "still serving" }] } });
  });
});

/** The official clients, each with its own Streamable HTTP transport; every message is schema-checked. */
const OFFICIAL: [string, Era, (url: URL, fetch: typeof globalThis.fetch) => Promise<V1Client | V2Client>][] =
  [
    [
      "official v2 client, 2026-07-28",
      "2026-07-28",
      async (url, fetch) => {
        const client = new V2Client(
          { name: "official-v2", version: "2.4.0" },
          { versionNegotiation: { mode: { pin: "2026-07-28" } } },
        );
        await client.connect(new V2Transport(url, { fetch }));
        return client;
      },
    ],
    [
      "official v2 client, 2025-11-25",
      "2025-11-25",
      async (url, fetch) => {
        const client = new V2Client(
          { name: "official-v2", version: "2.4.0" },
          { versionNegotiation: { mode: "legacy" } },
        );
        await client.connect(new V2Transport(url, { fetch }));
        return client;
      },
    ],
    [
      "official v1 client, 2025-11-25",
      "2025-11-25",
      async (url, fetch) => {
        const client = new V1Client({ name: "official-v1", version: "1.32.2" });
        await client.connect(new V1Transport(url, { fetch }));
        return client;
      },
    ],
  ];

describe.each(OFFICIAL)("%s -> an unencodable result", (_title, era, connect) => {
  it("gets the -32603 error for its call, then goes on calling", async () => {
    const { url } = await serve(unencodableServer());
    const wire = validatingFetch(new WireValidator(era));
    const client = await connect(new URL(url), wire.fetch);
    cleanup(() => client.close());
    for (const kind of ["bigint", "circular"]) {
      const error = await rejection(client.callTool({ name: "result", arguments: { kind } }));
      expect(error).toMatchObject({
        code: -32603,
        message: expect.stringContaining("Response could not be encoded"),
      });
    }
    expect(textOf(await client.callTool({ name: "ok", arguments: {} }))).toBe("still serving");
    expect(wire.errors).toEqual([]);
  });
});
