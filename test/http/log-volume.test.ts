/**
 * What remote peers can make an HTTP server log, over real HTTP on 127.0.0.1: an aborted upload is an ordinary
 * disconnect (one debug line, no stack), and repeated lines of one kind are rate-limited. The interval here is an
 * hour, so that nothing in a test run ends it: the counts do not depend on how fast the machine is.
 */

import { createServer } from "node:http";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { toNodeHandler } from "../../src/node/adapter.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { HttpPeer } from "../support/http-peer.js";
import { listenOnLoopback, useCleanups } from "../support/interop-helpers.js";
import { until } from "../support/until.js";

const cleanup = useCleanups();
const HOUR = 3_600_000;

interface Line {
  level: string;
  message: string;
  details: unknown;
}

function loggedServer() {
  const lines: Line[] = [];
  const at = (level: string) => (message: string, details?: unknown) =>
    lines.push({ level, message, details });
  const server = new ServerBuilder({
    serverInfo: { name: "logs", version: "1.0.0" },
    logger: { warn: at("warn"), error: at("error"), debug: at("debug") },
    logIntervalMs: HOUR,
  })
    .tool({ name: "echo", inputSchema: { type: "object" } }, () => ({ content: [] }))
    .tool({ name: "slow", inputSchema: { type: "object" } }, async (_args, context) => {
      await context.progress(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await context.progress(2);
      return { content: [] };
    })
    .build();
  return { server, lines };
}

/** Serves `handler` on 127.0.0.1, counting the requests the listener has finished with. */
async function listen(handler: ReturnType<typeof createHttpHandler>) {
  const listener = toNodeHandler(handler);
  const settled: Promise<void>[] = [];
  const httpServer = createServer((req, res) => {
    settled.push(listener(req, res));
  });
  const port = await listenOnLoopback(httpServer, cleanup);
  return { port, settled };
}

/** Sends a POST head and part of its body, then resets the connection. */
function abortUpload(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
          'Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":',
        () => {
          socket.resetAndDestroy();
          resolve();
        },
      );
    });
    socket.on("error", reject);
  });
}

describe("HTTP server log volume", () => {
  it("logs 200 aborted uploads as one debug line without a stack, and nothing at warn or error", async () => {
    const { server, lines } = loggedServer();
    const { port, settled } = await listen(createHttpHandler(server));
    for (let i = 0; i < 200; i++) await abortUpload(port);
    await until(() => settled.length === 200);
    await Promise.all(settled);
    expect(lines).toEqual([
      {
        level: "debug",
        message: "a client went away during its upload",
        details: { reason: expect.any(String) },
      },
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/\bat .*:\d+:\d+/);
  });

  it("answers a Web Request whose body stream fails with 400, logged at debug", async () => {
    const { server, lines } = loggedServer();
    const handler = createHttpHandler(server);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"jsonrpc":'));
        controller.error(new Error("the connection was reset"));
      },
    });
    const request = new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body,
      duplex: "half",
    } as RequestInit);
    const response = await handler(request);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32600 } });
    expect(lines).toEqual([
      {
        level: "debug",
        message: "a client went away during its upload",
        details: { reason: "the connection was reset" },
      },
    ]);
  });

  it("logs one of 1,000 unsolicited responses posted to a 2025-11-25 session", async () => {
    const { server, lines } = loggedServer();
    const { port } = await listen(createHttpHandler(server));
    const peer = new HttpPeer(`http://127.0.0.1:${port}/mcp`, "2025-11-25");
    await peer.open();
    for (let id = 1; id <= 1_000; id++) {
      const reply = await peer.send({ jsonrpc: "2.0", id, result: {} });
      expect(reply.status).toBe(202);
    }
    expect(lines).toEqual([
      { level: "warn", message: "dropped a response to no request", details: { id: 1 } },
    ]);
  });

  it("logs nothing when clients go away mid-answer, in either era", async () => {
    const { server, lines } = loggedServer();
    const handler = createHttpHandler(server);
    const { port, settled } = await listen(handler);
    const url = `http://127.0.0.1:${port}/mcp`;
    const modern = new HttpPeer(url, "2026-07-28");
    const legacy = new HttpPeer(url, "2025-11-25");
    await legacy.open();
    const streams = [
      modern.stream(modern.request("tools/call", { name: "slow", arguments: {} }, { progressToken: 1 })),
      legacy.stream(
        legacy.request("tools/call", { name: "slow", arguments: {}, _meta: { progressToken: 2 } }),
      ),
      legacy.stream(undefined, {
        method: "GET",
        headers: {
          accept: "text/event-stream",
          "mcp-protocol-version": "2025-11-25",
          "mcp-session-id": legacy.sessionId,
        },
      }),
    ];
    for (const { request, response } of streams) {
      const { res } = await response;
      expect(res.statusCode).toBe(200);
      request.destroy();
    }
    await until(() => settled.length === 5);
    await Promise.all(settled);
    // The handlers end on their own; their late answers have nowhere to go.
    await until(() => server.runningHandlers === 0);
    expect(lines).toEqual([]);
  });
});
