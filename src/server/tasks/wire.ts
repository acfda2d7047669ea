import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import type { ClientCapabilities } from "../../protocol/types/capabilities.js";
import {
  type DetailedTask,
  type LegacyTask,
  RELATED_TASK_META,
  TASKS_EXTENSION,
} from "../../protocol/types/tasks.js";
import type { TaskRecord } from "../state/task-store.js";

type Result = { [key: string]: unknown };

const iso = (ms: number) => new Date(ms).toISOString();

/** A record as a 2026-07-28 `tasks/get` returns it (SEP-2663 DetailedTask; `resultType` comes with projection). */
export function detailedTask(record: TaskRecord): DetailedTask {
  const out: DetailedTask = {
    taskId: record.taskId,
    status: record.status,
    createdAt: iso(record.createdAt),
    lastUpdatedAt: iso(record.lastUpdatedAt),
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
  };
  if (record.statusMessage !== undefined) out.statusMessage = record.statusMessage;
  if (record.status === "completed" && record.result !== undefined)
    out.result = withoutRelatedTask(record.result);
  if (record.status === "failed" && record.error !== undefined) out.error = { ...record.error };
  if (record.status === "input_required" && record.inputRequests !== undefined) {
    out.inputRequests = structuredClone(record.inputRequests);
  }
  return out;
}

/** The 2026-07-28 answer to a `tools/call` that created a task: flat `Result & Task`, `resultType: "task"`. */
export function modernCreateResult(record: TaskRecord): Result {
  const { result: _r, error: _e, inputRequests: _i, ...task } = detailedTask(record);
  return { resultType: "task", ...task };
}

/** A record as 2025-11-25 sends it (`tasks/get`, `tasks/list`, status notifications). */
export function legacyTask(record: TaskRecord): LegacyTask {
  const out: LegacyTask = {
    taskId: record.taskId,
    // 2025-11-25: a tool call whose result is an error is a failed task.
    status: record.status === "completed" && record.result?.isError === true ? "failed" : record.status,
    createdAt: iso(record.createdAt),
    lastUpdatedAt: iso(record.lastUpdatedAt),
    ttl: record.ttlMs,
    pollInterval: record.pollIntervalMs,
  };
  const message = record.statusMessage ?? record.error?.message;
  if (message !== undefined) out.statusMessage = message;
  return out;
}

/** The 2025-11-25 payload of a finished task (`tasks/result`): its result, tied to the task, or its error. */
export function legacyPayload(record: TaskRecord): Result {
  if (record.status === "completed" && record.result !== undefined) {
    const meta = {
      ...(record.result._meta as Result | undefined),
      [RELATED_TASK_META]: { taskId: record.taskId },
    };
    return { ...record.result, _meta: meta };
  }
  if (record.status === "failed" && record.error !== undefined) {
    throw new JsonRpcError(record.error.code, record.error.message, record.error.data);
  }
  throw new JsonRpcError(ErrorCode.InvalidParams, `Task ${record.taskId} was cancelled`, {
    taskId: record.taskId,
    status: record.status,
  });
}

/** True when a 2026-07-28 request's capabilities declare the tasks extension. */
export function declaresTasks(capabilities: ClientCapabilities): boolean {
  const extensions = capabilities.extensions;
  return typeof extensions === "object" && extensions !== null && TASKS_EXTENSION in extensions;
}

/** `-32021`: the request did not declare the tasks extension that it needs. */
export function tasksCapabilityMissing(what: string): JsonRpcError {
  return new JsonRpcError(
    ErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: extensions["${TASKS_EXTENSION}"] (${what})`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

function withoutRelatedTask(result: { readonly [key: string]: unknown }): Result {
  const meta = result._meta;
  if (typeof meta !== "object" || meta === null || !(RELATED_TASK_META in meta))
    return structuredClone({ ...result });
  const { [RELATED_TASK_META]: _dropped, ...rest } = meta as Result;
  return structuredClone({ ...result, _meta: rest });
}
