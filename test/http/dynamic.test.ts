/**
 * A dynamic server over real HTTP on 127.0.0.1: changes reach a 2025-11-25 session's GET stream and a
 * 2026-07-28 listen stream as list_changed notifications, and the `subscriptionFilter` hook chooses (or refuses)
 * what a listen stream gets, with the request's identity. Every message is checked against its era's schema.
 */
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/index.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import type { DynamicServer } from "../../src/server/authoring/dynamic.js";
import type { ServerHandler } from "../../src/server/core/handler.js";
import { createServer, type Server } from "../../src/server/server.js";
import { HttpPeer, useServe } from "../support/http-peer.js";

const serve = useServe();
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const SUB = "io.modelcontextprotocol/subscriptionId";
const schema = { type: "object" } as const;

async function start(
  server: Server,
  era: typeof MODERN | typeof LEGACY,
  authenticate?: (r: Request) => unknown,
) {
  const handler = createHttpHandler(server, authenticate === undefined ? {} : { authenticate });
  const { url } = await serve(handler);
  return new HttpPeer(url, era);
}

function dynamic(): DynamicServer {
  return new ServerBuilder({ serverInfo: { name: "dynamic", version: "1.0.0" } }).buildDynamic();
}

describe("a dynamic server over HTTP", () => {
  it("sends list_changed on a 2025-11-25 session's GET stream after each change", async () => {
    const server = dynamic();
    const peer = await start(server, LEGACY);
    await peer.open();
    const headers = {
      accept: "text/event-stream",
      "mcp-protocol-version": LEGACY,
      "mcp-session-id": peer.sessionId ?? "",
    };
    const { events } = await peer.stream(undefined, { method: "GET", headers }).response;
    expect(await events.next()).toEqual({ comment: "stream open" });
    const tool = server.tools.add({ name: "t", inputSchema: schema }, () => ({ content: [] }));
    expect((await events.next())?.message).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
    });
    server.resourceTemplates.add({ uriTemplate: "t://{id}", name: "t" }, () => ({ contents: [] }));
    expect((await events.next())?.message).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/list_changed",
    });
    tool.remove();
    expect((await events.next())?.message).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
    });
    const listed = await peer.send(peer.request("tools/list"));
    expect(listed.messages.at(-1)).toMatchObject({ result: { tools: [] } });
    await server.close();
  });

  it("sends list_changed on a 2026-07-28 listen stream whose filter took the family", async () => {
    const server = dynamic();
    const peer = await start(server, MODERN);
    const message = peer.request("subscriptions/listen", { notifications: { promptsListChanged: true } });
    const { events } = await peer.stream(message).response;
    await events.next();
    server.tools.add({ name: "t", inputSchema: schema }, () => ({ content: [] }));
    server.prompts.add({ name: "p" }, () => ({ messages: [] })).disable();
    expect((await events.next())?.message).toEqual({
      jsonrpc: "2.0",
      method: "notifications/prompts/list_changed",
      params: { _meta: { [SUB]: message.id } },
    });
    await server.close();
  });
});

describe("the subscriptionFilter hook over HTTP", () => {
  function filtered(subscriptionFilter: NonNullable<ServerHandler["subscriptionFilter"]>) {
    return createServer({
      serverInfo: { name: "filter", version: "1.0.0" },
      handler: { listTools: () => ({ tools: [] }), callTool: () => ({ content: [] }), subscriptionFilter },
      listChanged: { tools: true },
      logger: { warn: () => {}, error: () => {} },
    });
  }

  it("acknowledges the subset it chose for the request's identity", async () => {
    const seen: unknown[] = [];
    const server = filtered(({ honourable }, context) => {
      seen.push(context.identity);
      return context.identity === undefined ? {} : honourable;
    });
    const peer = await start(server, MODERN, (request) => {
      const user = request.headers.get("x-user");
      return user === null ? undefined : { principal: user };
    });
    const ask = () => peer.request("subscriptions/listen", { notifications: { toolsListChanged: true } });
    const anonymous = await peer.stream(ask()).response;
    expect((await anonymous.events.next())?.message).toMatchObject({ params: { notifications: {} } });
    const named = await peer.stream(ask(), { headers: { "x-user": "ada" } }).response;
    expect((await named.events.next())?.message).toMatchObject({
      params: { notifications: { toolsListChanged: true } },
    });
    expect(seen).toEqual([undefined, { principal: "ada" }]);
    await server.close();
  });

  it("answers a refusal with its JSON-RPC error: the hook's own (400 for -32602), or -32603 for a filter outside", async () => {
    let answer: () => unknown = () => ({ promptsListChanged: true });
    const server = filtered(() => answer() as never);
    const peer = await start(server, MODERN);
    const ask = () => peer.request("subscriptions/listen", { notifications: { toolsListChanged: true } });
    const outside = await peer.send(ask());
    expect([outside.status, outside.contentType]).toEqual([200, "application/json"]);
    expect(outside.messages[0]).toMatchObject({ error: { code: -32603, message: "Internal error" } });
    answer = () => {
      throw new (class extends Error {})("boom");
    };
    expect((await peer.send(ask())).messages[0]).toMatchObject({ error: { code: -32603 } });
    answer = () => {
      throw new JsonRpcError(-32602, "Invalid params: no");
    };
    const refused = await peer.send(ask());
    expect(refused.status).toBe(400);
    expect(refused.messages[0]).toMatchObject({ error: { code: -32602, message: "Invalid params: no" } });
    expect(server.subscriptionCount).toBe(0);
    await server.close();
  });
});
