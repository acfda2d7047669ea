/**
 * The Hono example (examples/hono-server.ts): the same mcpkit handler under Hono, first through `app.fetch`
 * (no network, as on Workers or Bun), then over real HTTP on 127.0.0.1 through `serve()`, with the official v2
 * client in both eras. Identity comes from Hono's middleware.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { app, main, mcp } from "../../examples/hono-server.js";
import { HttpPeer, modernMeta } from "../support/http-peer.js";
import { textOf, useCleanups } from "../support/interop-helpers.js";
import { validatingFetch } from "../support/validating-fetch.js";
import { WireValidator } from "../support/wire-schema.js";

const cleanup = useCleanups();

describe("examples/hono-server.ts", () => {
  it("serves MCP through app.fetch, with the middleware's identity", async () => {
    const peer = new HttpPeer("http://127.0.0.1:8787/mcp", "2026-07-28");
    const message = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "whoami", arguments: {}, _meta: modernMeta() },
    };
    const headers = {
      ...peer.headersFor(message),
      host: "127.0.0.1:8787",
      authorization: "Bearer demo-token",
    };
    const response = await app.fetch(
      new Request("http://127.0.0.1:8787/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const messages = [await response.json()];
    peer.validator.check(message, "client");
    for (const received of messages) peer.validator.check(received, "server");
    expect(messages).toMatchObject([{ id: 1, result: { content: [{ text: "hello ada (2026-07-28)" }] } }]);

    const refused = await app.fetch(
      new Request("http://127.0.0.1:8787/mcp", {
        method: "POST",
        headers: { ...headers, authorization: "" },
        body: "{}",
      }),
    );
    expect(refused.status).toBe(401);
    const get = await app.fetch(
      new Request("http://127.0.0.1:8787/mcp", {
        method: "GET",
        headers: { authorization: "Bearer demo-token" },
      }),
    );
    expect(get.status).toBe(405);
  });

  it("serves the official v2 client in both eras over HTTP through serve(), every message schema-checked", async () => {
    const { url, close } = await main();
    cleanup(close);
    for (const [era, mode] of [
      ["2026-07-28", { pin: "2026-07-28" }],
      ["2025-11-25", "legacy"],
    ] as const) {
      const wire = validatingFetch(new WireValidator(era));
      const client = new Client({ name: "hono-test", version: "1.0.0" }, { versionNegotiation: { mode } });
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        fetch: wire.fetch,
        requestInit: { headers: { authorization: "Bearer demo-token" } },
      });
      await client.connect(transport);
      const result = await client.callTool({ name: "whoami", arguments: {} });
      expect(textOf(result)).toBe(`hello ada (${era})`);
      await client.close();
      expect(wire.errors).toEqual([]);
    }
    expect(mcp.sessionCount).toBeLessThanOrEqual(1);
  });
});
