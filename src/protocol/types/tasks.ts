import type { InputRequests } from "./input.js";

/** The id of the 2026-07-28 tasks extension (SEP-2663), the key under `capabilities.extensions`. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The 2025-11-25 `_meta` key that ties a message to a task. */
export const RELATED_TASK_META = "io.modelcontextprotocol/related-task";

/** Where a task is: running, waiting for the client's input, or done one of three ways. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** The statuses a task never leaves. */
export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);

/** A JSON-RPC error as a failed task carries it. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * A task as a 2026-07-28 `tasks/get` returns it (SEP-2663 DetailedTask): `result` once completed, `error` once
 * failed, `inputRequests` while it waits for input.
 */
export interface DetailedTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  result?: { [key: string]: unknown };
  error?: TaskError;
  inputRequests?: InputRequests;
  [key: string]: unknown;
}

/** A task as a 2025-11-25 peer sees it (`tasks/get`, `tasks/list`, `notifications/tasks/status`). */
export interface LegacyTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval?: number;
  [key: string]: unknown;
}
