import { describe, expect, it } from "vitest";
import { connectFake } from "../../test/support/fake-server.js";
import { useWireValidation } from "../../test/support/validating-transport.js";
import { JsonRpcError } from "../jsonrpc/errors.js";
import type { InputContext } from "./input-types.js";

useWireValidation();

const SAMPLING = { messages: [{ role: "user", content: { type: "text", text: "Say hi" } }], maxTokens: 20 };
const FORM = {
  message: "Who are you?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
};
const SAMPLED = {
  role: "assistant",
  content: { type: "text", text: "hi" },
  model: "m1",
  stopReason: "endTurn",
} as const;
const ALL = { elicitation: {}, sampling: {}, roots: {} };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("2025-11-25 server requests", () => {
  it("answers sampling, elicitation and roots with the per-kind handlers", async () => {
    const contexts: InputContext[] = [];
    const { server } = await connectFake({
      era: "legacy",
      client: {
        capabilities: ALL,
        onSampling: (params, context) => {
          contexts.push(context);
          expect(params).toEqual(SAMPLING);
          return SAMPLED;
        },
        onElicitation: (params) => ({
          action: "accept",
          content: { name: params.message.length > 0 ? "Ada" : "" },
        }),
        onRoots: () => ({ roots: [{ uri: "file:///work", name: "work" }] }),
      },
    });
    await expect(server.request("sampling/createMessage", SAMPLING)).resolves.toEqual({
      jsonrpc: "2.0",
      id: "s-1",
      result: SAMPLED,
    });
    await expect(server.request("elicitation/create", FORM)).resolves.toMatchObject({
      result: { action: "accept", content: { name: "Ada" } },
    });
    await expect(server.request("roots/list")).resolves.toMatchObject({
      result: { roots: [{ uri: "file:///work", name: "work" }] },
    });
    expect(contexts).toHaveLength(1);
    expect(contexts[0]).toMatchObject({
      era: "2025-11-25",
      method: "sampling/createMessage",
      params: SAMPLING,
      round: 1,
      serverRequestId: "s-1",
    });
  });

  it("calls onInputRequired with a one-entry map keyed by the request id", async () => {
    const seen: unknown[] = [];
    const { server } = await connectFake({
      era: "legacy",
      client: {
        capabilities: ALL,
        onInputRequired: (requests) => {
          seen.push(requests);
          return { "s-1": { action: "decline" } };
        },
      },
    });
    await expect(server.request("elicitation/create", FORM)).resolves.toMatchObject({
      result: { action: "decline" },
    });
    expect(seen).toEqual([{ "s-1": { method: "elicitation/create", params: FORM } }]);
  });

  it("applies the schema defaults the user left out (SEP-1034)", async () => {
    // The official schema.json types form values as string|integer|boolean (schema.ts says number), so the
    // scenario's 95.5 would be refused by the validating transport: this exchange runs unchecked.
    const { server } = await connectFake({
      era: "legacy",
      validate: false,
      client: {
        capabilities: { elicitation: {} },
        onElicitation: () => ({ action: "accept", content: { age: 41 } }),
      },
    });
    // The schema of the conformance scenario elicitation-sep1034-client-defaults.
    const properties = {
      name: { type: "string", description: "User name", default: "John Doe" },
      age: { type: "integer", description: "User age", default: 30 },
      score: { type: "number", description: "User score", default: 95.5 },
      status: {
        type: "string",
        description: "User status",
        enum: ["active", "inactive", "pending"],
        default: "active",
      },
      verified: { type: "boolean", description: "Verification status", default: true },
    };
    const response = await server.request("elicitation/create", {
      message: "Test client default value handling - please accept with defaults",
      requestedSchema: { type: "object", properties, required: [] },
    });
    expect(response).toMatchObject({
      result: {
        action: "accept",
        content: { name: "John Doe", age: 41, score: 95.5, status: "active", verified: true },
      },
    });
  });

  it("refuses a request for an undeclared capability with -32601, calling nothing", async () => {
    let calls = 0;
    const { server } = await connectFake({
      era: "legacy",
      client: {
        capabilities: { elicitation: {} },
        onInputRequired: () => {
          calls++;
          return {};
        },
      },
    });
    for (const [method, params] of [
      ["sampling/createMessage", SAMPLING],
      ["roots/list", undefined],
    ] as const) {
      const response = await server.request(method, params);
      expect(response).toMatchObject({ error: { code: -32601, message: `Method not found: ${method}` } });
    }
    const url = { mode: "url", message: "Log in", url: "https://example.com/login", elicitationId: "e1" };
    await expect(server.request("elicitation/create", url)).resolves.toMatchObject({
      error: {
        code: -32602,
        message:
          'elicitation/create needs the client capability "elicitation.url", which this client did not declare',
      },
    });
    expect(calls).toBe(0);
  });

  it("refuses with -32601 a declared capability that has no handler", async () => {
    const { server } = await connectFake({
      era: "legacy",
      client: { capabilities: ALL, onElicitation: () => ({ action: "cancel" }) },
    });
    await expect(server.request("roots/list")).resolves.toMatchObject({ error: { code: -32601 } });
  });

  it("isolates handlers that throw, answer badly or hang", async () => {
    const warnings: string[] = [];
    const { server, client } = await connectFake({
      era: "legacy",
      client: {
        capabilities: ALL,
        callbackTimeoutMs: 40,
        logger: { warn: (message) => warnings.push(message) },
        onSampling: () => {
          throw new Error("no model");
        },
        onElicitation: () => {
          throw new JsonRpcError(-1, "User rejected", { why: "busy" });
        },
        onRoots: () => new Promise(() => {}),
      },
    });
    await expect(server.request("sampling/createMessage", SAMPLING)).resolves.toMatchObject({
      error: { code: -32603, message: "client callback failed" },
    });
    // A JsonRpcError thrown by the handler is the answer.
    await expect(server.request("elicitation/create", FORM)).resolves.toMatchObject({
      error: { code: -1, message: "User rejected", data: { why: "busy" } },
    });
    const before = Date.now();
    await expect(server.request("roots/list")).resolves.toMatchObject({
      error: { code: -32603, message: "client callback timed out" },
    });
    expect(Date.now() - before).toBeGreaterThanOrEqual(38);
    expect(warnings).toEqual(["answering sampling/createMessage failed"]);
    await expect(client.listTools()).resolves.toHaveProperty("tools");
  });

  it("refuses an invalid answer with -32603", async () => {
    const { server } = await connectFake({
      era: "legacy",
      client: { capabilities: ALL, onSampling: () => ({ role: "robot" }) as never },
    });
    await expect(server.request("sampling/createMessage", SAMPLING)).resolves.toMatchObject({
      error: { code: -32603, message: "client callback failed" },
    });
  });

  it("refuses the 33rd concurrent request with -32603; the others are answered", async () => {
    const release: (() => void)[] = [];
    const { server } = await connectFake({
      era: "legacy",
      client: {
        capabilities: ALL,
        onRoots: () => new Promise((resolve) => release.push(() => resolve({ roots: [] }))),
      },
    });
    const first = Array.from({ length: 32 }, () => server.request("roots/list"));
    while (release.length < 32) await sleep(1);
    await expect(server.request("roots/list")).resolves.toMatchObject({
      error: { code: -32603, message: expect.stringContaining("over maxConcurrentCallbacks") },
    });
    for (const go of release) go();
    const answers = await Promise.all(first);
    expect(answers.every((a) => "result" in a)).toBe(true);
  });

  it("aborts the handler and answers nothing when the server cancels its request", async () => {
    let signal: AbortSignal | undefined;
    const { server } = await connectFake({
      era: "legacy",
      client: {
        capabilities: ALL,
        onSampling: (_params, context) => {
          signal = context.signal;
          return new Promise(() => {});
        },
      },
    });
    void server.request("sampling/createMessage", SAMPLING);
    while (signal === undefined) await sleep(1);
    await server.notify("notifications/cancelled", { requestId: "s-1", reason: "no longer needed" });
    await sleep(10);
    expect(signal.aborted).toBe(true);
    expect(server.received.filter((m) => "id" in m && m.id === "s-1")).toEqual([]);
  });

  it("answers ping with {} and nothing of 2026", async () => {
    const { server } = await connectFake({ era: "legacy" });
    await expect(server.request("ping")).resolves.toMatchObject({ result: {} });
  });
});

describe("2026-07-28 has no server requests", () => {
  it("answers sampling/createMessage with -32601 even when sampling is declared", async () => {
    let calls = 0;
    const { server } = await connectFake({
      validate: false,
      client: {
        capabilities: ALL,
        onSampling: () => {
          calls++;
          return SAMPLED as never;
        },
      },
    });
    await expect(server.request("sampling/createMessage", SAMPLING)).resolves.toMatchObject({
      error: { code: -32601 },
    });
    expect(calls).toBe(0);
  });
});
