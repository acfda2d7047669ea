/**
 * A server with tasks for the tasks tests: `research` (a task when the client can take one: progress, one
 * confirmation asked through the task, then a result), `slow` (waits until cancelled), `quick` (answers at
 * once, as a task) and `only_task` (`taskSupport: "required"`).
 */
import { type Server, ServerBuilder } from "../../src/server/index.js";
import type { TasksOptions } from "../../src/server/tasks/options.js";
import { runAsTask, type TaskContext } from "../../src/server/tasks/run.js";

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

const CONFIRM = {
  method: "elicitation/create" as const,
  params: {
    message: "Go ahead?",
    requestedSchema: { type: "object" as const, properties: { ok: { type: "boolean" as const } } },
  },
};

function waitForAbort(task: TaskContext): Promise<never> {
  return new Promise((_resolve, reject) =>
    task.signal.addEventListener("abort", () => reject(task.signal.reason)),
  );
}

export function taskServer(tasks: TasksOptions | true = { pollIntervalMs: 10 }): Server {
  const none = { type: "object" as const, properties: {} };
  return new ServerBuilder({ serverInfo: { name: "tasks", version: "1.0.0" }, tasks })
    .tool({ name: "research", inputSchema: none, execution: { taskSupport: "optional" } }, () =>
      runAsTask(async (task) => {
        await task.progress(1, 2, "searched");
        if (task.taskId === undefined) return text("inline answer");
        const { go } = await task.input({ go: CONFIRM });
        return text(`report (${go?.action === "accept" ? "approved" : "declined"})`);
      }),
    )
    .tool({ name: "slow", inputSchema: none, execution: { taskSupport: "optional" } }, () =>
      runAsTask(waitForAbort),
    )
    .tool({ name: "quick", inputSchema: none, execution: { taskSupport: "optional" } }, () =>
      runAsTask(() => text("quick answer")),
    )
    .tool({ name: "only_task", inputSchema: none, execution: { taskSupport: "required" } }, () =>
      runAsTask(() => text("done")),
    )
    .build();
}
