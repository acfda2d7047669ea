/**
 * The 2026-07-28 request pipeline over real HTTP on 127.0.0.1: every status and JSON-RPC code of the table in
 * docs/http.md, the standard routing headers one by one (missing, mismatched, base64), and that answers carry
 * the request id and never a routing header. Every JSON-RPC message both ways is checked against the schema.
 */
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { fixtureServer } from "../support/fixture-server.js";
import { HttpPeer, modernMeta, type Reply, raw, useServe } from "../support/http-peer.js";

const serve = useServe();
const MODERN = "2026-07-28";
const SENTINEL_LOOKALIKE = "=?base64?SGVsbG8=?=";

function namesServer() {
  const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
  return new ServerBuilder({ serverInfo: { name: "names", version: "1.0.0" } })
    .tool({ name: "echo", inputSchema: { type: "object" } }, () => text("echo"))
    .tool({ name: "café", inputSchema: { type: "object" } }, () => text("unicode"))
    .tool({ name: SENTINEL_LOOKALIKE, inputSchema: { type: "object" } }, () => text("lookalike"))
    .resource({ uri: "test://ünïcode", name: "u" }, (uri) => ({ contents: [{ uri, text: "u" }] }))
    .prompt({ name: "hello" }, () => ({
      messages: [{ role: "user", content: { type: "text", text: "hi" } }],
    }))
    .build();
}

async function peer(server = fixtureServer()): Promise<HttpPeer> {
  const { url } = await serve(server);
  return new HttpPeer(url, MODERN);
}

function expectError(reply: Reply, status: number, code: number, id?: number): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.contentType).toMatch(/^application\/json/);
  expect(reply.messages).toHaveLength(1);
  const message = reply.messages[0] as { id?: unknown; error?: { code: number } };
  expect(message.error?.code).toBe(code);
  if (id !== undefined) expect(message.id).toBe(id);
}

function expectNoRoutingHeaders(reply: Reply): void {
  for (const name of Object.keys(reply.headers)) {
    expect(name).not.toMatch(/^mcp-(method|name|param-|protocol-version|session-id)/);
  }
}

describe("2026-07-28 over HTTP: methods and bodies", () => {
  it("answers GET and DELETE with 405 (no session, no stream in 2026), other methods too", async () => {
    const { url } = await peer();
    for (const method of ["GET", "DELETE", "PUT"]) {
      const reply = await raw(url, { method, headers: { "mcp-protocol-version": MODERN } });
      expect(reply.status, method).toBe(405);
      expect(reply.headers.allow).toBe("POST");
    }
  });

  it("accepts a notification with 202 and no body", async () => {
    const p = await peer();
    const reply = await p.send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 1 },
    });
    expect(reply.status).toBe(202);
    expect(reply.text).toBe("");
  });

  it("refuses a response body (a 2026 POST carries a request or a notification)", async () => {
    const p = await peer();
    expectError(await p.send({ jsonrpc: "2.0", id: 3, result: {} }, { validate: false }), 400, -32600);
  });

  it("answers bad JSON with 400 -32700, a batch or a non-object with 400 -32600", async () => {
    const p = await peer();
    expectError(await p.send("{not json", { validate: false }), 400, -32700);
    expectError(await p.send("\u00ff", { validate: false }), 400, -32700);
    expectError(await p.send("", { validate: false }), 400, -32700);
    expectError(await p.send([p.request("tools/list")], { validate: false }), 400, -32600);
    expectError(await p.send("5", { validate: false }), 400, -32600);
    expectError(await p.send("null", { validate: false }), 400, -32600);
    // A malformed message whose id is readable gets its error with that id.
    expectError(await p.send({ jsonrpc: "2.0", id: 41, method: 5 }, { validate: false }), 400, -32600, 41);
  });

  it("answers a POST whose Content-Type is not application/json with 415 -32600, before reading the body", async () => {
    const p = await peer();
    for (const type of [
      "text/plain",
      "text/plain; charset=utf-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonx",
      "application/json-seq",
      "",
      undefined,
    ]) {
      const reply = await p.send(p.request("tools/list"), { headers: { "content-type": type } });
      expectError(reply, 415, -32600);
    }
  });

  it("accepts application/json in any case and with parameters", async () => {
    const p = await peer();
    for (const type of [
      "application/json; charset=utf-8",
      "Application/JSON",
      " application/json ;charset=UTF-8",
    ]) {
      const reply = await p.send(p.request("tools/list"), { headers: { "content-type": type } });
      expect(reply.status, type).toBe(200);
    }
  });

  it("mints no legacy session for an initialize sent as text/plain (a CORS simple request)", async () => {
    const handler = createHttpHandler(fixtureServer());
    const handle = await serve(handler);
    const legacy = new HttpPeer(handle.url, "2025-11-25");
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "page", version: "1" },
      },
    };
    const reply = await raw(handle.url, {
      method: "POST",
      headers: { "content-type": "text/plain", accept: "application/json, text/event-stream" },
      body: JSON.stringify(initialize),
    });
    expect(reply.status, reply.text).toBe(415);
    expect(reply.headers["mcp-session-id"]).toBeUndefined();
    expect(handler.sessionCount).toBe(0);
    expect((reply.messages[0] as { error?: { code: number } }).error?.code).toBe(-32600);
    // The same request as application/json is served, so the refusal is the media type's.
    expect((await legacy.open()).status).toBe(200);
    expect(handler.sessionCount).toBe(1);
  });

  it("answers removed methods and unknown methods with 404 -32601", async () => {
    const p = await peer();
    const initialize = await p.send(p.request("initialize", { protocolVersion: MODERN }));
    expectError(initialize, 404, -32601, 1);
    expect(initialize.messages[0]).toMatchObject({ error: { data: "initialize is not part of 2026-07-28" } });
    for (const method of [
      "ping",
      "logging/setLevel",
      "resources/subscribe",
      "resources/unsubscribe",
      "x/unknown",
    ]) {
      const request = p.request(method, method.startsWith("resources") ? { uri: "test://x" } : {});
      expectError(await p.send(request), 404, -32601, request.id);
    }
  });

  it("serves a request: 200 JSON when nothing comes before the answer, and no routing header", async () => {
    const p = await peer();
    const reply = await p.send(p.request("tools/list"));
    expect(reply.status).toBe(200);
    expect(reply.contentType).toBe("application/json");
    expect(reply.headers["content-length"]).toBe(String(Buffer.byteLength(reply.text)));
    expect(reply.messages).toEqual([
      expect.objectContaining({ id: 1, result: expect.objectContaining({ tools: expect.any(Array) }) }),
    ]);
    expectNoRoutingHeaders(reply);
  });

  it("serves SSE, with X-Accel-Buffering: no, to a client that accepts only text/event-stream", async () => {
    const p = await peer();
    const reply = await p.send(p.request("tools/list"), { headers: { accept: "text/event-stream" } });
    expect(reply.status).toBe(200);
    expect(reply.contentType).toBe("text/event-stream");
    expect(reply.headers["x-accel-buffering"]).toBe("no");
    expect(reply.headers["cache-control"]).toBe("no-cache");
    expect(reply.messages).toEqual([expect.objectContaining({ result: expect.anything() })]);
    expectNoRoutingHeaders(reply);
  });

  it("answers request errors from dispatch with their HTTP status: 400 for -32602", async () => {
    const p = await peer();
    const unknown = p.request("tools/call", { name: "nope", arguments: {} });
    expectError(await p.send(unknown), 400, -32602, unknown.id);
    const missing = p.request("resources/read", { uri: "test://missing" });
    const reply = await p.send(missing);
    expectError(reply, 400, -32602, missing.id);
    expect(reply.messages[0]).toMatchObject({ error: { data: { uri: "test://missing" } } });
    // A tool's own failure is a result (isError), 200.
    const failed = await p.send(p.request("tools/call", { name: "fail", arguments: {} }));
    expect(failed.status).toBe(200);
    expect(failed.messages.at(-1)).toMatchObject({ result: { isError: true } });
  });
});

describe("2026-07-28 over HTTP: _meta and the standard routing headers", () => {
  it("answers a missing _meta or a missing required member with 400 -32602", async () => {
    const p = await peer();
    const meta = modernMeta();
    const cases: Array<{ [key: string]: unknown }> = [
      {},
      { _meta: { ...meta, "io.modelcontextprotocol/protocolVersion": undefined } },
      { _meta: { ...meta, "io.modelcontextprotocol/clientCapabilities": undefined } },
      { _meta: { ...meta, "io.modelcontextprotocol/clientInfo": { name: "no version" } } },
    ];
    for (const [index, params] of cases.entries()) {
      const request = { jsonrpc: "2.0", id: 100 + index, method: "server/discover", params };
      expectError(
        await p.send(JSON.parse(JSON.stringify(request)), { validate: false }),
        400,
        -32602,
        100 + index,
      );
    }
  });

  it("answers MCP-Protocol-Version missing or unequal to _meta with 400 -32020", async () => {
    const p = await peer();
    const request = p.request("tools/list");
    expectError(
      await p.send(request, { headers: { "mcp-protocol-version": undefined } }),
      400,
      -32020,
      request.id,
    );
    const skewed = p.request(
      "server/discover",
      {},
      { "io.modelcontextprotocol/protocolVersion": "v999.0.0" },
    );
    expectError(await p.send(skewed, { validate: false }), 400, -32020, skewed.id);
  });

  it("answers an unsupported version (header and _meta agreeing) with 400 -32022 listing the supported ones", async () => {
    const p = await peer();
    const request = p.request(
      "server/discover",
      {},
      { "io.modelcontextprotocol/protocolVersion": "v999.0.0" },
    );
    const reply = await p.send(request, { headers: { "mcp-protocol-version": "v999.0.0" }, validate: false });
    expectError(reply, 400, -32022, request.id);
    expect(reply.messages[0]).toMatchObject({
      error: { data: { supported: ["2026-07-28", "2025-11-25"], requested: "v999.0.0" } },
    });
  });

  it("answers Mcp-Method missing, different or differently cased with 400 -32020; header names are case-free", async () => {
    const p = await peer();
    const request = () => p.request("tools/list");
    expectError(await p.send(request(), { headers: { "mcp-method": undefined } }), 400, -32020);
    expectError(await p.send(request(), { headers: { "mcp-method": "prompts/list" } }), 400, -32020);
    expectError(await p.send(request(), { headers: { "mcp-method": "TOOLS/LIST" } }), 400, -32020);
    const reply = await p.send(request(), {
      headers: { "mcp-method": undefined, "MCP-METHOD": "tools/list" },
    });
    expect(reply.status).toBe(200);
  });

  it("checks Mcp-Name against params.name (tools/call, prompts/get) and params.uri (resources/read)", async () => {
    const p = await peer(namesServer());
    const cases = [
      p.request("tools/call", { name: "echo", arguments: {} }),
      p.request("prompts/get", { name: "hello" }),
      p.request("resources/read", { uri: "test://ünïcode" }),
    ];
    for (const request of cases) {
      expectError(await p.send(request, { headers: { "mcp-name": undefined } }), 400, -32020, request.id);
      expectError(await p.send(request, { headers: { "mcp-name": "other" } }), 400, -32020, request.id);
      const ok = await p.send({ ...request, id: request.id + 1000 });
      expect(ok.status, request.method).toBe(200);
      expect(ok.messages.at(-1)).toHaveProperty("result");
    }
  });

  it("decodes base64 Mcp-Name values, accepts surrounding spaces, refuses undecodable ones", async () => {
    const p = await peer(namesServer());
    const call = (name: string) => p.request("tools/call", { name, arguments: {} });
    // "café" is not ASCII: the peer sends it as =?base64?Y2Fmw6k=?=.
    const cafe = await p.send(call("café"));
    expect(cafe.status).toBe(200);
    expect(cafe.messages.at(-1)).toMatchObject({ result: { content: [{ text: "unicode" }] } });
    expect((await p.send(call("echo"), { headers: { "mcp-name": "  echo  " } })).status).toBe(200);
    expect((await p.send(call("echo"), { headers: { "mcp-name": "=?base64?ZWNobw==?=" } })).status).toBe(200);
    expectError(await p.send(call("echo"), { headers: { "mcp-name": "=?base64?ZWNobw?=" } }), 400, -32020);
    expectError(await p.send(call("echo"), { headers: { "mcp-name": "=?base64?ZW!obw==?=" } }), 400, -32020);
    expectError(await p.send(call("café"), { headers: { "mcp-name": "caf" } }), 400, -32020);
  });

  it("takes a tool named like the sentinel only in its encoded form", async () => {
    const p = await peer(namesServer());
    const request = p.request("tools/call", { name: SENTINEL_LOOKALIKE, arguments: {} });
    // The peer encodes the look-alike literal, and the server decodes it back to the literal name.
    const encoded = await p.send(request);
    expect(encoded.status).toBe(200);
    expect(encoded.messages.at(-1)).toMatchObject({ result: { content: [{ text: "lookalike" }] } });
    // Sent raw, the server decodes it to "Hello", which is not the name.
    const rawHeader = await p.send({ ...request, id: 99 }, { headers: { "mcp-name": SENTINEL_LOOKALIKE } });
    expectError(rawHeader, 400, -32020, 99);
  });

  it("never answers with routing or session headers", async () => {
    const p = await peer();
    const replies = [
      await p.send(p.request("tools/call", { name: "add", arguments: { a: 1, b: 2 } })),
      await p.send(p.request("tools/list"), { headers: { "mcp-method": "x" } }),
      await p.send(p.request("tools/list"), { headers: { "mcp-session-id": undefined } }),
    ];
    for (const reply of replies) expectNoRoutingHeaders(reply);
  });
});
