import { readFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, createServer as createTcpServer, type Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { json, MODERN, modern, recordingLogger, scripted, sse } from "../../test/http-client/helpers.js";
import { fixtureServer } from "../../test/support/fixture-server.js";
import { listenOnLoopback, rejection, useCleanups } from "../../test/support/interop-helpers.js";
import { until } from "../../test/support/until.js";
import { Client } from "../client/client.js";
import { StreamableHttpClientTransport } from "../http/index.js";
import { createHttpHandler } from "../http/server/handler.js";
import { toNodeHandler } from "./adapter.js";
import { nodeHttp } from "./http-client.js";

const cleanup = useCleanups();
const TLS_DIR = new URL("../../test/fixtures/tls/", import.meta.url);
const TLS = {
  key: readFileSync(new URL("key.pem", TLS_DIR)),
  cert: readFileSync(new URL("cert.pem", TLS_DIR)),
};
const INFO = { name: "node-http-test", version: "1.0.0" };

/** The TCP sockets this process holds open. */
const tcpSockets = () => process.getActiveResourcesInfo().filter((name) => name === "TCPSocketWrap").length;

/** A 2026 peer that answers discover and answers every call with `onCall`. */
function modernPeer(onCall: (body: { id?: unknown }, res: import("node:http").ServerResponse) => void) {
  return scripted((req, res) => {
    if (req.body.method === "server/discover") return json(res, 200, modern.discover(req.body.id));
    return onCall(req.body, res);
  }, cleanup);
}

/** A client on `nodeHttp()` to `url`, closed after the test. */
function nodeClient(
  url: string,
  transport: Partial<ConstructorParameters<typeof StreamableHttpClientTransport>[0]> = {},
) {
  const logger = recordingLogger();
  const client = new Client({
    transport: new StreamableHttpClientTransport({ url, http: nodeHttp(), logger, ...transport }),
    clientInfo: INFO,
    logger,
  });
  cleanup(() => client.close());
  return client;
}

/** An https server on 127.0.0.1 (the test certificate) serving mcpkit's fixture server. */
async function httpsServer(): Promise<string> {
  const handler = createHttpHandler(fixtureServer());
  cleanup(() => handler.close());
  const port = await listenOnLoopback(createHttpsServer(TLS, toNodeHandler(handler)), cleanup);
  return `https://127.0.0.1:${port}/mcp`;
}

describe("nodeHttp", () => {
  it("runs sequential calls on one keep-alive connection, and close() leaves no socket open", async () => {
    const before = tcpSockets();
    const peer = await modernPeer((body, res) => json(res, 200, modern.text(body.id, "ok")));
    const client = nodeClient(peer.url);
    await client.connect();
    for (let i = 0; i < 20; i++) await client.callTool("x", {});
    expect(peer.connections).toBe(1);
    expect(peer.received.every((r) => r.headers["user-agent"] === undefined)).toBe(true);
    expect(peer.received.every((r) => r.headers["accept-encoding"] === "identity")).toBe(true);
    expect(tcpSockets()).toBeGreaterThan(before);
    await client.close();
    await until(() => peer.open === 0 && tcpSockets() === before);
  });

  it("bounds opening a connection by connectTimeoutMs, TLS handshake included, even for a request POST", async () => {
    const sockets: Socket[] = [];
    let closed = 0;
    const silent = createTcpServer((socket) => {
      sockets.push(socket);
      socket.on("close", () => closed++);
      // Reads (so the client's close is seen) and never answers.
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    cleanup(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          silent.close(() => resolve());
        }),
    );
    const url = `https://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
    const client = nodeClient(url, { policy: { connectTimeoutMs: 150 } });
    expect(await rejection(client.connect())).toMatchObject({
      code: "TIMEOUT",
      details: { timeout: "connect", timeoutMs: 150 },
    });
    expect(sockets).toHaveLength(1);
    await until(() => closed === 1);
  });

  it("verifies the server's certificate: refused by default, accepted with its CA", async () => {
    const url = await httpsServer();
    const refused = nodeClient(url);
    expect(await rejection(refused.connect())).toMatchObject({
      code: "TRANSPORT",
      details: { reason: "network", code: "DEPTH_ZERO_SELF_SIGNED_CERT" },
    });
    const trusted = new Client({
      transport: new StreamableHttpClientTransport({ url, http: nodeHttp({ ca: TLS.cert }) }),
      clientInfo: INFO,
    });
    cleanup(() => trusted.close());
    expect((await trusted.connect()).era).toBe(MODERN);
    expect((await trusted.listTools()).tools.length).toBeGreaterThan(0);
  });

  it("an aborted call destroys its request: the server sees the connection close mid-stream", async () => {
    let streaming = false;
    const peer = await modernPeer((_body, res) => {
      const send = sse(res);
      send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "working" } });
      streaming = true;
    });
    const client = nodeClient(peer.url);
    await client.connect();
    expect(peer.open).toBe(1);
    const controller = new AbortController();
    const call = rejection(client.callTool("hang", {}, { signal: controller.signal }));
    await until(() => streaming);
    controller.abort(new Error("stop"));
    expect(await call).toMatchObject({ code: "ABORTED" });
    await until(() => peer.open === 0);
  });

  it("keeps the connection of an SSE answer whose stream ends after it; closes one that goes on", async () => {
    let endAfterAnswer = true;
    const peer = await modernPeer((body, res) => {
      const send = sse(res);
      send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } });
      setTimeout(() => {
        send(modern.text(body.id, "done"));
        if (endAfterAnswer) res.end();
        else setTimeout(() => res.write(": more\n\n"), 10);
      }, 5);
    });
    const client = nodeClient(peer.url);
    await client.connect();
    for (let i = 0; i < 5; i++)
      expect(await client.callTool("x", {})).toMatchObject({ content: [{ text: "done" }] });
    expect(peer.connections).toBe(1);
    endAfterAnswer = false;
    expect(await client.callTool("x", {})).toMatchObject({ content: [{ text: "done" }] });
    await until(() => peer.open === 0);
    expect(await client.callTool("x", {})).toMatchObject({ content: [{ text: "done" }] });
    expect(peer.connections).toBe(2);
  });

  it("counts an encoded body's wire bytes against maxResponseBytes, as they arrive", async () => {
    // Incompressible text: the gzip body is larger than the limit, and has no Content-Length.
    const noise = Array.from({ length: 600 }, () => Math.random().toString(36).slice(2)).join("");
    const peer = await modernPeer((body, res) => {
      const packed = gzipSync(JSON.stringify(modern.text(body.id, noise)));
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.write(packed.subarray(0, 500));
      res.end(packed.subarray(500));
    });
    const client = nodeClient(peer.url, {
      policy: { maxResponseBytes: 2_000, maxDecodedResponseBytes: 1_000_000 },
    });
    await client.connect();
    expect(await rejection(client.callTool("noise", {}))).toMatchObject({
      code: "MESSAGE_TOO_LARGE",
      details: { reason: "response_too_large", limit: 2_000 },
    });
  });

  it("decodes a gzip answer within the limits, and refuses a corrupt one or an unknown coding", async () => {
    let mode: "gzip" | "corrupt" | "zstd" = "gzip";
    const peer = await modernPeer((body, res) => {
      const text = JSON.stringify(modern.text(body.id, "packed"));
      const encoding = mode === "zstd" ? "zstd" : "gzip";
      const payload = mode === "gzip" ? gzipSync(text) : Buffer.from(text);
      res.writeHead(200, { "content-type": "application/json", "content-encoding": encoding }).end(payload);
    });
    const client = nodeClient(peer.url);
    await client.connect();
    expect(await client.callTool("packed", {})).toMatchObject({ content: [{ text: "packed" }] });
    mode = "corrupt";
    expect(await rejection(client.callTool("packed", {}))).toMatchObject({
      code: "PROTOCOL",
      details: { reason: "malformed_response" },
    });
    mode = "zstd";
    expect(await rejection(client.callTool("packed", {}))).toMatchObject({
      code: "TRANSPORT",
      details: { reason: "unsupported_encoding" },
    });
  });

  it("is exclusive with fetch, and must be an HttpClient", () => {
    const url = "http://127.0.0.1:1/mcp";
    expect(() => new StreamableHttpClientTransport({ url, http: nodeHttp(), fetch })).toThrow(
      expect.objectContaining({ code: "INVALID_CONFIG", details: { key: "http" } }),
    );
    expect(() => new StreamableHttpClientTransport({ url, http: {} as never })).toThrow(
      expect.objectContaining({ code: "INVALID_CONFIG", details: { key: "http" } }),
    );
  });

  it("reaches the server over IPv6 loopback", async () => {
    const handler = createHttpHandler(fixtureServer());
    const { createServer } = await import("node:http");
    const server = createServer(toNodeHandler(handler));
    await new Promise<void>((resolve) => server.listen(0, "::1", resolve));
    cleanup(
      () => new Promise<void>((resolve) => server.close(() => resolve())),
      () => handler.close(),
    );
    const client = nodeClient(`http://[::1]:${(server.address() as AddressInfo).port}/mcp`);
    expect((await client.connect()).era).toBe(MODERN);
  });
});
