import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError, McpkitError } from "../../jsonrpc/errors.js";
import { isObject } from "../../jsonrpc/message.js";
import { RELATED_TASK_META } from "../../protocol/types/tasks.js";
import type { CallToolResult } from "../../protocol/types/tools.js";
import { type Era, MODERN_VERSION } from "../../protocol/versions.js";
import { type NotificationSink, type RequestContext, withLazySignal } from "../core/context.js";
import type { TaskEngine, TaskHooks } from "./engine.js";
import type { TaskContext, TaskRun } from "./run.js";
import { legacyTask, modernCreateResult, tasksCapabilityMissing } from "./wire.js";

type Params = { [key: string]: unknown };

/** The error of a `taskSupport: "required"` tool called by a client that cannot take a task. */
export function taskRequired(era: Era, tool: string): JsonRpcError {
  if (era === MODERN_VERSION) return tasksCapabilityMissing(`tool "${tool}" runs only as a task`);
  return new JsonRpcError(ErrorCode.MethodNotFound, `Tool "${tool}" must be called as a task`, {
    reason: "task_required",
  });
}

const INLINE_INPUT =
  "task.input() cannot ask for input while the tool runs inline (the client did not ask for a task): ask with inputRequired() before runAsTask";

/**
 * Runs the work of a {@link TaskRun} inline, inside the call's executor slot: its result is the answer. Its
 * `task.input()` rejects with `McpkitError` `UNSUPPORTED` (`reason: "inline_task"`); left uncaught, that is
 * answered `-32603` with that message and `data.reason`, not a bare "Internal error". Anything else it throws
 * is answered by `failed` (a thrown `JsonRpcError` as it is; else an `isError` result, as a builder tool's).
 */
export async function runInline(
  answer: TaskRun,
  context: RequestContext,
  failed: (error: unknown) => CallToolResult,
): Promise<Params> {
  const inline: Omit<TaskContext, "signal"> = {
    taskId: undefined,
    status: async () => {},
    progress: (progress, total, message) => context.progress(progress, total, message),
    input: async () => {
      throw new McpkitError("UNSUPPORTED", INLINE_INPUT, { details: { reason: "inline_task" } });
    },
  };
  let result: unknown;
  try {
    // The shared getter of a request's context: no accessor made per inline run; it reads the call's signal.
    result = await answer.work(withLazySignal<TaskContext>(inline, context));
  } catch (error) {
    if (error instanceof McpkitError && error.details?.reason === "inline_task") {
      throw new JsonRpcError(ErrorCode.InternalError, INLINE_INPUT, { reason: "inline_task" });
    }
    return failed(error);
  }
  if (!isObject(result) || !Array.isArray(result.content)) {
    throw new Error("a task's work must resolve with a tool result ({ content: [...] })");
  }
  return result;
}

/** 2026-07-28: creates the task of a `tools/call` and answers with its flat CreateTaskResult. */
export async function startModernTask(
  engine: TaskEngine,
  run: TaskRun,
  principal: string,
  hooks: TaskHooks = {},
): Promise<Params> {
  return modernCreateResult(await engine.start(run, principal, hooks));
}

/**
 * 2025-11-25: creates the task of a task-augmented `tools/call` (its `task.ttl`, clamped) and answers with
 * `{ task }`. The session gets `notifications/tasks/status` at each change, and progress on the request's
 * token while the task runs.
 */
export async function startLegacyTask(
  engine: TaskEngine,
  run: TaskRun,
  principal: string,
  params: Params,
  notify: NotificationSink,
  failed?: (error: unknown) => CallToolResult,
): Promise<Params> {
  const task = params.task as Params;
  const ttl = Number.isInteger(task.ttl) && (task.ttl as number) > 0 ? (task.ttl as number) : undefined;
  const meta = isObject(params._meta) ? params._meta : {};
  const token = meta.progressToken;
  const send = (method: string, body: Params) => {
    notify({ jsonrpc: "2.0", method, params: body }).catch(() => {});
  };
  const hooks: TaskHooks = {
    ...(failed === undefined ? {} : { failed }),
    changed: (next) =>
      send("notifications/tasks/status", {
        ...legacyTask(next),
        _meta: { [RELATED_TASK_META]: { taskId: next.taskId } },
      }),
  };
  if (typeof token === "string" || typeof token === "number") {
    hooks.progress = async (progress, total, message) => {
      const body: Params = { progressToken: token, progress };
      if (total !== undefined) body.total = total;
      if (message !== undefined) body.message = message;
      send("notifications/progress", body);
    };
  }
  const record = await engine.start(run, principal, hooks, ttl);
  return { task: legacyTask(record) };
}
