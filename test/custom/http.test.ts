/**
 * The custom protocol surface over Streamable HTTP on 127.0.0.1 (mcpkit/node `serve`), both eras: the shared
 * cases with mcpkit's HTTP client (every message checked against the official schema of its era), then the
 * 2026 pipeline for a custom method with a raw peer: `Mcp-Method` required and checked, no `Mcp-Name` asked
 * for, `_meta` checks, -32601 for an unserved method as 404, a custom notification accepted with 202.
 */
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import type { Server } from "../../src/server/server.js";
import { httpClient } from "../http-client/helpers.js";
import { type CustomHarness, customCases } from "../support/custom-cases.js";
import { customServer } from "../support/custom-server.js";
import { HttpPeer, type Reply, useServe } from "../support/http-peer.js";
import { LEGACY, MODERN, useCleanups } from "../support/interop-helpers.js";
import { until } from "../support/until.js";
import { useWireValidation } from "../support/validating-transport.js";

useWireValidation();
const cleanup = useCleanups();
const serve = useServe();

async function start(server: Server): Promise<string> {
  const handler = createHttpHandler(server);
  const running = await serve(handler);
  cleanup(() => handler.close());
  return running.url;
}

const harness: CustomHarness = {
  async connect(era, options = {}) {
    const url = await start(customServer(options.server).server);
    const { client } = httpClient(url, {
      era,
      pin: era,
      cleanup,
      ...(options.client ? { client: options.client } : {}),
    });
    await client.connect();
    return client;
  },
};

describe.each([MODERN, LEGACY] as const)("custom methods over HTTP, %s", (era) => {
  customCases(harness, era);
});

function expectError(reply: Reply, status: number, code: number): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.messages[0]).toMatchObject({ error: { code } });
}

describe("2026-07-28 HTTP pipeline for custom methods", () => {
  it("requires Mcp-Method equal to the custom method; asks for no Mcp-Name", async () => {
    const peer = new HttpPeer(await start(customServer().server), MODERN);
    const request = () => peer.request("acme/echo", { name: "not routed" });
    expectError(await peer.send(request(), { headers: { "mcp-method": undefined } }), 400, -32020);
    expectError(await peer.send(request(), { headers: { "mcp-method": "acme/other" } }), 400, -32020);
    expectError(await peer.send(request(), { headers: { "mcp-method": "ACME/ECHO" } }), 400, -32020);
    const sent = request();
    expect(peer.headersFor(sent)).not.toHaveProperty("Mcp-Name");
    const ok = await peer.send(sent);
    expect(ok.status).toBe(200);
    expect(ok.messages.at(-1)).toMatchObject({
      id: sent.id,
      result: { resultType: "complete", params: { name: "not routed" } },
    });
  });

  it("checks _meta and the version header as for core methods, and answers an unserved method with 404", async () => {
    const peer = new HttpPeer(await start(customServer().server), MODERN);
    const bare = { jsonrpc: "2.0" as const, id: 7, method: "acme/echo", params: {} };
    expectError(await peer.send(bare, { validate: false }), 400, -32602);
    const request = peer.request("acme/echo");
    expectError(await peer.send(request, { headers: { "mcp-protocol-version": undefined } }), 400, -32020);
    expectError(await peer.send(peer.request("nope/none")), 404, -32601);
    expectError(await peer.send(peer.request("legacy/hello")), 404, -32601);
    const hello = await peer.send(peer.request("modern/hello"));
    expect(hello.messages.at(-1)).toMatchObject({ result: { era: MODERN } });
  });

  it("routes a non-ASCII custom method in a base64 Mcp-Method", async () => {
    const server = new ServerBuilder({ serverInfo: { name: "u", version: "1" } })
      .request("acme/café", () => ({ ok: true }))
      .build();
    const peer = new HttpPeer(await start(server), MODERN);
    const request = peer.request("acme/café");
    expect(peer.headersFor(request)["Mcp-Method"]).toBe("=?base64?YWNtZS9jYWbDqQ==?=");
    const reply = await peer.send(request);
    expect(reply.messages.at(-1)).toMatchObject({ result: { ok: true } });
    expectError(
      await peer.send(peer.request("acme/café"), { headers: { "mcp-method": "acme/cafe" } }),
      400,
      -32020,
    );
  });

  it("accepts a custom notification with 202 and runs its handler", async () => {
    const { server, seen } = customServer();
    const peer = new HttpPeer(await start(server), MODERN);
    const notification = { jsonrpc: "2.0" as const, method: "acme/seen", params: { z: 1 } };
    const reply = await peer.send(notification);
    expect(reply.status).toBe(202);
    await until(() => seen.length > 0);
    expect(seen).toEqual([{ method: "acme/seen", params: { z: 1 }, era: MODERN }]);
  });
});
