/**
 * `toNodeHandler` under Express 5 and Fastify, over real HTTP on 127.0.0.1: behind `express.json()` (the body is
 * read already: `req.body` is used), without it, behind other parsers, and under Fastify with its parsed
 * `request.body` passed along. Driven by the mcpkit client in both eras and the official v2 client in both
 * eras, every message schema-checked; a body a middleware consumed without a usable trace is a clear 500.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import express from "express";
import Fastify, { type FastifyInstance } from "fastify";
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import type { HttpHandlerOptions } from "../../src/http/server/options.js";
import { toNodeHandler } from "../../src/node/adapter.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { HttpPeer, modernMeta, raw, rawOpen, readReply } from "../support/http-peer.js";
import { listenOnLoopback, textOf, useCleanups } from "../support/interop-helpers.js";
import { until } from "../support/until.js";
import { validatingFetch } from "../support/validating-fetch.js";
import { WireValidator } from "../support/wire-schema.js";

const cleanup = useCleanups();
const ERAS = ["2026-07-28", "2025-11-25"] as const;
/** Non-ASCII and a nested object: what crosses a parse and a re-encode must arrive unchanged. */
const ARGS = { text: 'héllo ✓ \u2028 "quoted"', nested: { list: [1, 2.5, null, true] } };

/** What the server logged (only the request cut mid-body logs anything). */
const logged: string[] = [];
const server = new ServerBuilder({
  serverInfo: { name: "frameworks", version: "1.0.0" },
  logger: {
    warn: (message) => logged.push(message),
    error: (message) => logged.push(message),
    debug: (message) => logged.push(`debug: ${message}`),
  },
})
  .tool({ name: "echo", inputSchema: { type: "object" } }, (args) => ({
    content: [{ type: "text", text: JSON.stringify(args) }],
  }))
  .build();

function mcpHandler(options: HttpHandlerOptions = {}) {
  const handler = createHttpHandler(server, options);
  cleanup(() => handler.close());
  return handler;
}

/** Serves an Express app on 127.0.0.1; resolves with its /mcp URL. */
async function serveExpress(app: express.Express): Promise<string> {
  const port = await listenOnLoopback(createServer(app), cleanup);
  return `http://127.0.0.1:${port}/mcp`;
}

async function serveFastify(app: FastifyInstance): Promise<string> {
  cleanup(() => app.close());
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return `http://127.0.0.1:${address.port}/mcp`;
}

/** The mcpkit client and the official v2 client, each in both eras, call `echo` through `url`. */
async function bothClientsBothEras(url: string): Promise<void> {
  for (const era of ERAS) {
    const wire = validatingFetch(new WireValidator(era));
    const client = new Client({
      transport: new StreamableHttpClientTransport({ url, fetch: wire.fetch }),
      clientInfo: { name: "frameworks-mcpkit", version: "1.0.0" },
      protocolVersion: era,
    });
    expect((await client.connect()).protocolVersion).toBe(era);
    expect(JSON.parse(textOf(await client.callTool("echo", ARGS)) ?? "")).toEqual(ARGS);
    await client.close();
    // The client aborts its legacy GET stream with its CLOSED reason on close(): not a wire error.
    expect(wire.errors.filter((error) => (error as { code?: unknown }).code !== "CLOSED")).toEqual([]);

    const official = validatingFetch(new WireValidator(era));
    const mode = era === "2026-07-28" ? { pin: era } : ("legacy" as const);
    const v2 = new V2Client(
      { name: "frameworks-official", version: "2.4.0" },
      { versionNegotiation: { mode } },
    );
    await v2.connect(new V2Transport(new URL(url), { fetch: official.fetch }));
    expect(v2.getNegotiatedProtocolVersion()).toBe(era);
    const result = await v2.callTool({ name: "echo", arguments: ARGS });
    expect(JSON.parse(textOf(result) ?? "")).toEqual(ARGS);
    await v2.close();
    expect(official.errors).toEqual([]);
  }
  expect(logged).toEqual([]);
}

/** One raw 2026 tools/call POST with `body` as its bytes (default: the request as JSON). */
async function post(
  url: string,
  args: { [key: string]: unknown } = ARGS,
  headers: { [name: string]: string } = {},
) {
  const peer = new HttpPeer(url, "2026-07-28");
  const message = {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "echo", arguments: args, _meta: modernMeta() },
  };
  return raw(url, {
    method: "POST",
    headers: { ...peer.headersFor(message), ...headers },
    body: JSON.stringify(message),
  });
}

describe("Express 5", () => {
  it("behind express.json(): the parsed req.body is used (the observed hang)", async () => {
    const app = express();
    app.use(express.json());
    app.all("/mcp", toNodeHandler(mcpHandler()));
    await bothClientsBothEras(await serveExpress(app));
  });

  it("without a body parser: the stream is read as usual", async () => {
    const app = express();
    app.all("/mcp", toNodeHandler(mcpHandler()));
    await bothClientsBothEras(await serveExpress(app));
  });

  it("mounted before express.json(): the parser never sees the MCP route", async () => {
    const app = express();
    app.all("/mcp", toNodeHandler(mcpHandler()));
    app.use(express.json());
    await bothClientsBothEras(await serveExpress(app));
  });

  it("behind express.text() or express.raw() for JSON: the string or Buffer is the body", async () => {
    for (const parser of [
      express.text({ type: "application/json" }),
      express.raw({ type: "application/json" }),
    ]) {
      const app = express();
      app.use(parser);
      app.all("/mcp", toNodeHandler(mcpHandler()));
      const reply = await post(await serveExpress(app));
      expect(reply.status).toBe(200);
      expect(reply.messages[0]).toMatchObject({
        id: 7,
        result: { content: [{ text: JSON.stringify(ARGS) }] },
      });
    }
  });

  it("a parsed body is held to maxBodyBytes once encoded again: 413", async () => {
    const app = express();
    app.use(express.json());
    app.all("/mcp", toNodeHandler(mcpHandler({ maxBodyBytes: 2_000 })));
    const url = await serveExpress(app);
    const big = await post(url, { text: "x".repeat(3_000) });
    expect(big.status).toBe(413);
    expect(big.messages[0]).toMatchObject({
      error: {
        code: -32600,
        message: expect.stringMatching(/^Request body too large: \d+ bytes, over maxBodyBytes \(2000\)$/),
        data: { option: "maxBodyBytes", limit: 2_000 },
      },
    });
    // Multi-byte characters count as their UTF-8 bytes: 700 × "✓" is 2,100 bytes, 700 characters.
    expect((await post(url, { text: "✓".repeat(700) })).status).toBe(413);
    expect((await post(url, { text: "✓".repeat(100) })).status).toBe(200);
  });

  it("the encoded size counts, not the size the client declared", async () => {
    const app = express();
    app.use(express.json());
    // A middleware that grows the parsed message past the limit after the small body was read.
    app.use((req, _res, next) => {
      req.body.params.arguments.padding = "x".repeat(3_000);
      next();
    });
    app.all("/mcp", toNodeHandler(mcpHandler({ maxBodyBytes: 2_000 })));
    const reply = await post(await serveExpress(app), { text: "small" });
    expect(reply.status).toBe(413);
    expect(reply.messages[0]).toMatchObject({ error: { code: -32600, data: { limit: 2_000 } } });
  });

  it("a body a middleware consumed and left unusable: 500 -32603 saying why and how to fix it", async () => {
    const consumers: Array<[string, express.RequestHandler]> = [
      ["a urlencoded parser for every type", express.urlencoded({ type: "*/*", extended: false })],
      [
        "a middleware that reads the stream and keeps nothing",
        (req, _res, next) => {
          req.on("data", () => {});
          req.on("end", () => next());
        },
      ],
    ];
    for (const [, consumer] of consumers) {
      const app = express();
      app.use(consumer);
      app.all("/mcp", toNodeHandler(mcpHandler()));
      const reply = await post(await serveExpress(app));
      expect(reply.status).toBe(500);
      expect(reply.messages[0]).toMatchObject({
        jsonrpc: "2.0",
        error: {
          code: -32603,
          message: expect.stringContaining("a middleware read the request body before the MCP handler"),
          data: { reason: "body_consumed" },
        },
      });
      expect((reply.messages[0] as unknown as { error: { message: string } }).error.message).toContain(
        "express.json()",
      );
    }
  });

  it("a middleware that paused the stream does not stall the handler", async () => {
    const app = express();
    app.use((req, _res, next) => {
      req.pause();
      next();
    });
    app.all("/mcp", toNodeHandler(mcpHandler()));
    expect((await post(await serveExpress(app))).status).toBe(200);
  });

  it("any fetch-style handler gets the parsed body too, or a 500 when none is left", async () => {
    const echoBody = toNodeHandler(async (request) => new Response(await request.text()));
    const app = express();
    app.use("/json", express.json());
    app.use("/form", express.urlencoded({ type: "*/*", extended: false }));
    app.all(["/json", "/form"], echoBody);
    const port = await listenOnLoopback(createServer(app), cleanup);
    const body = JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: { a: "✓" } });
    const headers = { "content-type": "application/json" };
    const json = await raw(`http://127.0.0.1:${port}/json`, { method: "POST", headers, body });
    expect(json).toMatchObject({ status: 200, text: body });
    const form = await raw(`http://127.0.0.1:${port}/form`, { method: "POST", headers, body });
    expect(form.status).toBe(500);
    expect(form.text).toContain("a middleware read the request body");
  });
});

describe("a body that never ends", () => {
  it("is cut by node:http's requestTimeout (300 s by default): the listener settles, nothing waits forever", async () => {
    const listener = toNodeHandler(mcpHandler());
    const settled: Promise<void>[] = [];
    // A short timeout, checked often, so that the test does not wait 300 s; nothing here measures time.
    const httpServer = createServer({ requestTimeout: 200, connectionsCheckingInterval: 20 }, (req, res) => {
      settled.push(listener(req, res));
    });
    const port = await listenOnLoopback(httpServer, cleanup);
    const { request, response } = rawOpen(`http://127.0.0.1:${port}/mcp`, {
      headers: { "content-type": "application/json", "content-length": "1000", accept: "application/json" },
      body: [new TextEncoder().encode('{"jsonrpc":"2.0",')],
    });
    // rawOpen ends chunked bodies; this one must stay open: the declared length is never reached.
    const reply = await readReply(await response).catch(() => undefined);
    expect(reply === undefined || reply.status === 408).toBe(true);
    request.destroy();
    await until(() => settled.length === 1);
    await settled[0];
    // The body read failed when the connection was cut (an ordinary disconnect: debug), and nothing waits on.
    expect(logged.splice(0)).toEqual(["debug: a client went away during its upload"]);
  });
});

describe("Fastify", () => {
  it("hijacked, with request.body passed as the third argument (the recommended mount)", async () => {
    const app = Fastify({ forceCloseConnections: true });
    const listener = toNodeHandler(mcpHandler());
    app.all("/mcp", (request, reply) => {
      reply.hijack();
      return listener(request.raw, reply.raw, request.body);
    });
    await bothClientsBothEras(await serveFastify(app));
  });

  it("a parsed body past maxBodyBytes is 413, as with any body", async () => {
    const app = Fastify({ forceCloseConnections: true });
    const listener = toNodeHandler(mcpHandler({ maxBodyBytes: 2_000 }));
    app.post("/mcp", (request, reply) => {
      reply.hijack();
      return listener(request.raw, reply.raw, request.body);
    });
    const reply = await post(await serveFastify(app), { text: "x".repeat(3_000) });
    expect(reply.status).toBe(413);
  });

  it("without the body, the consumed stream is a 500 that says so, not a hang", async () => {
    const app = Fastify({ forceCloseConnections: true });
    const listener = toNodeHandler(mcpHandler());
    app.post("/mcp", (request, reply) => {
      reply.hijack();
      return listener(request.raw, reply.raw);
    });
    const reply = await post(await serveFastify(app));
    expect(reply.status).toBe(500);
    expect(reply.messages[0]).toMatchObject({ error: { code: -32603, data: { reason: "body_consumed" } } });
  });
});

// Type check: the listener mounts where a node:http listener goes.
const _listenerType: (req: IncomingMessage, res: ServerResponse) => Promise<void> = toNodeHandler(
  () => new Response(null),
);
void _listenerType;
