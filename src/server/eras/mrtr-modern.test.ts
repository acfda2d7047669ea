/**
 * 2026-07-28 input rounds (SEP-2322) on an in-process connection: the handler's `inputRequired()` becomes an
 * InputRequiredResult with a sealed `requestState`; retries carry `inputResponses` and the exact state. Every
 * message is checked against the 2026 schema. Every flow runs twice: states that open until they expire (the
 * default) and single-use states (`singleUseState: true`), where each retry spends the state it carries.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { accept, inputServer, reply } from "../../../test/support/input-server.js";
import { connectRaw, errorOf, modernMeta, resultOf } from "../../../test/support/raw-peer.js";
import { useWireValidation } from "../../../test/support/validating-transport.js";
import type { Server } from "../server.js";

useWireValidation();

const ALL = { sampling: {}, elicitation: {}, roots: {} };
/** `levels` nested objects around a number. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

const caps = (capabilities: object = ALL) => ({ "io.modelcontextprotocol/clientCapabilities": capabilities });

let server: Server;
afterEach(async () => {
  vi.useRealTimers();
  await server?.close();
});

let singleUseState = false;

async function setup(identity?: unknown, options = {}) {
  const built = inputServer({ singleUseState, ...options });
  server = built.server;
  const { peer } = await connectRaw(server, { identity });
  const call = (name: string, extra: object = {}, capabilities?: object) =>
    peer.modern("tools/call", { name, arguments: {}, ...extra }, caps(capabilities));
  return { peer, call, calls: built.calls };
}

describe.each([false, true])("2026-07-28 input rounds (singleUseState: %s)", (singleUse) => {
  beforeEach(() => {
    singleUseState = singleUse;
  });

  it("answers inputRequired() with an InputRequiredResult (no cache hints), then completes on the retry", async () => {
    const { call } = await setup();
    const first = resultOf(await call("greet"));
    expect(first).toEqual({
      resultType: "input_required",
      inputRequests: {
        name: {
          method: "elicitation/create",
          params: {
            message: "Your name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
          },
        },
      },
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "input", version: "1.0.0" } },
    });
    const done = resultOf(await call("greet", { inputResponses: { name: accept({ name: "Ada" }) } }));
    expect(done).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "Hello, Ada!" }] });
  });

  it("carries sampling and roots, and several requests in one round", async () => {
    const { call } = await setup();
    expect(resultOf(await call("ask_llm")).inputRequests).toMatchObject({
      answer: { method: "sampling/createMessage" },
    });
    const sampled = await call("ask_llm", { inputResponses: { answer: reply("42") } });
    expect(resultOf(sampled).content).toEqual([{ type: "text", text: "The model says: 42" }]);
    const roots = await call("roots", { inputResponses: { roots: { roots: [{ uri: "file:///a" }] } } });
    expect(resultOf(roots).content).toEqual([{ type: "text", text: "file:///a" }]);
    const first = resultOf(await call("everything"));
    expect(Object.keys(first.inputRequests as object)).toEqual(["name", "answer", "roots"]);
    const inputResponses = { name: accept({ name: "Ada" }), answer: reply("Hi"), roots: { roots: [] } };
    const done = await call("everything", { inputResponses, requestState: first.requestState });
    expect(resultOf(done).content).toEqual([{ type: "text", text: "Hi Ada" }]);
  });

  it("asks again for a missing answer and ignores answers it did not ask for", async () => {
    const { call } = await setup();
    const again = resultOf(await call("greet", { inputResponses: { wrong: accept({ name: "x" }) } }));
    expect(again.resultType).toBe("input_required");
    const first = resultOf(await call("everything"));
    const partial = resultOf(
      await call("everything", {
        inputResponses: { name: accept({ name: "Ada" }), extra: accept({ foo: "bar" }) },
        requestState: first.requestState,
      }),
    );
    expect(Object.keys(partial.inputRequests as object)).toEqual(["answer", "roots"]);
  });

  it("runs multi-round flows, the state evolving from round to round", async () => {
    const { call } = await setup();
    const r1 = resultOf(await call("survey"));
    const r2 = resultOf(
      await call("survey", {
        inputResponses: { name: accept({ name: "Ada" }) },
        requestState: r1.requestState,
      }),
    );
    expect(r2.inputRequests).toHaveProperty("color");
    expect(r2.requestState).not.toBe(r1.requestState);
    const r3 = resultOf(
      await call("survey", {
        inputResponses: { color: accept({ color: "teal" }) },
        requestState: r2.requestState,
      }),
    );
    expect(r3.content).toEqual([{ type: "text", text: "Ada likes teal" }]);
  });

  it("works for prompts/get and resources/read too", async () => {
    const { peer } = await setup();
    const prompt = resultOf(await peer.modern("prompts/get", { name: "contextual" }, caps()));
    expect(prompt.resultType).toBe("input_required");
    const rendered = await peer.modern(
      "prompts/get",
      { name: "contextual", inputResponses: { topic: accept({ topic: "owls" }) } },
      caps(),
    );
    expect(resultOf(rendered).messages).toEqual([
      { role: "user", content: { type: "text", text: "Talk about owls" } },
    ]);
    const locked = resultOf(await peer.modern("resources/read", { uri: "test://secret" }, caps()));
    expect(locked).not.toHaveProperty("ttlMs");
    expect(locked).not.toHaveProperty("cacheScope");
    const read = resultOf(
      await peer.modern(
        "resources/read",
        {
          uri: "test://secret",
          inputResponses: { password: accept({ password: "pw" }) },
          requestState: locked.requestState,
        },
        caps(),
      ),
    );
    expect(read).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "public" });
  });

  it("refuses tampered state with -32602 and never calls the handler", async () => {
    const { call, calls } = await setup();
    const { requestState } = resultOf(await call("survey"));
    const before = calls.survey;
    for (const tampered of [
      `${requestState}-TAMPERED`,
      String(requestState).replace(/\.(.)/, ".A$1"),
      "v1.e30.AAAA",
    ]) {
      const error = errorOf(await call("survey", { inputResponses: {}, requestState: tampered }));
      expect(error.code).toBe(-32602);
      expect(error.message).toMatch(/requestState/);
    }
    expect(calls.survey).toBe(before);
  });

  it("refuses state presented with other params, or by another principal", async () => {
    const { call, calls } = await setup({ user: "alice" });
    const { requestState } = resultOf(await call("survey"));
    const other = errorOf(await call("survey", { arguments: { x: 1 }, requestState }));
    expect(other).toMatchObject({ code: -32602, data: { reason: "invalid" } });
    const bobServer = inputServer({ singleUseState });
    const { peer: bob } = await connectRaw(bobServer.server, { identity: { user: "bob" } });
    // Bob's server has its own random key anyway; with a shared key the principal binding still refuses him.
    const shared = inputServer({ singleUseState, stateKey: "s".repeat(32) });
    const { peer: alice2 } = await connectRaw(shared.server, { identity: { user: "alice" } });
    const { peer: bob2 } = await connectRaw(shared.server, { identity: { user: "bob" } });
    const sealed = resultOf(await alice2.modern("tools/call", { name: "survey", arguments: {} }, caps()));
    const stolen = await bob2.modern(
      "tools/call",
      { name: "survey", arguments: {}, requestState: sealed.requestState },
      caps(),
    );
    expect(errorOf(stolen)).toMatchObject({ code: -32602, data: { reason: "invalid" } });
    expect(shared.calls.survey).toBe(1);
    const foreign = await bob.modern("tools/call", { name: "survey", arguments: {}, requestState }, caps());
    expect(errorOf(foreign)).toMatchObject({ code: -32602, data: { reason: "invalid" } });
    expect(calls.survey).toBe(1);
    await Promise.all([bobServer.server.close(), shared.server.close()]);
  });

  it("refuses expired state (requestStateTtlMs)", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { call, calls } = await setup(undefined, { requestStateTtlMs: 1_000 });
    const { requestState } = resultOf(await call("survey"));
    vi.advanceTimersByTime(1_000);
    const error = errorOf(await call("survey", { requestState }));
    expect(error).toMatchObject({ code: -32602, message: "Invalid params: requestState has expired" });
    expect(calls.survey).toBe(1);
  });

  it("refuses a non-string requestState or malformed inputResponses with -32602, without the handler", async () => {
    const built = inputServer({ singleUseState });
    server = built.server;
    const { peer } = await connectRaw(server, { lenient: true });
    for (const extra of [
      { requestState: 42 },
      { requestState: null },
      { inputResponses: null },
      { inputResponses: [] },
      { inputResponses: { name: 12345 } },
    ]) {
      const response = await peer.modern("tools/call", { name: "greet", arguments: {}, ...extra }, caps());
      expect(errorOf(response).code, JSON.stringify(extra)).toBe(-32602);
    }
    expect(built.calls.greet).toBeUndefined();
  });

  it("answers -32021 with data.requiredCapabilities when this request's capabilities cannot answer", async () => {
    const { call } = await setup();
    expect(errorOf(await call("greet", {}, { sampling: {} }))).toEqual({
      code: -32021,
      message: "Missing required client capability: elicitation",
      data: { requiredCapabilities: { elicitation: {} } },
    });
    expect(errorOf(await call("everything", {}, {})).data).toEqual({
      requiredCapabilities: { elicitation: {}, sampling: {}, roots: {} },
    });
    expect(errorOf(await call("url", {}, { elicitation: {} })).data).toEqual({
      requiredCapabilities: { elicitation: { url: {} } },
    });
    expect(resultOf(await call("url", {}, { elicitation: { url: {} } })).resultType).toBe("input_required");
  });

  it("refuses params nested deeper than 32 levels with -32602, in either round, logging nothing", async () => {
    const logged: unknown[] = [];
    const logger = {
      warn: (...line: unknown[]) => logged.push(line),
      error: (...line: unknown[]) => logged.push(line),
    };
    const { call, calls } = await setup(undefined, { logger });
    // `arguments` itself is the first level.
    const limit = { x: nested(31) };
    const past = { x: nested(32) };
    const first = resultOf(await call("survey", { arguments: limit }));
    const retried = await call("survey", {
      arguments: limit,
      inputResponses: { name: accept({ name: "Ada" }) },
      requestState: first.requestState,
    });
    expect(resultOf(retried).inputRequests).toHaveProperty("color");
    // The first round: the handler asked for input with a state that cannot be bound to these params.
    const sealing = errorOf(await call("survey", { arguments: past }));
    expect(sealing).toEqual({
      code: -32602,
      message: "Invalid params: params nest deeper than 32 levels, too deep to bind a requestState to",
      data: { reason: "too_deep", maxDepth: 32 },
    });
    // A retry: refused before the handler runs.
    const before = calls.survey;
    const retry = await call("survey", { arguments: past, requestState: first.requestState });
    expect(errorOf(retry)).toMatchObject({ code: -32602, data: { reason: "too_deep" } });
    expect(calls.survey).toBe(before);
    // A round without state binds nothing: any depth passes.
    expect(resultOf(await call("greet", { arguments: { x: nested(1_000) } })).resultType).toBe(
      "input_required",
    );
    const answered = await call("greet", {
      arguments: { x: nested(1_000) },
      inputResponses: { name: { action: "decline", _meta: { deep: nested(1_000) } } },
    });
    expect(resultOf(answered).resultType).toBe("input_required");
    expect(logged).toEqual([]);
  });

  it("carries state alone, and ignores retry fields on methods that take no input", async () => {
    const { call, peer } = await setup();
    const shed = resultOf(await call("state_only"));
    expect(shed).not.toHaveProperty("inputRequests");
    expect(resultOf(await call("state_only", { requestState: shed.requestState })).content).toEqual([
      { type: "text", text: "resumed later" },
    ]);
    const listed = await peer.request("tools/list", { requestState: 7, _meta: modernMeta() });
    expect(resultOf(listed).resultType).toBe("complete");
  });
});
