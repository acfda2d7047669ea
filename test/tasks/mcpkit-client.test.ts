/**
 * mcpkit's client against mcpkit's server with tasks, both eras, in process (every message checked against the
 * era's schema where the era defines tasks): the one-call helper with status and input through the client's
 * own elicitation callback, cancellation, the immediate-answer path, a required tool called without a task,
 * 2025-11-25 listing and status notifications.
 */
import { describe, expect, it } from "vitest";
import { Client, callToolAsTask, callToolToCompletion, cancelTask, getTask } from "../../src/client/index.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import { TASKS_EXTENSION } from "../../src/protocol/types/tasks.js";
import { createInProcessPair } from "../../src/transports/in-process.js";
import { LEGACY, MODERN, useCleanups } from "../support/interop-helpers.js";
import { taskServer } from "../support/task-server.js";
import { until } from "../support/until.js";
import { type Era, validatingPair } from "../support/validating-transport.js";

const cleanup = useCleanups();

async function connect(era: Era, withExtension = true) {
  const server = taskServer();
  // The 2026-07-28 core schema has no tasks (an extension): only 2025-11-25 messages are checked.
  const [plainClient, plainServer] = createInProcessPair();
  const pair =
    era === LEGACY
      ? validatingPair({ era })
      : { client: plainClient, server: plainServer, errors: [] as unknown[] };
  await server.connect(pair.server);
  const notifications: string[] = [];
  const client = new Client({
    transport: pair.client,
    clientInfo: { name: "tasks-test", version: "1.0.0" },
    protocolVersion: era,
    requestTimeoutMs: 5_000,
    logger: { warn: () => {} },
    capabilities: { elicitation: {}, ...(withExtension ? { extensions: { [TASKS_EXTENSION]: {} } } : {}) },
    onElicitation: () => ({ action: "accept", content: { ok: true } }),
    onNotification: (n) => {
      notifications.push(n.method);
    },
  });
  cleanup(
    () => client.close(),
    () => server.close(),
  );
  await client.connect();
  return { client, notifications, errors: pair.errors };
}

describe.each([MODERN, LEGACY] as const)("mcpkit Client with tasks (%s)", (era) => {
  it("runs a tool as a task to its result, with status and input through the client's callbacks", async () => {
    const { client, errors } = await connect(era);
    const seen: string[] = [];
    const result = await callToolToCompletion(
      client,
      "research",
      {},
      {
        minPollMs: 5,
        onStatus: (task) => seen.push(task.status),
      },
    );
    expect(result.content).toEqual([{ type: "text", text: "report (approved)" }]);
    expect(seen[0]).toBe("working");
    if (era === MODERN) expect(seen).toContain("input_required");
    expect(errors).toEqual([]);
  });

  it("cancels a running task", async () => {
    const { client } = await connect(era);
    const { task } = await callToolAsTask(client, "slow");
    if (task === undefined) throw new Error("no task");
    expect(task.status).toBe("working");
    await cancelTask(client, task.taskId);
    expect((await getTask(client, task.taskId)).status).toBe("cancelled");
    // Cancelling it again changes nothing and throws nothing.
    await cancelTask(client, task.taskId);
  });

  it("does not know another session's or a made-up task (-32602)", async () => {
    const { client } = await connect(era);
    const error = await getTask(client, "no-such-task").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect((error as JsonRpcError).code).toBe(-32602);
  });

  it("refuses a required-task tool called without a task", async () => {
    const { client } = await connect(era, false);
    const error = await client.callTool("only_task").catch((e: unknown) => e);
    expect((error as JsonRpcError).code).toBe(era === MODERN ? -32021 : -32601);
  });
});

describe("eras apart", () => {
  it("2026-07-28: a client without the extension gets the work run inline (one call, plain result)", async () => {
    const { client } = await connect(MODERN, false);
    const result = await callToolToCompletion(client, "research");
    expect(result.content).toEqual([{ type: "text", text: "inline answer" }]);
    await expect(client.request("tasks/get", { taskId: "x" })).rejects.toMatchObject({ code: -32021 });
  });

  it("2025-11-25: tasks/list lists the session's tasks; the session hears notifications/tasks/status", async () => {
    const { client, notifications } = await connect(LEGACY);
    const { task } = await callToolAsTask(client, "quick", {}, { ttlMs: 30_000 });
    if (task === undefined) throw new Error("no task");
    expect(task.ttlMs).toBe(30_000);
    const listed = (await client.request("tasks/list", {})) as { tasks: { taskId: string }[] };
    expect(listed.tasks.map((t) => t.taskId)).toEqual([task.taskId]);
    await until(() => notifications.includes("notifications/tasks/status"));
    const payload = await client.request("tasks/result", { taskId: task.taskId });
    expect(payload).toMatchObject({
      content: [{ type: "text", text: "quick answer" }],
      _meta: { "io.modelcontextprotocol/related-task": { taskId: task.taskId } },
    });
  });
});
