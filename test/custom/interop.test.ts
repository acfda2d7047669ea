/**
 * Interop of the custom surface with the official v2 SDK, both eras:
 * - the official v2 client (`@modelcontextprotocol/client`) calling mcpkit's custom methods and sending its
 *   custom notifications, in-process (a validating pair) and over Streamable HTTP on 127.0.0.1 (a validating
 *   fetch);
 * - mcpkit's client calling an official v2 server's `setRequestHandler` method, notifying its
 *   `setNotificationHandler`, and taking the custom notification (and, in 2025-11-25, the custom request) the
 *   official handler sends back. The official server is served dual-era by `serveStdio(factory, { transport })`
 *   over the official in-memory pair; the mcpkit side is wrapped in a validating transport.
 */
import {
  ProtocolError,
  StreamableHTTPClientTransport,
  Client as V2Client,
} from "@modelcontextprotocol/client";
import { InMemoryTransport, Server as V2Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { Client } from "../../src/client/client.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { customServer } from "../support/custom-server.js";
import { useServe } from "../support/http-peer.js";
import { LEGACY, MODERN, rejection, useCleanups } from "../support/interop-helpers.js";
import { fromOfficialTransport, toOfficialTransport } from "../support/official-bridge.js";
import { until } from "../support/until.js";
import { validatingFetch } from "../support/validating-fetch.js";
import {
  useWireValidation,
  validatingPair,
  WireValidator,
  wrapTransport,
} from "../support/validating-transport.js";

useWireValidation();
const cleanup = useCleanups();
const serve = useServe();

type Era = typeof MODERN | typeof LEGACY;
const ANY_RESULT = z.looseObject({});

function officialClient(era: Era): V2Client {
  const mode = era === MODERN ? { pin: MODERN } : "legacy";
  const client = new V2Client({ name: "official-v2", version: "2.4.0" }, { versionNegotiation: { mode } });
  cleanup(() => client.close());
  return client;
}

/** `missingCode`: what the client makes of -32601 (over HTTP 2026 it is a 404, which v2 reads as its own code). */
async function officialCases(
  client: V2Client,
  seen: { method: string }[],
  era: Era,
  missingCode: number | string = -32601,
): Promise<void> {
  const echo = await client.request({ method: "acme/echo", params: { x: 1 } }, ANY_RESULT);
  expect(echo).toMatchObject({ params: { x: 1 }, era, method: "acme/echo" });
  const hits = await client.request({ method: "search/query", params: { q: "mcp" } }, ANY_RESULT);
  expect(hits).toMatchObject({ hits: ["mcp"] });
  const bad = await rejection(client.request({ method: "search/query", params: { q: 1 } }, ANY_RESULT));
  expect(bad).toBeInstanceOf(ProtocolError);
  expect((bad as ProtocolError).code).toBe(-32602);
  const missing = await rejection(client.request({ method: "nope/none", params: {} }, ANY_RESULT));
  expect((missing as ProtocolError).code).toBe(missingCode);
  await client.notification({ method: "acme/seen", params: { from: "official" } });
  await until(() => seen.length > 0);
  expect(seen[0]).toMatchObject({ method: "acme/seen", params: { from: "official" }, era });
}

describe.each([MODERN, LEGACY] as const)("official v2 client -> mcpkit custom methods, %s", (era) => {
  it("in-process: calls custom methods and sends a custom notification", async () => {
    const { server, seen } = customServer();
    const pair = validatingPair({ era });
    await server.connect(pair.server);
    cleanup(() => server.close());
    const client = officialClient(era);
    await client.connect(toOfficialTransport(pair.client));
    await officialCases(client, seen, era);
    expect(pair.errors).toEqual([]);
  });

  it("over HTTP: the same, with its own routing headers", async () => {
    const { server, seen } = customServer();
    const handler = createHttpHandler(server);
    const { url } = await serve(handler);
    cleanup(() => handler.close());
    const wire = validatingFetch(new WireValidator(era));
    const client = officialClient(era);
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: wire.fetch }));
    await officialCases(client, seen, era, era === MODERN ? "CLIENT_HTTP_NOT_IMPLEMENTED" : -32601);
    const posted = wire.exchanges.find((e) => e.sent && "method" in e.sent && e.sent.method === "acme/echo");
    if (era === MODERN) expect(posted?.headers["mcp-method"]).toBe("acme/echo");
    expect(posted?.headers).not.toHaveProperty("mcp-name");
    expect(wire.errors).toEqual([]);
  });
});

/** An official v2 low-level server with custom methods registered by `setRequestHandler`. */
function officialServer(seen: unknown[]): V2Server {
  const server = new V2Server({ name: "official-v2", version: "2.4.0" }, { capabilities: {} });
  server.setRequestHandler("acme/echo", { params: z.object({ x: z.number() }) }, async (params, ctx) => {
    await ctx.mcpReq.notify({ method: "acme/event", params: { n: params.x } });
    return { echo: params.x };
  });
  server.setRequestHandler("acme/ask", { params: z.object({}) }, async (_params, ctx) => {
    const answer = await ctx.mcpReq.send({ method: "acme/question", params: { text: "hi" } }, ANY_RESULT);
    return { answer };
  });
  server.setNotificationHandler("acme/seen", { params: z.object({ id: z.string() }) }, (params) => {
    seen.push(params);
  });
  return server;
}

describe.each([MODERN, LEGACY] as const)("mcpkit client -> official v2 setRequestHandler, %s", (era) => {
  async function connect(options: ConstructorParameters<typeof Client>[0]["requestHandlers"] = {}) {
    const seen: unknown[] = [];
    const events: unknown[] = [];
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const handle = serveStdio(() => officialServer(seen), { transport: serverSide });
    cleanup(() => handle.close());
    const client = new Client({
      transport: wrapTransport(fromOfficialTransport(clientSide), "client", new WireValidator(era)),
      clientInfo: { name: "mcpkit", version: "1.0.0" },
      protocolVersion: era,
      logger: { warn: () => {} },
      requestHandlers: options,
      notificationHandlers: {
        "acme/event": (params) => {
          events.push(params);
        },
      },
    });
    cleanup(() => client.close());
    await client.connect();
    return { client, seen, events };
  }

  it("calls the custom method, gets its notification, and notifies its custom handler", async () => {
    const { client, seen, events } = await connect();
    const result = await client.request("acme/echo", { x: 7 });
    expect(result).toMatchObject({ echo: 7 });
    if (era === MODERN) expect(result.resultType).toBe("complete");
    await until(() => events.length > 0);
    expect(events).toEqual([{ n: 7 }]);
    const bad = await rejection(client.request("acme/echo", { x: "seven" }));
    expect((bad as { code?: number }).code).toBe(-32602);
    await client.notify("acme/seen", { id: "a1" });
    await until(() => seen.length > 0);
    expect(seen).toEqual([{ id: "a1" }]);
  });

  if (era === LEGACY) {
    it("answers the official server's custom request with requestHandlers", async () => {
      const { client } = await connect({ "acme/question": ({ text }) => ({ reply: `${String(text)}!` }) });
      expect(await client.request("acme/ask", {})).toMatchObject({ answer: { reply: "hi!" } });
    });
  }
});
