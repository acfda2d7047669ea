import { createServer as createNodeServer } from "node:http";
import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { fixtureServer } from "../../test/support/fixture-server.js";
import { HttpPeer, raw, rawOpen } from "../../test/support/http-peer.js";
import { listenOnLoopback, useCleanups } from "../../test/support/interop-helpers.js";
import { until } from "../../test/support/until.js";
import { McpkitError } from "../jsonrpc/errors.js";
import { type FetchHandler, toNodeHandler } from "./adapter.js";
import { serve } from "./serve.js";

const cleanup = useCleanups();

/** Listens on 127.0.0.1 with `toNodeHandler(handler)`; returns the base URL. */
async function listen(handler: FetchHandler): Promise<string> {
  const port = await listenOnLoopback(createNodeServer(toNodeHandler(handler)), cleanup);
  return `http://127.0.0.1:${port}/x`;
}

describe("serve", () => {
  it("listens on 127.0.0.1 at /mcp, answers 404 elsewhere, and builds the handler for a Server", async () => {
    const handle = await serve(fixtureServer(), { handler: { enableJsonResponse: true } });
    cleanup(() => handle.close());
    expect(handle.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const peer = new HttpPeer(handle.url, "2026-07-28");
    const reply = await peer.send(peer.request("tools/list"));
    expect(reply.contentType).toBe("application/json");
    expect((await raw(handle.url.replace("/mcp", "/other"), { method: "GET" })).status).toBe(404);
  });

  it("routes extraPaths to the handler too (well-known metadata beside the endpoint), and nothing else", async () => {
    const handle = await serve((request) => new Response(new URL(request.url).pathname), {
      extraPaths: ["/.well-known/oauth-protected-resource/mcp"],
    });
    cleanup(() => handle.close());
    const at = (path: string) => raw(handle.url.replace("/mcp", path), { method: "GET" });
    expect((await at("/.well-known/oauth-protected-resource/mcp")).text).toBe(
      "/.well-known/oauth-protected-resource/mcp",
    );
    expect((await at("/mcp")).status).toBe(200);
    expect((await at("/.well-known/oauth-protected-resource")).status).toBe(404);
  });

  it("closes promptly with a legacy GET stream open, ending the stream", async () => {
    const handle = await serve(fixtureServer());
    const peer = new HttpPeer(handle.url, "2025-11-25");
    await peer.open();
    const { response } = peer.stream(undefined, {
      method: "GET",
      headers: { "mcp-protocol-version": "2025-11-25", "mcp-session-id": peer.sessionId },
    });
    const { events } = await response;
    // The stream's first bytes go out at once (a comment), so every runtime sends its head.
    expect(await events.next()).toEqual({ comment: "stream open" });
    await handle.close();
    expect(await events.next()).toBeUndefined();
  });

  it("drops 1,000 stalled uploads at the request bound while valid requests are served", async () => {
    const requestMs = 1_000;
    const handle = await serve(fixtureServer(), {
      handler: { enableJsonResponse: true },
      timeouts: { headersMs: 500, requestMs, keepAliveMs: 500, checkIntervalMs: 50 },
    });
    cleanup(() => handle.close());
    const { port } = new URL(handle.url);
    const stalled: Socket[] = [];
    cleanup(async () => {
      for (const socket of stalled) socket.destroy();
    });
    const closedAt: number[] = [];
    const started = performance.now();
    // Headers and part of a declared body, then nothing: each holds a request open on the server.
    const head = [
      "POST /mcp HTTP/1.1",
      `Host: 127.0.0.1:${port}`,
      "Content-Type: application/json",
      "Content-Length: 4096",
      "",
      '{"jsonrpc":"2.0",',
    ].join("\r\n");
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from(
          { length: 100 },
          () =>
            new Promise<void>((resolve, reject) => {
              const socket = connect(Number(port), "127.0.0.1", () => {
                socket.write(head);
                resolve();
              });
              socket.on("error", () => {}); // a reset at the bound is expected
              socket.once("error", reject);
              socket.on("close", () => closedAt.push(performance.now()));
              socket.resume();
              stalled.push(socket);
            }),
        ),
      );
    }
    expect(stalled).toHaveLength(1_000);
    const peer = new HttpPeer(handle.url, "2026-07-28");
    for (let i = 0; i < 5; i++) {
      const reply = await peer.send(peer.request("tools/list"));
      expect(reply.status).toBe(200);
    }
    // Every stalled socket is closed by the server (the test's own timeout is the upper bound), none early.
    for (let i = 0; i < 10 && closedAt.length < stalled.length; i++) {
      await until(() => closedAt.length === stalled.length).catch(() => undefined);
    }
    expect(closedAt).toHaveLength(1_000);
    for (const at of closedAt) expect(at - started).toBeGreaterThanOrEqual(requestMs);
    await until(() => stalled.every((socket) => socket.destroyed));
    const open = await new Promise<number>((resolve, reject) =>
      handle.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );
    expect(open).toBeLessThanOrEqual(1); // at most the peer's own keep-alive connection
    expect((await peer.send(peer.request("tools/list"))).status).toBe(200);
  });

  it("does not cut a long answer at the request bound: a legacy GET stream outlives it", async () => {
    const handle = await serve(fixtureServer(), {
      timeouts: { headersMs: 100, requestMs: 100, keepAliveMs: 100, checkIntervalMs: 20 },
    });
    cleanup(() => handle.close());
    const peer = new HttpPeer(handle.url, "2025-11-25");
    await peer.open();
    const { response } = peer.stream(undefined, {
      method: "GET",
      headers: { "mcp-protocol-version": "2025-11-25", "mcp-session-id": peer.sessionId },
    });
    const { events } = await response;
    // A stalled upload started after the stream is dropped by the bound; the stream must still be open then.
    // Stalled uploads started after the stream are dropped by the bound; the stream must still be open then.
    let ended = false;
    void events.next().then((event) => {
      ended = event === undefined;
    });
    const { port } = new URL(handle.url);
    for (let round = 0; round < 2; round++) {
      await new Promise<void>((resolve) => {
        const socket = connect(Number(port), "127.0.0.1", () =>
          socket.write(
            `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{`,
          ),
        );
        socket.on("error", () => {});
        socket.on("close", () => resolve());
        socket.resume();
      });
    }
    expect(ended).toBe(false);
    expect(handle.server.listening).toBe(true);
  });

  it("refuses timeouts node:http cannot honour", async () => {
    await expect(serve(fixtureServer(), { timeouts: { requestMs: -1 } })).rejects.toBeInstanceOf(McpkitError);
    await expect(serve(fixtureServer(), { timeouts: { checkIntervalMs: 0 } })).rejects.toBeInstanceOf(
      McpkitError,
    );
    await expect(
      serve(fixtureServer(), { timeouts: { headersMs: 2_000, requestMs: 1_000 } }),
    ).rejects.toBeInstanceOf(McpkitError);
  });

  it("refuses handler options next to a ready-made handler", async () => {
    await expect(serve(() => new Response("x"), { handler: {} })).rejects.toBeInstanceOf(McpkitError);
  });
});

describe("toNodeHandler", () => {
  it("passes method, URL, headers and a streamed body through, and streams a large answer back", async () => {
    const url = await listen(async (request) => {
      const body = new Uint8Array(await new Response(request.body).arrayBuffer());
      const info = JSON.stringify({
        method: request.method,
        url: request.url,
        custom: request.headers.get("x-custom"),
        bytes: body.byteLength,
      });
      return new Response(`${info}\n${"y".repeat(3_000_000)}`, { status: 201, headers: { "x-answer": "1" } });
    });
    const chunks = Array.from({ length: 40 }, () => new Uint8Array(50_000).fill(120));
    const reply = await raw(`${url}?q=1`, { headers: { "x-custom": "v" }, body: chunks });
    expect(reply.status).toBe(201);
    expect(reply.headers["x-answer"]).toBe("1");
    const [head, rest] = reply.text.split("\n");
    expect(JSON.parse(head ?? "")).toEqual({
      method: "POST",
      url: expect.stringMatching(/\/x\?q=1$/),
      custom: "v",
      bytes: 2_000_000,
    });
    expect(rest).toHaveLength(3_000_000);
  });

  it("fires the Request's signal and cancels the answer stream when the client disconnects", async () => {
    const seen = { aborted: false, cancelled: false };
    const url = await listen((request) => {
      request.signal.addEventListener("abort", () => {
        seen.aborted = true;
      });
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => controller.enqueue(new TextEncoder().encode("first")),
        cancel: () => {
          seen.cancelled = true;
        },
      });
      return new Response(body);
    });
    const { request, response } = rawOpen(url, { method: "GET" });
    const res = await response;
    await new Promise<void>((resolve) => res.once("data", () => resolve()));
    request.destroy();
    await until(() => seen.aborted && seen.cancelled);
  });

  it("answers 400 when the Host header cannot form a URL", async () => {
    const url = await listen(() => new Response("never"));
    expect((await raw(url, { method: "GET", headers: { host: "a b" } })).status).toBe(400);
  });
});
