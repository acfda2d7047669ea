/**
 * A tool with an `outputSchema` whose answer is `runAsTask`: its work's result is checked against the schema
 * like an inline result, as a task (a mismatch fails the task with `-32603`, the details only logged) and inline.
 */
import { describe, expect, it } from "vitest";
import { callToolAsTask, waitForTask } from "../../src/client/tasks.js";
import { TASKS_EXTENSION } from "../../src/protocol/types/tasks.js";
import { ServerBuilder } from "../../src/server/index.js";
import { runAsTask } from "../../src/server/tasks/run.js";
import { connectInProcess } from "../support/in-process-client.js";
import { LEGACY, MODERN, useCleanups } from "../support/interop-helpers.js";

const cleanup = useCleanups();

async function connect(era: typeof MODERN | typeof LEGACY, logged: string[], tasks = true) {
  const server = new ServerBuilder({
    serverInfo: { name: "out", version: "1.0.0" },
    tasks: { pollIntervalMs: 10 },
    logger: {
      warn: () => {},
      error: (message, details) => void logged.push(`${message} ${String(details)}`),
    },
  })
    .tool(
      {
        name: "count",
        inputSchema: { type: "object", properties: { good: { type: "boolean" } } },
        outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
        execution: { taskSupport: "optional" },
      },
      (args) =>
        runAsTask(async () => {
          const n = args.good === true ? 3 : "three";
          return { content: [{ type: "text", text: String(n) }], structuredContent: { n } as { n: number } };
        }),
    )
    .build();
  return connectInProcess(
    server,
    { protocolVersion: era, capabilities: tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {} },
    cleanup,
  );
}

describe.each([MODERN, LEGACY] as const)("a task's result against the tool's outputSchema (%s)", (era) => {
  it("completes a task whose result matches, and fails one whose result does not", async () => {
    const logged: string[] = [];
    const client = await connect(era, logged);
    const good = await callToolAsTask(client, "count", { good: true });
    if (good.task === undefined) throw new Error("expected a task");
    expect((await waitForTask(client, good.task, { minPollMs: 5 })).structuredContent).toEqual({ n: 3 });
    const bad = await callToolAsTask(client, "count", { good: false });
    if (bad.task === undefined) throw new Error("expected a task");
    await expect(waitForTask(client, bad.task, { minPollMs: 5 })).rejects.toMatchObject({
      code: -32603,
      message: "Internal error",
    });
    expect(logged.some((line) => line.includes("does not match its outputSchema"))).toBe(true);
  });

  it("checks the result of the same work run inline (a client that cannot take a task)", async () => {
    const logged: string[] = [];
    const client = await connect(era, logged, false);
    expect((await client.callTool("count", { good: true })).structuredContent).toEqual({ n: 3 });
    await expect(client.callTool("count", { good: false })).rejects.toMatchObject({ code: -32603 });
    expect(logged.some((line) => line.includes("does not match its outputSchema"))).toBe(true);
  });
});
