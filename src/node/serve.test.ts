import { createServer as createNodeServer } from "node:http";
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

  it("closes promptly with a legacy GET stream open, ending the stream", async () => {
    const handle = await serve(fixtureServer());
    const peer = new HttpPeer(handle.url, "2025-11-25");
    await peer.open();
    const { response } = peer.stream(undefined, {
      method: "GET",
      headers: { "mcp-protocol-version": "2025-11-25", "mcp-session-id": peer.sessionId },
    });
    const { events } = await response;
    await handle.close();
    expect(await events.next()).toBeUndefined();
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
