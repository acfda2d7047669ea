/**
 * The two ways `toNodeHandler` serves an mcpkit handler give the same answers: directly (the handler's own
 * entry, no Web Request or Response per request) and through the Web-standard `(Request) => Response` call (a
 * wrapping function hides the direct entry). Limits, Host checks, the hook's Request and disconnects.
 */
import { describe, expect, it } from "vitest";
import { HttpPeer, raw, rawOpen, useServe } from "../../test/support/http-peer.js";
import { until } from "../../test/support/until.js";
import { createHttpHandler } from "../http/server/handler.js";
import type { HttpHandlerOptions } from "../http/server/options.js";
import { ServerBuilder } from "../server/authoring/builder.js";
import type { FetchHandler } from "./adapter.js";

const serve = useServe();
const MODERN = "2026-07-28";

/** A server whose `wait` tool waits for its signal (sending nothing first, unless `progress` is set). */
function waitingServer() {
  const aborted: unknown[] = [];
  const server = new ServerBuilder({ serverInfo: { name: "waiting", version: "1.0.0" } })
    .tool({ name: "wait", inputSchema: { type: "object" } }, async ({ progress }, context) => {
      if (progress === true) await context.progress(1);
      await new Promise<void>((resolve) => {
        context.signal.addEventListener("abort", () => {
          aborted.push(context.signal.reason);
          resolve();
        });
      });
      return { content: [{ type: "text", text: "stopped" }] };
    })
    .tool({ name: "echo", inputSchema: { type: "object" } }, ({ text }) => ({
      content: [{ type: "text", text: String(text) }],
    }))
    .build();
  return { server, aborted };
}

const paths: Array<{ title: string; direct: boolean; wrap: (handler: FetchHandler) => FetchHandler }> = [
  { title: "the direct path", direct: true, wrap: (handler) => handler },
  { title: "the Web Request path", direct: false, wrap: (handler) => (request) => handler(request) },
];

describe.each(paths)("toNodeHandler over $title", ({ direct, wrap }) => {
  async function start(options: HttpHandlerOptions = {}) {
    const { server, aborted } = waitingServer();
    const { url } = await serve(wrap(createHttpHandler(server, options)));
    return { url, server, aborted, peer: new HttpPeer(url, MODERN) };
  }

  it("serves JSON answers (in one piece, with a Content-Length, on the direct path)", async () => {
    const { peer } = await start();
    for (const text of ["a", "ü€😀"]) {
      const reply = await peer.send(peer.request("tools/call", { name: "echo", arguments: { text } }));
      expect(reply.status).toBe(200);
      expect(reply.contentType).toBe("application/json");
      if (direct) expect(reply.headers["content-length"]).toBe(String(Buffer.byteLength(reply.text)));
      expect(reply.messages[0]).toMatchObject({ result: { content: [{ text }] } });
    }
  });

  it("refuses a body past maxBodyBytes with 413, declared or streamed, and closes the connection", async () => {
    const { url, peer } = await start({ maxBodyBytes: 100 });
    const message = peer.request("tools/call", { name: "echo", arguments: { text: "x".repeat(200) } });
    const declared = await raw(url, { headers: peer.headersFor(message), body: JSON.stringify(message) });
    expect(declared.status).toBe(413);
    expect(declared.headers.connection).toBe("close");
    expect(declared.messages[0]).toMatchObject({ error: { code: -32600, data: { limit: 100 } } });
    const chunks = [new Uint8Array(60).fill(32), new Uint8Array(60).fill(32), new Uint8Array(60).fill(32)];
    const streamed = await raw(url, { headers: peer.headersFor(message), body: chunks });
    expect(streamed.status).toBe(413);
  });

  it("answers 400 for a Host that cannot form a URL, 403 for one not allowed, 400 -32700 for bad UTF-8", async () => {
    const { url, peer } = await start();
    const message = peer.request("tools/list");
    const send = (headers: { [name: string]: string }, body: string | Uint8Array = JSON.stringify(message)) =>
      raw(url, { headers: { ...peer.headersFor(message), ...headers }, body });
    expect((await send({ host: "a b" })).status).toBe(400);
    expect((await send({ host: "evil.example.com" })).status).toBe(403);
    expect((await send({ host: "localhost:9" })).status).toBe(200);
    expect((await send({ host: "a b" })).status).toBe(400);
    const bad = await send({}, new Uint8Array([0x7b, 0xff, 0x7d]));
    expect(bad.status).toBe(400);
    expect(bad.messages[0]).toMatchObject({ error: { code: -32700 } });
  });

  it("hands the authenticate hook a Request with the method, URL, headers and a live signal", async () => {
    const seen: Array<{ method: string; url: string; user: string | null; aborted: boolean }> = [];
    const { peer } = await start({
      authenticate: (request) => {
        seen.push({
          method: request.method,
          url: request.url,
          user: request.headers.get("x-user"),
          aborted: request.signal.aborted,
        });
        return request.headers.get("x-user") ?? undefined;
      },
    });
    const reply = await peer.send(peer.request("tools/list"), { headers: { "x-user": "ada" } });
    expect(reply.status).toBe(200);
    expect(seen).toEqual([
      {
        method: "POST",
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/),
        user: "ada",
        aborted: false,
      },
    ]);
  });

  it("aborts a handler whose client goes away before anything was sent", async () => {
    const { url, peer, server, aborted } = await start();
    const message = peer.request("tools/call", { name: "wait", arguments: {} });
    const { request, response } = rawOpen(url, {
      headers: peer.headersFor(message),
      body: JSON.stringify(message),
    });
    response.catch(() => {});
    await until(() => server.runningHandlers === 1);
    request.destroy();
    await until(() => aborted.length === 1 && server.runningHandlers === 0);
  });

  it("aborts a streaming handler when the client closes its SSE stream", async () => {
    const { peer, server, aborted } = await start();
    const message = peer.request(
      "tools/call",
      { name: "wait", arguments: { progress: true } },
      { progressToken: 1 },
    );
    const { request, response } = peer.stream(message);
    const { res, events } = await response;
    expect(res.headers["content-type"]).toBe("text/event-stream");
    expect((await events.next())?.message).toMatchObject({ method: "notifications/progress" });
    res.destroy();
    request.destroy();
    await until(() => aborted.length === 1 && server.runningHandlers === 0);
  });
});

describe("the direct path", () => {
  it("builds no Web Request, Headers or Response for a request without an authenticate hook", async () => {
    const { server } = waitingServer();
    const { url } = await serve(createHttpHandler(server));
    const peer = new HttpPeer(url, MODERN);
    const names = ["Request", "Response", "Headers"] as const;
    const touched: string[] = [];
    const saved = names.map((name) => Object.getOwnPropertyDescriptor(globalThis, name));
    names.forEach((name, i) => {
      const value = saved[i]?.value ?? (globalThis as { [key: string]: unknown })[name];
      Object.defineProperty(globalThis, name, {
        configurable: true,
        get: () => {
          touched.push(name);
          return value;
        },
      });
    });
    try {
      const reply = await peer.send(peer.request("tools/call", { name: "echo", arguments: { text: "hi" } }));
      expect(reply.status).toBe(200);
      const refused = await peer.send(peer.request("tools/list"), { headers: { host: "evil.example.com" } });
      expect(refused.status).toBe(403);
    } finally {
      names.forEach((name, i) => {
        const descriptor = saved[i];
        if (descriptor) Object.defineProperty(globalThis, name, descriptor);
      });
    }
    expect(touched).toEqual([]);
  });
});
