/**
 * Byte limits over real HTTP on 127.0.0.1: the request body (declared or streamed, counted before decoding) and
 * the encoded response (JSON body or SSE stream), at the limit and one byte past it.
 */
import { describe, expect, it } from "vitest";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { HttpPeer, modernMeta, raw, useServe } from "../support/http-peer.js";

const serve = useServe();
const MODERN = "2026-07-28";

/** What the servers below logged (the limits are logged, not printed). */
const warnings: string[] = [];
const logger = {
  warn: (message: string) => warnings.push(message),
  error: (message: string) => warnings.push(message),
};

/** A server whose `big` tool reports progress `steps` times, then answers with `size` characters. */
function bigServer() {
  return new ServerBuilder({ serverInfo: { name: "big", version: "1.0.0" }, logger })
    .tool({ name: "big", inputSchema: { type: "object" } }, async ({ size, steps }, context) => {
      for (let i = 1; i <= Number(steps ?? 0); i++) await context.progress(i);
      return { content: [{ type: "text", text: "x".repeat(Number(size)) }] };
    })
    .build();
}

/** A request body of exactly `bytes` bytes (a `tools/list` padded in `_meta`). */
function bodyOf(peer: HttpPeer, bytes: number): { text: string; message: ReturnType<HttpPeer["request"]> } {
  const message = peer.request("tools/list", {}, { pad: "" });
  const base = JSON.stringify(message).length;
  (message.params._meta as { pad: string }).pad = "p".repeat(bytes - base);
  const text = JSON.stringify(message);
  expect(Buffer.byteLength(text)).toBe(bytes);
  return { text, message };
}

describe("request body limit", () => {
  it("serves a body of exactly maxBodyBytes, refuses one byte more with 413 -32600", async () => {
    const { url } = await serve(bigServer(), { handler: { maxBodyBytes: 1_000 } });
    const peer = new HttpPeer(url, MODERN);
    const atLimit = bodyOf(peer, 1_000);
    expect((await peer.send(atLimit.message, { body: atLimit.text })).status).toBe(200);
    const over = bodyOf(peer, 1_001);
    const reply = await peer.send(over.message, { body: over.text });
    expect(reply.status).toBe(413);
    expect(reply.messages).toEqual([
      {
        jsonrpc: "2.0",
        error: {
          code: -32600,
          message: "Request body too large: 1001 bytes, over maxBodyBytes (1000)",
          data: { option: "maxBodyBytes", limit: 1_000, size: 1_001 },
        },
      },
    ]);
  });

  it("counts a chunked body with no Content-Length as it streams, and stops at the limit", async () => {
    const { url } = await serve(bigServer(), { handler: { maxBodyBytes: 1_000 } });
    const peer = new HttpPeer(url, MODERN);
    const chunks = Array.from({ length: 10 }, () => new Uint8Array(300).fill(0x20));
    const reply = await raw(url, { headers: peer.headersFor(peer.request("tools/list")), body: chunks });
    expect(reply.status).toBe(413);
    expect(reply.messages[0]).toMatchObject({
      error: {
        code: -32600,
        message: expect.stringMatching(/^Request body too large: \d+ bytes, over maxBodyBytes \(1000\)$/),
      },
    });
  });

  it("refuses a declared Content-Length over the default 8,000,000 bytes", async () => {
    const { url } = await serve(bigServer());
    const peer = new HttpPeer(url, MODERN);
    const over = bodyOf(peer, 8_000_001);
    const reply = await peer.send(over.message, { body: over.text });
    expect(reply.status).toBe(413);
    expect(reply.messages[0]).toMatchObject({ error: { code: -32600, data: { limit: 8_000_000 } } });
    const atLimit = bodyOf(peer, 8_000_000);
    expect((await peer.send(atLimit.message, { body: atLimit.text })).status).toBe(200);
  });
});

describe("response limit", () => {
  const call = (peer: HttpPeer, size: number, steps = 0) =>
    peer.request("tools/call", { name: "big", arguments: { size, steps } }, { progressToken: "p" });

  it("fails closed: a JSON answer over maxResponseBytes is 500 -32603 response_too_large with the limit", async () => {
    const { url } = await serve(bigServer(), {
      handler: { maxResponseBytes: 2_000, enableJsonResponse: true },
    });
    const peer = new HttpPeer(url, MODERN);
    const small = await peer.send(call(peer, 100));
    expect(small.status).toBe(200);
    expect(small.contentType).toMatch(/^application\/json/);
    const request = call(peer, 5_000);
    const reply = await peer.send(request);
    expect(reply.status).toBe(500);
    expect(reply.messages).toEqual([
      {
        jsonrpc: "2.0",
        id: request.id,
        error: {
          code: -32603,
          message: expect.stringMatching(/^Response too large: \d+ bytes, over maxResponseBytes \(2000\)$/),
          data: {
            option: "maxResponseBytes",
            limit: 2_000,
            size: expect.any(Number),
            reason: "response_too_large",
          },
        },
      },
    ]);
    expect(reply.text).not.toContain("xxxx");
    expect(warnings).toContain("response exceeds maxResponseBytes");
  });

  it("counts a result sent as JSON without SSE framing: exactly the limit passes, one byte more is 500", async () => {
    const probe = await serve(bigServer());
    const probePeer = new HttpPeer(probe.url, MODERN);
    const base = Buffer.byteLength((await probePeer.send(call(probePeer, 0))).text);
    const { url } = await serve(bigServer(), { handler: { maxResponseBytes: base + 1_000 } });
    const peer = new HttpPeer(url, MODERN);
    const exact = await peer.send(call(peer, 1_000));
    expect(exact.status).toBe(200);
    expect(exact.contentType).toBe("application/json");
    expect(Buffer.byteLength(exact.text)).toBe(base + 1_000);
    expect((await peer.send(call(peer, 1_001))).status).toBe(500);
    // The same answer as an SSE event carries its framing too: past the limit.
    const framed = await peer.send(call(peer, 1_000), { headers: { accept: "text/event-stream" } });
    expect(framed.status).toBe(500);
  });

  it("an SSE answer past the limit before any event is 500 too", async () => {
    const { url } = await serve(bigServer(), { handler: { maxResponseBytes: 2_000 } });
    const peer = new HttpPeer(url, MODERN);
    const reply = await peer.send(call(peer, 5_000));
    expect(reply.status).toBe(500);
    expect(reply.messages[0]).toMatchObject({
      error: { data: { reason: "response_too_large", limit: 2_000 } },
    });
  });

  it("once the stream is open, counts every byte: the final answer past the limit becomes the error event", async () => {
    const { url } = await serve(bigServer(), { handler: { maxResponseBytes: 2_000 } });
    const peer = new HttpPeer(url, MODERN);
    const request = call(peer, 1_700, 3);
    const reply = await peer.send(request);
    expect(reply.status).toBe(200);
    expect(reply.messages.map((m) => ("method" in m ? m.method : "response"))).toEqual([
      "notifications/progress",
      "notifications/progress",
      "notifications/progress",
      "response",
    ]);
    expect(reply.messages.at(-1)).toMatchObject({
      id: request.id,
      error: { code: -32603, data: { reason: "response_too_large", limit: 2_000 } },
    });
    expect(Buffer.byteLength(reply.text)).toBeLessThanOrEqual(2_000);
  });

  it("drops notifications that would pass the limit (the stream stays within it)", async () => {
    const { url } = await serve(bigServer(), { handler: { maxResponseBytes: 1_000 } });
    const peer = new HttpPeer(url, MODERN);
    const reply = await peer.send(call(peer, 10, 50));
    const progress = reply.messages.filter((m) => "method" in m);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.length).toBeLessThan(50);
    expect(warnings).toContain("dropped notifications past maxResponseBytes");
    expect(Buffer.byteLength(reply.text)).toBeLessThanOrEqual(1_000 + 400);
  });
});

describe("nesting", () => {
  it("answers arguments nested past what a recursive inputSchema's validator can walk with isError, unlogged", async () => {
    const node = { type: "object", properties: { child: { $ref: "#/$defs/node" } } };
    const server = new ServerBuilder({ serverInfo: { name: "tree", version: "1.0.0" }, logger })
      .tool({ name: "tree", inputSchema: { $defs: { node }, ...node } }, () => ({
        content: [{ type: "text", text: "ran" }],
      }))
      .build();
    const { url } = await serve(server);
    const peer = new HttpPeer(url, MODERN);
    const before = warnings.length;
    const callWith = (levels: number) => {
      const message = peer.request("tools/call", { name: "tree", arguments: { child: "@" } });
      const nested = `${'{"child":'.repeat(levels)}{}${"}".repeat(levels)}`;
      return peer.send(message, { body: JSON.stringify(message).replace('"@"', nested) });
    };
    expect((await callWith(20)).messages[0]).toMatchObject({ result: { content: [{ text: "ran" }] } });
    const deep = await callWith(100_000);
    expect(deep.status).toBe(200);
    expect(deep.messages[0]).toMatchObject({
      result: {
        isError: true,
        content: [
          {
            text: 'Invalid arguments for tool "tree":\n(root): nests too deep to validate (more than 64 levels, and the validator gave up)',
          },
        ],
      },
    });
    expect(warnings.length).toBe(before);
  });
});

describe("answers that would repeat a huge id or method name (found by the fuzz suite, fuzz/)", () => {
  const LIMIT = 2_000;
  const modernHeaders = { "content-type": "application/json", "mcp-protocol-version": MODERN };
  /** A body of exactly `LIMIT` bytes whose `key` takes all the room the rest leaves. */
  const filled = (message: { [key: string]: unknown }, key: string) => {
    const room = LIMIT - JSON.stringify({ ...message, [key]: "" }).length;
    const body = JSON.stringify({ ...message, [key]: "i".repeat(room) });
    expect(body.length).toBe(LIMIT);
    return body;
  };
  const limits = { handler: { maxBodyBytes: LIMIT, maxResponseBytes: LIMIT } };

  it("keeps a refusal within maxResponseBytes: no id, no data, the message cut, the status kept", async () => {
    const { url } = await serve(bigServer(), limits);
    const unknown = await raw(url, {
      headers: modernHeaders,
      body: filled({ jsonrpc: "2.0", id: 1, method: "" }, "method"),
    });
    expect(unknown.status).toBe(404);
    expect(Buffer.byteLength(unknown.text)).toBeLessThanOrEqual(LIMIT);
    expect(unknown.messages[0]).toEqual({
      jsonrpc: "2.0",
      error: { code: -32601, message: expect.stringMatching(/^Method not found: i+$/) },
    });
    const invalid = await raw(url, {
      headers: modernHeaders,
      body: filled({ jsonrpc: "1.0", id: "", method: "ping" }, "id"),
    });
    expect(invalid.status).toBe(400);
    expect(Buffer.byteLength(invalid.text)).toBeLessThanOrEqual(LIMIT);
    expect(invalid.messages[0]).toEqual({
      jsonrpc: "2.0",
      error: { code: -32600, message: 'Invalid Request: "jsonrpc" must be "2.0"' },
    });
  });

  it("sends the response_too_large error without the id when the id alone passes the bound", async () => {
    const { url } = await serve(bigServer(), {
      handler: { maxBodyBytes: 4 * LIMIT, maxResponseBytes: LIMIT },
    });
    const id = "i".repeat(LIMIT - 50);
    const message = { jsonrpc: "2.0", id, method: "tools/list", params: { _meta: modernMeta() } };
    const reply = await raw(url, {
      headers: { ...modernHeaders, "mcp-method": "tools/list" },
      body: JSON.stringify(message),
    });
    expect(reply.status).toBe(500);
    expect(Buffer.byteLength(reply.text)).toBeLessThanOrEqual(LIMIT);
    expect(reply.messages[0]).toEqual({
      jsonrpc: "2.0",
      error: {
        code: -32603,
        message: expect.stringMatching(/^Response too large: \d+ bytes, over maxResponseBytes \(\d+\)$/),
        data: {
          option: "maxResponseBytes",
          limit: LIMIT,
          size: expect.any(Number),
          reason: "response_too_large",
        },
      },
    });
  });
});
