/**
 * Input rounds over real HTTP on 127.0.0.1, both eras. 2026-07-28: InputRequiredResult answers and retries,
 * with the spec's status codes for a refused state or a missing capability. 2025-11-25: the server sends its
 * requests on the POST's own SSE stream (or, for a JSON answer, on the session's GET stream), the client
 * answers with separate POSTs carrying the session id, and the final result ends the stream. Every message is
 * checked against the schema of its era by the peer.
 */
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import type { JsonRpcRequest } from "../../src/jsonrpc/message.js";
import { HttpPeer, raw, useServe } from "../support/http-peer.js";
import { accept, inputServer } from "../support/input-server.js";
import { until } from "../support/until.js";

const serve = useServe();
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const ALL = { sampling: {}, elicitation: {}, roots: {} };
const caps = (capabilities: object = ALL) => ({ "io.modelcontextprotocol/clientCapabilities": capabilities });

async function start(options = {}, serverOptions = {}) {
  const built = inputServer(serverOptions);
  const handler = createHttpHandler(built.server, options);
  const { url } = await serve(handler);
  return { ...built, handler, url };
}

/** A legacy peer whose session negotiated every client capability. */
async function legacyPeer(url: string, capabilities: object = ALL): Promise<HttpPeer> {
  const peer = new HttpPeer(url, LEGACY);
  const init = peer.request("initialize", {
    protocolVersion: LEGACY,
    capabilities,
    clientInfo: { name: "http-peer", version: "1.0.0" },
  });
  await peer.send(init);
  await peer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return peer;
}

describe("2026-07-28 input rounds over HTTP", () => {
  it("answers with an InputRequiredResult and completes on the retry", async () => {
    const { url } = await start();
    const peer = new HttpPeer(url, MODERN);
    const first = await peer.send(peer.request("tools/call", { name: "survey", arguments: {} }, caps()));
    expect(first.status).toBe(200);
    const r1 = (first.messages[0] as { result: { [key: string]: unknown } }).result;
    expect(r1).toMatchObject({
      resultType: "input_required",
      inputRequests: { name: { method: "elicitation/create" } },
    });
    const second = await peer.send(
      peer.request(
        "tools/call",
        {
          name: "survey",
          arguments: {},
          inputResponses: { name: accept({ name: "Ada" }) },
          requestState: r1.requestState,
        },
        caps(),
      ),
    );
    const r2 = (second.messages[0] as { result: { [key: string]: unknown } }).result;
    const third = await peer.send(
      peer.request(
        "tools/call",
        {
          name: "survey",
          arguments: {},
          inputResponses: { color: accept({ color: "red" }) },
          requestState: r2.requestState,
        },
        caps(),
      ),
    );
    expect(third.messages[0]).toMatchObject({
      result: { resultType: "complete", content: [{ text: "Ada likes red" }] },
    });
  });

  it("answers a refused state with 400 -32602 and a missing capability with 400 -32021", async () => {
    const { url, calls } = await start();
    const peer = new HttpPeer(url, MODERN);
    const first = await peer.send(peer.request("tools/call", { name: "survey", arguments: {} }, caps()));
    const { requestState } = (first.messages[0] as unknown as { result: { requestState: string } }).result;
    const tampered = await peer.send(
      peer.request("tools/call", { name: "survey", arguments: {}, requestState: `${requestState}x` }, caps()),
    );
    expect(tampered.status).toBe(400);
    expect(tampered.messages[0]).toMatchObject({ error: { code: -32602 } });
    expect(calls.survey).toBe(1);
    const missing = await peer.send(peer.request("tools/call", { name: "greet", arguments: {} }, caps({})));
    expect(missing.status).toBe(400);
    expect(missing.messages[0]).toMatchObject({
      error: { code: -32021, data: { requiredCapabilities: { elicitation: {} } } },
    });
  });
});

describe("2026-07-28 single-use state over HTTP (singleUseState)", () => {
  const modernResult = (reply: { messages: unknown[] }) =>
    (reply.messages[0] as { result: { [key: string]: unknown } }).result;

  it("completes a multi-round flow, then answers a replay with 400 -32602 (reason used)", async () => {
    const authenticate = () => ({ principal: "alice" });
    const { url, calls } = await start({ authenticate }, { singleUseState: true });
    const peer = new HttpPeer(url, MODERN);
    const call = (extra: object) =>
      peer.send(peer.request("tools/call", { name: "survey", arguments: {}, ...extra }, caps()));
    const r1 = modernResult(await call({}));
    const second = { inputResponses: { name: accept({ name: "Ada" }) }, requestState: r1.requestState };
    const r2 = modernResult(await call(second));
    const third = { inputResponses: { color: accept({ color: "red" }) }, requestState: r2.requestState };
    expect(modernResult(await call(third))).toMatchObject({ content: [{ text: "Ada likes red" }] });
    expect(calls.survey).toBe(3);
    for (const replayed of [second, third]) {
      const replay = await call(replayed);
      expect(replay.status).toBe(400);
      expect(replay.messages[0]).toMatchObject({
        error: {
          code: -32602,
          message: "Invalid params: requestState has already been used",
          data: { reason: "used" },
        },
      });
    }
    expect(calls.survey).toBe(3);
  });

  it("lets exactly one of two racing retries through", async () => {
    const { url, calls } = await start({}, { singleUseState: true });
    const peer = new HttpPeer(url, MODERN);
    const call = (extra: object) =>
      peer.send(peer.request("tools/call", { name: "survey", arguments: {}, ...extra }, caps()));
    const { requestState } = modernResult(await call({}));
    const retry = { inputResponses: { name: accept({ name: "Ada" }) }, requestState };
    const replies = await Promise.all([call(retry), call(retry)]);
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 400]);
    expect(calls.survey).toBe(2);
  });
});

describe("2026-07-28 input rounds with deeply nested params over HTTP", () => {
  /** `levels` nested objects, as JSON text (deeper than `JSON.stringify` itself could write). */
  const nestedText = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

  it("answers 400 -32602 too_deep in either round, goes on serving and logs nothing", async () => {
    const logged: unknown[] = [];
    const built = inputServer({
      logger: {
        warn: (...line: unknown[]) => logged.push(line),
        error: (...line: unknown[]) => logged.push(line),
      },
    });
    const { url } = await serve(createHttpHandler(built.server));
    const peer = new HttpPeer(url, MODERN);
    const call = (name: string, levels: number, extra: object = {}) => {
      const message = peer.request("tools/call", { name, arguments: { x: "@" }, ...extra }, caps());
      const body = JSON.stringify(message).replace('"@"', nestedText(levels));
      return peer.send(message, { body });
    };
    // `arguments` is the first level: 31 more inside it is the limit.
    const first = await call("survey", 31);
    const { requestState } = (first.messages[0] as unknown as { result: { requestState: string } }).result;
    expect(typeof requestState).toBe("string");
    for (const levels of [32, 100_000]) {
      const sealing = await call("survey", levels);
      expect(sealing.status).toBe(400);
      expect(sealing.messages[0]).toMatchObject({
        error: { code: -32602, data: { reason: "too_deep", maxDepth: 32 } },
      });
      const retry = await call("survey", levels, { requestState });
      expect(retry.status).toBe(400);
      expect(retry.messages[0]).toMatchObject({ error: { code: -32602, data: { reason: "too_deep" } } });
      // No state, no binding: the depth is the handler's business.
      const stateless = await call("greet", levels);
      expect(stateless.messages[0]).toMatchObject({ result: { resultType: "input_required" } });
    }
    // inputResponses and _meta are not bound: nested as deep as the body allows, the retry is served.
    const message = peer.request(
      "tools/call",
      {
        name: "survey",
        arguments: { x: "@args" },
        inputResponses: { name: { action: "decline", _meta: { deep: "@answer" } } },
        requestState,
      },
      { ...caps(), deep: "@meta" },
    );
    const body = JSON.stringify(message)
      .replace('"@args"', nestedText(31))
      .replace('"@answer"', nestedText(100_000))
      .replace('"@meta"', nestedText(100_000));
    const unbound = await peer.send(message, { body });
    expect(unbound.messages[0]).toMatchObject({ result: { resultType: "input_required" } });
    expect(built.calls.survey).toBe(4);
    expect(logged).toEqual([]);
  });
});

describe("2025-11-25 input rounds over HTTP", () => {
  it("sends the request on the POST's stream, takes the answer as a POST, and ends the stream with the result", async () => {
    const { url } = await start();
    const peer = await legacyPeer(url);
    const call = peer.request("tools/call", { name: "greet", arguments: {} });
    const { response } = peer.stream(call);
    const { res, events } = await response;
    expect(res.headers["content-type"]).toBe("text/event-stream");
    const asked = (await events.next())?.message as JsonRpcRequest;
    expect(asked).toMatchObject({ method: "elicitation/create", params: { message: "Your name?" } });
    const answered = await peer.send({ jsonrpc: "2.0", id: asked.id, result: accept({ name: "Ada" }) });
    expect(answered.status).toBe(202);
    expect((await events.next())?.message).toEqual({
      jsonrpc: "2.0",
      id: call.id,
      result: { content: [{ type: "text", text: "Hello, Ada!" }] },
    });
    expect(await events.next()).toBeUndefined();
  });

  it("sends the requests of a JSON-answered call on the session's GET stream", async () => {
    const { url } = await start({ enableJsonResponse: true });
    const peer = await legacyPeer(url);
    const session = {
      "mcp-session-id": peer.sessionId,
      "mcp-protocol-version": LEGACY,
      accept: "text/event-stream",
    };
    const { res, events } = await peer.stream(undefined, { method: "GET", headers: session }).response;
    expect(res.statusCode).toBe(200);
    expect(await events.next()).toEqual({ comment: "stream open" });
    const pending = peer.send(
      peer.request("tools/call", { name: "ask_llm", arguments: { question: "Why?" } }),
    );
    const asked = (await events.next())?.message as JsonRpcRequest;
    expect(asked).toMatchObject({ method: "sampling/createMessage" });
    await peer.send({
      jsonrpc: "2.0",
      id: asked.id,
      result: { role: "assistant", content: { type: "text", text: "Because." }, model: "m" },
    });
    const reply = await pending;
    expect(reply.contentType).toBe("application/json");
    expect(reply.messages[0]).toMatchObject({ result: { content: [{ text: "The model says: Because." }] } });
  });

  it("fails a JSON-answered call that needs input when no GET stream is open", async () => {
    const { url } = await start({ enableJsonResponse: true });
    const peer = await legacyPeer(url);
    const reply = await peer.send(peer.request("tools/call", { name: "greet", arguments: {} }));
    expect(reply.messages[0]).toMatchObject({
      error: { code: -32603, message: expect.stringContaining("no GET stream open") },
    });
  });

  it("refuses without sending when initialize did not negotiate the capability", async () => {
    const { url } = await start();
    const peer = await legacyPeer(url, { elicitation: {} });
    const reply = await peer.send(peer.request("tools/call", { name: "roots", arguments: {} }));
    // A 2025-11-25 client reads errors from a 200 body; the message names the capability.
    expect(reply.status).toBe(200);
    expect(reply.messages).toHaveLength(1);
    expect(reply.messages[0]).toMatchObject({
      error: {
        code: -32021,
        message: "Missing required client capability: roots (not declared at initialize)",
        data: { requiredCapabilities: { roots: {} } },
      },
    });
  });

  it("cancels the pending request and ends the call's stream when the session is deleted", async () => {
    const { url, server, handler } = await start();
    const peer = await legacyPeer(url);
    const { events } = await peer.stream(peer.request("tools/call", { name: "greet", arguments: {} }))
      .response;
    expect((await events.next())?.message).toMatchObject({ method: "elicitation/create" });
    const gone = await raw(url, {
      method: "DELETE",
      headers: { "mcp-session-id": peer.sessionId, "mcp-protocol-version": LEGACY },
    });
    expect(gone.status).toBe(200);
    // The client is told its pending request is no longer wanted; the call itself gets no answer.
    expect((await events.next())?.message).toMatchObject({
      method: "notifications/cancelled",
      params: { requestId: 1 },
    });
    expect(await events.next()).toBeUndefined();
    await until(() => server.runningHandlers === 0 && handler.sessionCount === 0);
  });
});
