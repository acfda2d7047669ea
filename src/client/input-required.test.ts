import { describe, expect, it } from "vitest";
import { connectFake, type Handler, ok, type Reply } from "../../test/support/fake-server.js";
import { useWireValidation } from "../../test/support/validating-transport.js";
import { McpkitError } from "../jsonrpc/errors.js";
import type { InputRequests } from "../protocol/types/input.js";
import { Client } from "./client.js";
import { isInputRequiredResult } from "./input-required.js";
import type { InputContext } from "./input-types.js";

useWireValidation();

const ELICIT = {
  method: "elicitation/create",
  params: {
    message: "Who are you?",
    requestedSchema: {
      type: "object",
      properties: { name: { type: "string" }, age: { type: "integer", default: 30 } },
    },
  },
} as const;
const SAMPLING = {
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: "Say hi" } }], maxTokens: 20 },
} as const;
const ROOTS = { method: "roots/list" } as const;
const ALL = { elicitation: {}, sampling: {}, roots: {} };

const NAME = { action: "accept", content: { name: "Ada" } } as const;
const SAMPLED = { role: "assistant", content: { type: "text", text: "hi" }, model: "m1" } as const;
const ROOT_LIST = { roots: [{ uri: "file:///work", name: "work" }] };

const asking = (inputRequests?: { [key: string]: unknown }, requestState?: string): NonNullable<Reply> =>
  ok({
    resultType: "input_required",
    ...(inputRequests ? { inputRequests } : {}),
    ...(requestState === undefined ? {} : { requestState }),
  });
const done = (text = "done") => ok({ content: [{ type: "text", text }] });

/** Answers the n-th call with the n-th reply (the last one repeats). */
function script(...replies: Reply[]): Handler {
  let call = 0;
  return () => replies[Math.min(call++, replies.length - 1)];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("2026-07-28 input rounds", () => {
  it("answers an elicitation, retries under a new id with the responses and the exact state", async () => {
    const contexts: InputContext[] = [];
    const { server, client } = await connectFake({
      client: {
        capabilities: ALL,
        onElicitation: (params, context) => {
          contexts.push(context);
          expect(params).toEqual(ELICIT.params);
          return NAME;
        },
      },
      setup: (s) => s.on("tools/call", script(asking({ who: ELICIT }, "s t\u00e4te=="), done("hello Ada"))),
    });
    const result = await client.callTool("greet", { loud: true });
    expect(result.content).toEqual([{ type: "text", text: "hello Ada" }]);
    const [first, retry] = server.requests("tools/call");
    expect(retry?.id).not.toBe(first?.id);
    const { _meta, ...params } = retry?.params ?? {};
    expect(params).toEqual({
      name: "greet",
      arguments: { loud: true },
      // The schema default fills the field the user left out (SEP-1034).
      inputResponses: { who: { action: "accept", content: { name: "Ada", age: 30 } } },
      requestState: "s t\u00e4te==",
    });
    expect(_meta).toEqual(first?.params?._meta);
    expect(contexts).toHaveLength(1);
    expect(contexts[0]).toMatchObject({
      era: "2026-07-28",
      method: "tools/call",
      params: { name: "greet", arguments: { loud: true } },
      round: 1,
    });
  });

  it("answers several inputs of one round with the per-kind handlers, concurrently", async () => {
    const started: string[] = [];
    // Each handler waits until both have started: handlers run one after the other would never finish.
    let bothStarted: () => void = () => {};
    const barrier = new Promise<void>((resolve) => {
      bothStarted = resolve;
    });
    const arrive = async (kind: string) => {
      started.push(kind);
      if (started.length === 2) bothStarted();
      await barrier;
    };
    const { server, client } = await connectFake({
      client: {
        capabilities: ALL,
        onElicitation: async () => {
          await arrive("elicitation");
          return { action: "decline" };
        },
        onSampling: async () => {
          await arrive("sampling");
          return SAMPLED;
        },
        onRoots: () => ROOT_LIST,
      },
      setup: (s) => s.on("tools/call", script(asking({ a: ELICIT, b: SAMPLING, c: ROOTS }), done())),
    });
    await client.callTool("multi", {}, { timeoutMs: 5_000 });
    expect(started.sort()).toEqual(["elicitation", "sampling"]);
    expect(server.requests("tools/call")[1]?.params?.inputResponses).toEqual({
      a: { action: "decline" },
      b: SAMPLED,
      c: ROOT_LIST,
    });
  });

  it("runs round after round with one resolver; a round without state sends none", async () => {
    const seen: { requests: InputRequests; round: number }[] = [];
    const { server, client } = await connectFake({
      client: {
        capabilities: ALL,
        onInputRequired: (requests, { round }) => {
          seen.push({ requests, round });
          const key = Object.keys(requests)[0] ?? "";
          return { [key]: key === "roots" ? ROOT_LIST : NAME };
        },
      },
      setup: (s) =>
        s.on(
          "prompts/get",
          script(
            asking({ who: ELICIT }, "one"),
            asking({ roots: ROOTS }),
            asking({ who: ELICIT }, "three"),
            ok({ messages: [] }),
          ),
        ),
    });
    const result = await client.getPrompt("p", { x: "1" });
    expect(result.messages).toEqual([]);
    expect(seen.map((s) => [s.round, Object.keys(s.requests)])).toEqual([
      [1, ["who"]],
      [2, ["roots"]],
      [3, ["who"]],
    ]);
    const sent = server.requests("prompts/get").map((r) => {
      const { _meta, ...params } = r.params ?? {};
      return params;
    });
    expect(sent).toEqual([
      { name: "p", arguments: { x: "1" } },
      {
        name: "p",
        arguments: { x: "1" },
        inputResponses: { who: { ...NAME, content: { name: "Ada", age: 30 } } },
        requestState: "one",
      },
      // Round 2 carried no state: none is sent, not even the previous one.
      { name: "p", arguments: { x: "1" }, inputResponses: { roots: ROOT_LIST } },
      {
        name: "p",
        arguments: { x: "1" },
        inputResponses: { who: { ...NAME, content: { name: "Ada", age: 30 } } },
        requestState: "three",
      },
    ]);
    expect(new Set(server.requests("prompts/get").map((r) => r.id)).size).toBe(4);
  });

  it("sends what the resolver answered when it leaves a key out; the server asks again", async () => {
    let calls = 0;
    const { server, client } = await connectFake({
      client: {
        capabilities: ALL,
        onInputRequired: () => {
          calls++;
          // First round: only the sampling answer; the elicitation is left for later.
          return calls === 1 ? { b: SAMPLED } : { a: { action: "cancel" } };
        },
      },
      setup: (s) =>
        s.on("resources/read", (request) => {
          const responses = (request.params?.inputResponses ?? {}) as { [key: string]: unknown };
          if (!("a" in responses))
            return asking({ a: ELICIT, ...("b" in responses ? {} : { b: SAMPLING }) }, "st");
          return ok({ contents: [{ uri: "file:///r", text: "r" }] });
        }),
    });
    const result = await client.readResource("file:///r");
    expect(result.contents).toEqual([{ uri: "file:///r", text: "r" }]);
    expect(calls).toBe(2);
    expect(server.requests("resources/read").map((r) => r.params?.inputResponses)).toEqual([
      undefined,
      { b: SAMPLED },
      { a: { action: "cancel" } },
    ]);
  });

  it("retries a state-only result without asking anyone, even without a resolver", async () => {
    const { server, client } = await connectFake({
      setup: (s) => s.on("tools/call", script(asking(undefined, "busy-1"), done())),
    });
    await expect(client.callTool("t")).resolves.toMatchObject({ content: [{ text: "done" }] });
    const retry = server.requests("tools/call")[1]?.params ?? {};
    expect(retry.requestState).toBe("busy-1");
    expect("inputResponses" in retry).toBe(false);
  });

  it("without a resolver: the helpers reject INPUT_REQUIRED, request() returns the result as is", async () => {
    const { server, client } = await connectFake({
      client: { capabilities: ALL },
      setup: (s) => s.on("tools/call", () => asking({ who: ELICIT }, "st")),
    });
    const error = await client.callTool("t").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpkitError);
    expect(error).toMatchObject({ code: "INPUT_REQUIRED", details: { method: "tools/call" } });
    const raw = await client.request("tools/call", { name: "t" });
    expect(isInputRequiredResult(raw)).toBe(true);
    if (!isInputRequiredResult(raw)) return;
    expect(raw.inputRequests?.who).toEqual(ELICIT);
    expect(raw.requestState).toBe("st");
    expect(server.requests("tools/call")).toHaveLength(2);
  });

  it("a call's own onInputRequired answers its rounds instead of the client's resolver", async () => {
    const asked: string[] = [];
    const { client } = await connectFake({
      client: {
        capabilities: ALL,
        onInputRequired: () => {
          asked.push("client");
          return { who: NAME };
        },
      },
      setup: (s) =>
        s.on("tools/call", script(asking({ who: ELICIT }), done(), asking({ who: ELICIT }), done())),
    });
    const own = (requests: InputRequests, context: InputContext) => {
      asked.push(`call ${context.round} ${Object.keys(requests).join()}`);
      return { who: NAME };
    };
    await client.callTool("t", {}, { onInputRequired: own });
    await client.callTool("t");
    expect(asked).toEqual(["call 1 who", "client"]);
  });

  it("a call's own onInputRequired works on a client that has no resolver", async () => {
    const { client } = await connectFake({
      client: { capabilities: ALL },
      setup: (s) => s.on("tools/call", script(asking({ who: ELICIT }), done("hi"))),
    });
    const result = await client.callTool("t", {}, { onInputRequired: () => ({ who: NAME }) });
    expect(result.content).toEqual([{ type: "text", text: "hi" }]);
  });
});

describe("2026-07-28 input rounds that fail", () => {
  it("fails the operation when the server asks for an undeclared capability, calling nothing", async () => {
    let called = 0;
    const { server, client } = await connectFake({
      client: {
        capabilities: { elicitation: {} },
        onInputRequired: () => {
          called++;
          return { x: NAME };
        },
      },
      setup: (s) => s.on("tools/call", () => asking({ x: SAMPLING })),
    });
    const error = await client.callTool("t").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "UNSUPPORTED", details: { key: "x", capability: "sampling" } });
    expect((error as Error).message).toContain('needs the client capability "sampling"');
    expect(called).toBe(0);
    expect(server.requests("tools/call")).toHaveLength(1);
  });

  it.each([
    [
      "URL elicitation without elicitation.url",
      { elicitation: {} },
      {
        method: "elicitation/create",
        params: { mode: "url", message: "Log in", url: "https://example.com/login" },
      },
      "elicitation.url",
    ],
    ["form elicitation from a URL-only client", { elicitation: { url: {} } }, ELICIT, "elicitation.form"],
    [
      "sampling with tools without sampling.tools",
      { sampling: {} },
      {
        method: "sampling/createMessage",
        params: { ...SAMPLING.params, tools: [{ name: "t", inputSchema: { type: "object" } }] },
      },
      "sampling.tools",
    ],
    ["roots without roots", { sampling: {} }, ROOTS, "roots"],
  ])("refuses %s", async (_label, capabilities, request, capability) => {
    const { client } = await connectFake({
      client: { capabilities, onInputRequired: () => ({}) },
      setup: (s) => s.on("tools/call", () => asking({ x: request })),
    });
    await expect(client.callTool("t")).rejects.toMatchObject({
      code: "UNSUPPORTED",
      details: { capability },
    });
  });

  it("fails when a declared capability has no handler", async () => {
    const { client } = await connectFake({
      client: { capabilities: ALL, onElicitation: () => NAME },
      setup: (s) => s.on("tools/call", () => asking({ x: SAMPLING })),
    });
    await expect(client.callTool("t")).rejects.toMatchObject({ code: "UNSUPPORTED" });
  });

  it("isolates a resolver that throws: only its operation fails", async () => {
    const { server, client } = await connectFake({
      client: {
        capabilities: ALL,
        onElicitation: () => {
          throw new Error("the user closed the window");
        },
      },
      setup: (s) =>
        s.on("tools/call", (request) => (request.params?.name === "ask" ? asking({ x: ELICIT }) : done())),
    });
    const [failed, fine] = await Promise.allSettled([client.callTool("ask"), client.callTool("plain")]);
    expect(failed.status === "rejected" && failed.reason).toMatchObject({
      code: "CALLBACK_FAILED",
      cause: new Error("the user closed the window"),
    });
    expect(fine.status).toBe("fulfilled");
    expect(server.requests("tools/call")).toHaveLength(2); // no retry of the failed one
  });

  it("refuses an invalid response from the resolver", async () => {
    const { server, client } = await connectFake({
      client: { capabilities: ALL, onInputRequired: () => ({ x: { action: "maybe" } }) as never },
      setup: (s) => s.on("tools/call", () => asking({ x: ELICIT })),
    });
    await expect(client.callTool("t")).rejects.toMatchObject({ code: "CALLBACK_FAILED" });
    expect(server.requests("tools/call")).toHaveLength(1);
  });

  it("times out a resolver that hangs (callbackTimeoutMs), aborting its signal", async () => {
    let signal: AbortSignal | undefined;
    const { server, client } = await connectFake({
      client: {
        capabilities: ALL,
        callbackTimeoutMs: 40,
        onInputRequired: (_requests, context) => {
          signal = context.signal;
          return new Promise(() => {});
        },
      },
      setup: (s) => s.on("tools/call", (r) => (r.params?.name === "ask" ? asking({ x: ELICIT }) : done())),
    });
    await expect(client.callTool("ask")).rejects.toMatchObject({
      code: "TIMEOUT",
      message: "onInputRequired timed out after 40 ms",
    });
    expect(signal?.aborted).toBe(true);
    expect(server.requests("tools/call")).toHaveLength(1);
    await expect(client.callTool("plain")).resolves.toMatchObject({ content: [{ text: "done" }] });
  });

  it("keeps one deadline across rounds: it is never reset", async () => {
    const { server, client } = await connectFake({
      client: {
        capabilities: ALL,
        onInputRequired: async () => {
          await sleep(40);
          return { x: NAME };
        },
      },
      setup: (s) => s.on("tools/call", () => asking({ x: ELICIT }, "again")),
    });
    const before = Date.now();
    const error = await client.callTool("t", {}, { timeoutMs: 100 }).catch((e: unknown) => e);
    const elapsed = Date.now() - before;
    expect(error).toMatchObject({ code: "TIMEOUT", message: "tools/call timed out after 100 ms" });
    expect(elapsed).toBeGreaterThanOrEqual(95);
    // 40 ms per round: at most the third resolver call is cut short by the operation's deadline (a deadline
    // reset per round would run all 16 rounds and end in LIMIT_EXCEEDED instead).
    expect(server.requests("tools/call").length).toBeLessThanOrEqual(3);
  });

  it("stops after maxInputRounds retries with LIMIT_EXCEEDED", async () => {
    const { server, client } = await connectFake({
      client: { capabilities: ALL, maxInputRounds: 3, onInputRequired: () => ({ x: NAME }) },
      setup: (s) => s.on("tools/call", () => asking({ x: ELICIT }, "loop")),
    });
    await expect(client.callTool("t")).rejects.toMatchObject({
      code: "LIMIT_EXCEEDED",
      details: { option: "maxInputRounds", limit: 3, size: 4 },
    });
    expect(server.requests("tools/call")).toHaveLength(4);
  });

  it("the default round bound is 16", async () => {
    const { server, client } = await connectFake({
      setup: (s) => s.on("tools/call", () => asking(undefined, "loop")),
    });
    await expect(client.callTool("t")).rejects.toMatchObject({
      code: "LIMIT_EXCEEDED",
      details: { option: "maxInputRounds", limit: 16 },
    });
    expect(server.requests("tools/call")).toHaveLength(17);
  });

  it("refuses a 33rd concurrent resolver call with CAPACITY (nothing waits)", async () => {
    const release: (() => void)[] = [];
    const { client } = await connectFake({
      client: {
        capabilities: ALL,
        onInputRequired: () => new Promise((resolve) => release.push(() => resolve({ x: NAME }))),
      },
      setup: (s) => s.on("tools/call", (r) => (r.params?.inputResponses ? done() : asking({ x: ELICIT }))),
    });
    const calls = Array.from({ length: 32 }, () => client.callTool("t"));
    while (release.length < 32) await sleep(1);
    await expect(client.callTool("t")).rejects.toMatchObject({
      code: "CAPACITY",
      details: { option: "maxConcurrentCallbacks", limit: 32, size: 33 },
    });
    for (const go of release) go();
    await expect(Promise.all(calls)).resolves.toHaveLength(32);
  });

  it("refuses a malformed input_required result with PROTOCOL", async () => {
    const { client } = await connectFake({
      validate: false,
      client: { capabilities: ALL, onInputRequired: () => ({}) },
      setup: (s) => s.on("tools/call", () => ok({ resultType: "input_required" })),
    });
    await expect(client.callTool("t")).rejects.toMatchObject({ code: "PROTOCOL" });
  });
});

describe("input options", () => {
  it("refuses onInputRequired together with a per-kind handler", () => {
    expect(
      () =>
        new Client({
          transport: { start: async () => {}, send: async () => {}, close: async () => {} },
          clientInfo: { name: "c", version: "1" },
          onInputRequired: () => ({}),
          onSampling: () => SAMPLED,
        }),
    ).toThrow(expect.objectContaining({ code: "INVALID_CONFIG", details: { key: "onSampling" } }));
  });

  it.each([
    "maxInputRounds",
    "callbackTimeoutMs",
    "maxConcurrentCallbacks",
    "maxSubscriptions",
    "subscriptionQueueSize",
  ])("checks %s", (key) => {
    expect(
      () =>
        new Client({
          transport: { start: async () => {}, send: async () => {}, close: async () => {} },
          clientInfo: { name: "c", version: "1" },
          [key]: 0,
        }),
    ).toThrow(expect.objectContaining({ code: "INVALID_CONFIG", details: { key } }));
  });
});
