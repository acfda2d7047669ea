/**
 * What a tool hears when it asks for input it cannot get, through mcpkit's client and server in process (2025-11-25
 * messages checked against the schema): a 2025-11-25 client that did not declare the capability (the request is
 * never sent; `-32021` naming the capability, catchable inside a task's work, the task's error when uncaught),
 * and `task.input()` while the tool runs inline (a typed `McpkitError` the work can catch; uncaught, a JSON-RPC
 * error saying so, not a bare "Internal error").
 */
import { describe, expect, it } from "vitest";
import { Client, callToolToCompletion } from "../../src/client/index.js";
import { JsonRpcError, McpkitError } from "../../src/jsonrpc/errors.js";
import type { ClientCapabilities } from "../../src/protocol/types/capabilities.js";
import { TASKS_EXTENSION } from "../../src/protocol/types/tasks.js";
import { inputRequired, ServerBuilder } from "../../src/server/index.js";
import { runAsTask } from "../../src/server/tasks/run.js";
import { createInProcessPair } from "../../src/transports/in-process.js";
import { LEGACY, MODERN, useCleanups } from "../support/interop-helpers.js";
import { type Era, validatingPair } from "../support/validating-transport.js";

const cleanup = useCleanups();
const none = { type: "object" as const, properties: {} };
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const ROOTS = { r: { method: "roots/list" as const, params: {} } };

function server() {
  return new ServerBuilder({ serverInfo: { name: "asks", version: "1.0.0" }, tasks: { pollIntervalMs: 10 } })
    .tool({ name: "rounds", inputSchema: none }, (_args, ctx) =>
      ctx.inputResponses?.r ? text("rooted") : inputRequired(ROOTS),
    )
    .tool({ name: "caught", inputSchema: none, execution: { taskSupport: "optional" } }, () =>
      runAsTask(async (task) => {
        try {
          await task.input(ROOTS);
          return text("rooted");
        } catch (error) {
          if (error instanceof JsonRpcError) return text(`${error.code}: ${error.message}`);
          if (error instanceof McpkitError) return text(`${error.code}: ${String(error.details?.reason)}`);
          throw error;
        }
      }),
    )
    .tool({ name: "uncaught", inputSchema: none, execution: { taskSupport: "optional" } }, () =>
      runAsTask(async (task) => {
        await task.input(ROOTS);
        return text("rooted");
      }),
    )
    .build();
}

async function connect(era: Era, capabilities: ClientCapabilities) {
  const built = server();
  const [plainClient, plainServer] = createInProcessPair();
  const pair =
    era === LEGACY ? validatingPair({ era }) : { client: plainClient, server: plainServer, errors: [] };
  // Records every request the server sends the client, so that one it should never have sent would show.
  const asked: string[] = [];
  const send = pair.server.send.bind(pair.server);
  pair.server.send = (message, options) => {
    if ("method" in message && "id" in message) asked.push(message.method);
    return send(message, options);
  };
  await built.connect(pair.server);
  const client = new Client({
    transport: pair.client,
    clientInfo: { name: "asks-test", version: "1.0.0" },
    protocolVersion: era,
    requestTimeoutMs: 5_000,
    logger: { warn: () => {} },
    capabilities,
  });
  cleanup(
    () => client.close(),
    () => built.close(),
  );
  await client.connect();
  return { client, asked, errors: pair.errors };
}

const withTasks = { extensions: { [TASKS_EXTENSION]: {} } };

describe("2025-11-25: input a client did not declare at initialize", () => {
  it("inputRequired(): -32021 naming the capability; nothing is sent", async () => {
    const { client, asked, errors } = await connect(LEGACY, {});
    const error = await client.callTool("rounds").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({
      code: -32021,
      message: "Missing required client capability: roots (not declared at initialize)",
      data: { requiredCapabilities: { roots: {} } },
    });
    expect(asked).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("task.input() in a task: the work catches a JsonRpcError -32021 naming the capability", async () => {
    const { client, asked } = await connect(LEGACY, withTasks);
    const result = await callToolToCompletion(client, "caught", {}, { minPollMs: 5 });
    expect(result.content).toEqual([
      {
        type: "text",
        text: "-32021: Missing required client capability: roots (not declared at initialize)",
      },
    ]);
    expect(asked).toEqual([]);
  });

  it("task.input() in a task, uncaught: the task fails with that error (it does not hang)", async () => {
    const { client, asked } = await connect(LEGACY, withTasks);
    const error = await callToolToCompletion(client, "uncaught", {}, { minPollMs: 5 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code: -32021, data: { requiredCapabilities: { roots: {} } } });
    expect(asked).toEqual([]);
  });
});

describe.each([MODERN, LEGACY] as const)("task.input() while the tool runs inline (%s)", (era) => {
  it("rejects with McpkitError UNSUPPORTED (reason inline_task), which the work can catch", async () => {
    const { client } = await connect(era, { roots: {} });
    const result = await client.callTool("caught");
    expect(result.content).toEqual([{ type: "text", text: "UNSUPPORTED: inline_task" }]);
  });

  it("uncaught, answers a JSON-RPC error that says so, not a bare Internal error", async () => {
    const { client } = await connect(era, { roots: {} });
    const error = await client.callTool("uncaught").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code: -32603, data: { reason: "inline_task" } });
    expect((error as Error).message).toContain("runs inline");
    expect((error as Error).message).toContain("inputRequired()");
  });
});
