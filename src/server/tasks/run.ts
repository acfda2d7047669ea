import type { InputRequests, InputResponses } from "../../protocol/types/input.js";
import type { CallToolResult } from "../../protocol/types/tools.js";
import { type PluginAnswer, pluginAnswer, pluginAnswerKind } from "../core/plugin-answer.js";

/** The kind of a {@link TaskRun} answer, served by the tasks plugin. */
export const TASK_ANSWER = "task";

/**
 * What the work of a task gets: its id, a signal that fires when the client cancels it or its TTL passes, and
 * ways to report status and progress and to ask the client for input.
 *
 * @example
 * return runAsTask(async (task) => {
 *   await task.progress(1, 2, "fetched");
 *   const { ok } = await task.input({ ok: { method: "elicitation/create", params } });
 *   return { content: [{ type: "text", text: "done" }] };
 * });
 */
export interface TaskContext {
  /** The task's id; `undefined` when the call runs inline (the client did not ask for a task). */
  readonly taskId: string | undefined;
  /** Fires when the task is cancelled (`tasks/cancel`), its TTL passes, or (inline) the request ends. */
  readonly signal: AbortSignal;
  /** Sets the task's `statusMessage` (sent in a status notification where the era has them). */
  status(message: string): Promise<void>;
  /**
   * Reports progress: `notifications/progress` on the creating request's token while it is open, and the
   * `statusMessage` (`message`, or `progress/total`).
   */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /**
   * Asks the client for input and waits for every answer: the task turns `input_required` with these requests
   * (2026-07-28: `tasks/get` shows them, `tasks/update` answers them, one key at a time if the client likes;
   * 2025-11-25: sent to the client as real requests on its `tasks/result` call). Inline, outside a task, it
   * rejects with `McpkitError` `UNSUPPORTED`: ask with `inputRequired()` before `runAsTask` instead.
   */
  input(requests: InputRequests): Promise<InputResponses>;
}

/** The work of a task: resolves with the tool's result (an `isError` one too), or throws to fail the task. */
export type TaskWork = (task: TaskContext) => Promise<CallToolResult> | CallToolResult;

/** What a tool handler returns to run as a task: see {@link runAsTask}. */
export interface TaskRun extends PluginAnswer {
  readonly work: TaskWork;
}

/**
 * Answers a `tools/call` with a task: the server creates it (durably, before it answers), answers with the
 * task handle, and runs `work` after the request ends. When the client cannot take a task (2026-07-28: its
 * request does not declare the `io.modelcontextprotocol/tasks` extension; 2025-11-25: no `task` param), the
 * work runs inline and its result is the call's answer. A handler may ask for input with `inputRequired()`
 * first and return `runAsTask` on a later round.
 *
 * @example
 * builder.tool(
 *   { name: "research", inputSchema: z.object({ q: z.string() }), execution: { taskSupport: "optional" } },
 *   ({ q }) => runAsTask(async (task) => {
 *     await task.progress(0, 1, "searching");
 *     return { content: [{ type: "text", text: await research(q, task.signal) }] };
 *   }),
 * );
 */
export function runAsTask(work: TaskWork): TaskRun {
  if (typeof work !== "function") throw new TypeError("runAsTask needs a function");
  return pluginAnswer(TASK_ANSWER, { work });
}

/** True for what {@link runAsTask} returns. */
export function isTaskRun(value: unknown): value is TaskRun {
  return pluginAnswerKind(value) === TASK_ANSWER;
}
