/**
 * 2025-11-25 input rounds on an in-process connection: the same handlers' `inputRequired()` become real
 * server-to-client requests (`elicitation/create`, `sampling/createMessage`, `roots/list`); the server gathers
 * the answers and calls the handler again. Every message both ways is checked against the 2025 schema.
 */
import { afterEach, describe, expect, it } from "vitest";
import { accept, inputServer, reply } from "../../../test/support/input-server.js";
import { connectRaw, errorOf, resultOf } from "../../../test/support/raw-peer.js";
import { until } from "../../../test/support/until.js";
import { useWireValidation } from "../../../test/support/validating-transport.js";
import type { JsonRpcRequest } from "../../jsonrpc/message.js";
import type { Server } from "../server.js";

useWireValidation();

const ALL = { sampling: {}, elicitation: {}, roots: {} };

/** Answers each server request by method, like a client with every capability would. */
function answerAll(request: JsonRpcRequest) {
  switch (request.method) {
    case "elicitation/create": {
      const schema = request.params?.requestedSchema as { properties: object } | undefined;
      const field = Object.keys(schema?.properties ?? {})[0] ?? "x";
      return { result: accept({ [field]: field === "name" ? "Ada" : "teal" }) };
    }
    case "sampling/createMessage":
      return { result: reply("Hello") };
    case "roots/list":
      return { result: { roots: [{ uri: "file:///work", name: "work" }] } };
    default:
      return undefined;
  }
}

let server: Server;
afterEach(async () => {
  await server?.close();
});

async function setup(capabilities: object = ALL, options = {}) {
  const built = inputServer(options);
  server = built.server;
  const { peer, connection } = await connectRaw(server);
  await peer.initialize(capabilities as { [key: string]: unknown });
  return { peer, connection, calls: built.calls };
}

const call = (peer: Awaited<ReturnType<typeof setup>>["peer"], name: string, id?: number) =>
  peer.request("tools/call", { name, arguments: {} }, id);

describe("2025-11-25 input rounds", () => {
  it("sends an elicitation to the client and calls the handler again with the answer", async () => {
    const { peer, calls } = await setup();
    peer.answer = answerAll;
    expect(resultOf(await call(peer, "greet"))).toEqual({ content: [{ type: "text", text: "Hello, Ada!" }] });
    expect(peer.serverRequests).toEqual([
      {
        jsonrpc: "2.0",
        id: 1,
        method: "elicitation/create",
        params: {
          message: "Your name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        },
      },
    ]);
    expect(calls.greet).toBe(2);
  });

  it("sends every request of a round at once (sampling, elicitation, roots) and gathers them", async () => {
    const { peer } = await setup();
    const pending = call(peer, "everything");
    await until(() => peer.serverRequests.length === 3);
    expect(peer.serverRequests.map((r) => r.method).sort()).toEqual([
      "elicitation/create",
      "roots/list",
      "sampling/createMessage",
    ]);
    for (const request of peer.serverRequests) {
      const answer = answerAll(request);
      if (answer) await peer.send({ jsonrpc: "2.0", id: request.id, ...answer } as never);
    }
    expect(resultOf(await pending).content).toEqual([{ type: "text", text: "Hello Ada" }]);
    peer.answer = answerAll;
    expect(resultOf(await call(peer, "roots")).content).toEqual([{ type: "text", text: "file:///work" }]);
  });

  it("runs multi-round flows with the handler's state, and prompts and resources too", async () => {
    const { peer } = await setup();
    peer.answer = answerAll;
    expect(resultOf(await call(peer, "survey")).content).toEqual([{ type: "text", text: "Ada likes teal" }]);
    expect(peer.serverRequests.map((r) => r.id)).toEqual([1, 2]);
    expect(resultOf(await call(peer, "state_only")).content).toEqual([
      { type: "text", text: "resumed later" },
    ]);
    const prompt = await peer.request("prompts/get", { name: "contextual" });
    expect(resultOf(prompt).messages).toEqual([
      { role: "user", content: { type: "text", text: "Talk about teal" } },
    ]);
    const read = await peer.request("resources/read", { uri: "test://secret" });
    expect(resultOf(read).contents).toEqual([{ uri: "test://secret", text: "the secret, unlocked by teal" }]);
  });

  it("sends nothing and fails with -32021 naming what initialize did not negotiate", async () => {
    const { peer, calls } = await setup({ sampling: {} });
    const error = errorOf(await call(peer, "everything"));
    expect(error).toEqual({
      code: -32021,
      message: "Missing required client capability: elicitation, roots (not declared at initialize)",
      data: { requiredCapabilities: { elicitation: {}, roots: {} } },
    });
    expect(peer.serverRequests).toEqual([]);
    expect(calls.everything).toBe(1);
  });

  it("fails the call when the client answers an input request with an error", async () => {
    const { peer } = await setup();
    peer.answer = () => ({ error: { code: -32600, message: "user closed the dialog" } });
    expect(errorOf(await call(peer, "greet"))).toEqual({
      code: -32603,
      message: 'Input request "name" failed: user closed the dialog',
      data: { key: "name", error: { code: -32600, message: "user closed the dialog" } },
    });
  });

  it("cancels its pending requests on the client when the call is cancelled", async () => {
    const { peer } = await setup();
    const pending = call(peer, "greet", 77);
    await until(() => peer.serverRequests.length === 1);
    await peer.notify("notifications/cancelled", { requestId: 77, reason: "user gave up" });
    await until(() => peer.notifications.some((n) => n.method === "notifications/cancelled"));
    expect(peer.notifications.find((n) => n.method === "notifications/cancelled")?.params).toEqual({
      requestId: 1,
      reason: "the request that needed this input ended",
    });
    const outcome = await Promise.race([
      pending.then(() => "answered"),
      new Promise((r) => setTimeout(r, 50, "none")),
    ]);
    expect(outcome).toBe("none");
  });

  it("gives up on an unanswered request after the handler deadline, and tells the client", async () => {
    const { peer } = await setup(ALL, { handlerTimeoutMs: 50 });
    const error = errorOf(await call(peer, "greet"));
    expect(error).toMatchObject({
      code: -32603,
      message: 'Input request "name" failed: the client did not answer elicitation/create in time',
    });
    expect(peer.notifications.at(-1)).toMatchObject({
      method: "notifications/cancelled",
      params: { requestId: 1 },
    });
  });

  it("bounds pending server requests per session and rounds per call", async () => {
    const { peer } = await setup(ALL, { maxClientRequests: 2, maxInputRounds: 3 });
    expect(errorOf(await call(peer, "everything"))).toMatchObject({
      code: -32603,
      message: expect.stringMatching(
        /^Too many server-to-client requests pending: \d+ requests, over maxClientRequests \(2\)$/,
      ),
      data: { option: "maxClientRequests", limit: 2, reason: "client_request_limit" },
    });
    expect(peer.serverRequests).toEqual([]);
    peer.answer = answerAll;
    expect(errorOf(await call(peer, "loop"))).toEqual({
      code: -32603,
      message: "The handler still needed input: 4 rounds, over maxInputRounds (3)",
      data: { option: "maxInputRounds", limit: 3, size: 4, reason: "too_many_rounds" },
    });
    expect(peer.serverRequests).toHaveLength(2);
  });

  it("fails pending requests when the connection goes away, and drops answers to nothing", async () => {
    const { peer, connection } = await setup();
    void call(peer, "greet");
    await until(() => peer.serverRequests.length === 1);
    await peer.send({ jsonrpc: "2.0", id: 99, result: { roots: [] } });
    await peer.close();
    await connection.closed;
    await until(() => server.runningHandlers === 0);
  });
});
