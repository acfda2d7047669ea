import { type Clock, systemClock } from "../jsonrpc/clock.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import { isObject } from "../jsonrpc/message.js";
import type { InputRequests, InputResponses } from "../protocol/types/input.js";
import {
  TASKS_EXTENSION,
  type TaskError,
  type TaskStatus,
  TERMINAL_STATUSES,
} from "../protocol/types/tasks.js";
import type { CallToolResult } from "../protocol/types/tools.js";
import { LEGACY_VERSION } from "../protocol/versions.js";
import type { Client } from "./client.js";
import type { InputResolver } from "./input-types.js";
import type { RequestOptions } from "./types.js";

/** A task as the client sees it, whichever era it came from (2025-11-25 `ttl` is read as `ttlMs`). */
export interface ClientTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt?: string;
  lastUpdatedAt?: string;
  ttlMs?: number | null;
  pollIntervalMs?: number;
  /** 2026-07-28: the result, inlined once completed. */
  result?: CallToolResult;
  /** 2026-07-28: the error, inlined once failed. */
  error?: TaskError;
  /** 2026-07-28: what the task waits for (status `input_required`). */
  inputRequests?: InputRequests;
}

/** What {@link callToolAsTask} resolves with: the task, or the tool's result when the server answered at once. */
export type TaskStart =
  | { task: ClientTask; result?: undefined }
  | { task?: undefined; result: CallToolResult };

/** Options of {@link callToolAsTask}. */
export interface TaskCallOptions extends RequestOptions {
  /** 2025-11-25: the TTL to ask for (`task.ttl`); the server may grant less. */
  ttlMs?: number;
}

/** Options of {@link waitForTask} and {@link callToolToCompletion}. */
export interface TaskWaitOptions {
  /** Aborting it stops waiting with `ABORTED` (and {@link callToolToCompletion} cancels the task). */
  signal?: AbortSignal;
  /** How long to wait for the task, all polls included (default 600,000 ms); past it, `TIMEOUT`. */
  deadlineMs?: number;
  /** The first poll interval, unless the server suggests a longer one (default 250 ms). */
  minPollMs?: number;
  /** Intervals grow by half each poll up to this (default 5,000 ms). */
  maxPollMs?: number;
  /** Told every time the task's status or status message changes. */
  onStatus?: (task: ClientTask) => void;
  /** The clock of intervals and the deadline (default: the system clock). */
  clock?: Clock;
  /**
   * 2026-07-28: answers the task's requests for input instead of the client's `onInputRequired` or per-kind
   * handlers (as `RequestOptions.onInputRequired` does for a call's rounds).
   */
  onInputRequired?: InputResolver;
}

/** True for a `tools/call` answer that is a task handle (2026 `resultType: "task"`, 2025 `{ task }`). */
export function isCreateTaskResult(result: unknown): boolean {
  if (!isObject(result)) return false;
  if (result.resultType === "task") return true;
  return isObject(result.task) && typeof result.task.taskId === "string" && !("content" in result);
}

/** Reads a task from a `tools/call` answer, `tasks/get` or a status notification, either era. */
export function toClientTask(raw: unknown): ClientTask {
  const source = isObject(raw) && isObject(raw.task) && raw.resultType !== "task" ? raw.task : raw;
  if (!isObject(source) || typeof source.taskId !== "string" || typeof source.status !== "string") {
    throw new McpkitError("PROTOCOL", "the server sent a task without taskId and status", {
      details: { raw },
    });
  }
  const task: ClientTask = { taskId: source.taskId, status: source.status as TaskStatus };
  if (typeof source.statusMessage === "string") task.statusMessage = source.statusMessage;
  if (typeof source.createdAt === "string") task.createdAt = source.createdAt;
  if (typeof source.lastUpdatedAt === "string") task.lastUpdatedAt = source.lastUpdatedAt;
  const ttl = source.ttlMs ?? source.ttl;
  if (typeof ttl === "number" || ttl === null) task.ttlMs = ttl;
  const poll = source.pollIntervalMs ?? source.pollInterval;
  if (typeof poll === "number") task.pollIntervalMs = poll;
  if (isObject(source.result)) task.result = source.result as unknown as CallToolResult;
  if (isObject(source.error)) task.error = source.error as unknown as TaskError;
  if (isObject(source.inputRequests)) task.inputRequests = source.inputRequests as InputRequests;
  return task;
}

/**
 * Calls a tool asking for a task: 2025-11-25 with a `task` param, 2026-07-28 with the
 * `io.modelcontextprotocol/tasks` extension the client declares (`UNSUPPORTED` when it does not). Resolves
 * with the task, or with the tool's result when the server answered at once (it may).
 *
 * @example
 * const { task, result } = await callToolAsTask(client, "research", { q: "mcp" });
 * const final = task === undefined ? result : await waitForTask(client, task);
 */
export async function callToolAsTask(
  client: Client,
  name: string,
  args: { [key: string]: unknown } = {},
  options: TaskCallOptions = {},
): Promise<TaskStart> {
  const { ttlMs, ...request } = options;
  const params: { [key: string]: unknown } = { name, arguments: args };
  if (client.era === LEGACY_VERSION) params.task = ttlMs === undefined ? {} : { ttl: ttlMs };
  else if (!declaresTasks(client)) {
    throw new McpkitError(
      "UNSUPPORTED",
      `declare capabilities.extensions["${TASKS_EXTENSION}"] to call tools as tasks`,
      {
        details: { extension: TASKS_EXTENSION },
      },
    );
  }
  const answer = await client.request("tools/call", params, request);
  return isCreateTaskResult(answer)
    ? { task: toClientTask(answer) }
    : { result: answer as unknown as CallToolResult };
}

/** `tasks/get`: the task as it is now. */
export async function getTask(client: Client, taskId: string, options?: RequestOptions): Promise<ClientTask> {
  return toClientTask(await client.request("tasks/get", { taskId }, options));
}

/** `tasks/cancel`. A task already finished is left as it is (no error, in either era). */
export async function cancelTask(client: Client, taskId: string, options?: RequestOptions): Promise<void> {
  try {
    await client.request("tasks/cancel", { taskId }, options);
  } catch (error) {
    // 2025-11-25 refuses to cancel a finished task with -32602; the outcome is the same.
    if (!(client.era === LEGACY_VERSION && error instanceof JsonRpcError && error.code === -32602))
      throw error;
  }
}

/** 2026-07-28 `tasks/update`: answers some or all of what a task waits for. */
export async function updateTask(
  client: Client,
  taskId: string,
  inputResponses: InputResponses,
  options?: RequestOptions,
): Promise<void> {
  await client.request("tasks/update", { taskId, inputResponses }, options);
}

/**
 * Waits for a task's result: polls `tasks/get` with a growing interval (from the server's `pollIntervalMs`,
 * or `minPollMs`, by half each time up to `maxPollMs`) until the task finishes or `deadlineMs` passes, telling
 * `onStatus` of every change. Input the task asks for is answered by the client's own callbacks, as for an
 * input round (2026-07-28 through `tasks/update`; 2025-11-25 the server sends its requests on `tasks/result`).
 * A failed task rejects with its `JsonRpcError`, a cancelled one with `McpkitError` `ABORTED`.
 *
 * @example
 * const result = await waitForTask(client, task, { onStatus: (t) => console.log(t.status, t.statusMessage) });
 */
export async function waitForTask(
  client: Client,
  task: ClientTask | string,
  options: TaskWaitOptions = {},
): Promise<CallToolResult> {
  const clock = options.clock ?? systemClock;
  const start = clock.now();
  const deadline = start + (options.deadlineMs ?? 600_000);
  const maxPoll = options.maxPollMs ?? 5_000;
  const req: RequestOptions = options.signal === undefined ? {} : { signal: options.signal };
  const remaining = (): RequestOptions => ({ ...req, timeoutMs: Math.max(1, deadline - clock.now()) });
  let current = typeof task === "string" ? await getTask(client, task, req) : task;
  let interval = Math.min(maxPoll, Math.max(options.minPollMs ?? 250, current.pollIntervalMs ?? 0));
  let seen = `${current.status}\u0000${current.statusMessage ?? ""}`;
  options.onStatus?.(current);
  for (;;) {
    if (TERMINAL_STATUSES.has(current.status)) return outcome(client, current, remaining());
    if (current.status === "input_required") {
      if (client.era === LEGACY_VERSION) return outcome(client, current, remaining());
      const responses = await client.answerTaskInput(
        current.inputRequests ?? {},
        current.taskId,
        options.signal,
        options.onInputRequired,
      );
      await updateTask(client, current.taskId, responses, req);
    } else {
      const left = deadline - clock.now();
      if (left <= 0) {
        throw new McpkitError(
          "TIMEOUT",
          `task ${current.taskId} did not finish in ${options.deadlineMs ?? 600_000} ms`,
          {
            details: { taskId: current.taskId },
          },
        );
      }
      await sleep(clock, Math.min(interval, left), options.signal);
      interval = Math.min(maxPoll, Math.ceil(interval * 1.5));
    }
    current = await getTask(client, current.taskId, req);
    const now = `${current.status}\u0000${current.statusMessage ?? ""}`;
    if (now !== seen) {
      seen = now;
      options.onStatus?.(current);
    }
  }
}

/**
 * One call for callers that do not care whether the tool runs as a task: calls it as a task when the client
 * can take one, waits for the result (see {@link waitForTask}) and cancels the task when `signal` aborts. A
 * client that cannot take a task (2026-07-28 without the extension) calls the tool plainly.
 *
 * @example
 * const result = await callToolToCompletion(client, "research", { q: "mcp" }, {
 *   onStatus: (task) => console.log(task.statusMessage),
 * });
 */
export async function callToolToCompletion(
  client: Client,
  name: string,
  args: { [key: string]: unknown } = {},
  options: TaskWaitOptions & TaskCallOptions = {},
): Promise<CallToolResult> {
  const { deadlineMs, minPollMs, maxPollMs, onStatus, clock, ttlMs, ...request } = options;
  if (client.era !== LEGACY_VERSION && !declaresTasks(client)) return client.callTool(name, args, request);
  const { task, result } = await callToolAsTask(
    client,
    name,
    args,
    ttlMs === undefined ? request : { ...request, ttlMs },
  );
  if (task === undefined) return result;
  try {
    return await waitForTask(client, task, options);
  } catch (error) {
    if (options.signal?.aborted) await cancelTask(client, task.taskId).catch(() => {});
    throw error;
  }
}

async function outcome(client: Client, task: ClientTask, options: RequestOptions): Promise<CallToolResult> {
  if (client.era === LEGACY_VERSION) {
    if (task.status === "cancelled") throw cancelled(task);
    // tasks/result waits for the task, and carries its input requests meanwhile.
    return (await client.request(
      "tasks/result",
      { taskId: task.taskId },
      options,
    )) as unknown as CallToolResult;
  }
  if (task.status === "completed" && task.result !== undefined) return task.result;
  if (task.status === "failed" && task.error !== undefined) {
    throw new JsonRpcError(task.error.code, task.error.message, task.error.data);
  }
  throw cancelled(task);
}

function cancelled(task: ClientTask): McpkitError {
  return new McpkitError("ABORTED", `task ${task.taskId} was ${task.status}`, {
    details: { taskId: task.taskId },
  });
}

function declaresTasks(client: Client): boolean {
  const extensions = client.ownCapabilities.extensions;
  return isObject(extensions) && TASKS_EXTENSION in extensions;
}

function sleep(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new McpkitError("ABORTED", "stopped waiting for the task", { cause: signal.reason }));
      return;
    }
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(new McpkitError("ABORTED", "stopped waiting for the task", { cause: signal?.reason }));
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
