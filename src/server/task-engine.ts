import type { Clock } from "../jsonrpc/clock.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import { isObject } from "../jsonrpc/message.js";
import type { InputRequests, InputResponses } from "../protocol/types/input.js";
import { TERMINAL_STATUSES } from "../protocol/types/tasks.js";
import type { ServerLogger } from "./options.js";
import type { TaskContext, TaskRun } from "./task-run.js";
import type { TaskRecord, TaskStore } from "./task-store.js";

/** The checked bounds and defaults of a server's tasks (see `TasksOptions`). */
export interface TaskSettings {
  readonly store: TaskStore;
  readonly clock: Clock;
  readonly ttlMs: number;
  readonly maxTtlMs: number;
  readonly pollIntervalMs: number;
  readonly maxTasksPerPrincipal: number;
  readonly maxTasks: number;
}

/** How one task reports outside the store: progress on its creating request, and every change of status. */
export interface TaskHooks {
  /** Sends a progress notification on the request that created the task (while it is open). */
  progress?(progress: number, total?: number, message?: string): Promise<void>;
  /** Called after every change of the task's record (status, result, input asked). */
  changed?(record: TaskRecord): void;
}

interface Pending {
  readonly remaining: { [key: string]: InputRequests[string] };
  readonly answers: InputResponses;
  resolve(answers: InputResponses): void;
  reject(reason: unknown): void;
  asking: boolean;
}

interface Running {
  readonly abort: AbortController;
  readonly hooks: TaskHooks;
  timer: unknown;
  pending: Pending | undefined;
}

/**
 * Runs and keeps a server's tasks: creates them under the caps, runs their work after the creating request
 * ended, moves them through their statuses in the store, delivers input and cancellation. A task is seen only
 * by its principal: another principal's id is "unknown" (`-32602`), as an expired one is.
 */
export class TaskEngine {
  private readonly running = new Map<string, Running>();
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(
    readonly settings: TaskSettings,
    private readonly logger: ServerLogger,
  ) {}

  /** Tasks whose work runs in this process now. */
  get runningCount(): number {
    return this.running.size;
  }

  /**
   * Creates a task for `principal` and starts its work; resolves once the task is in the store (so an
   * immediate `tasks/get` finds it). `requestedTtlMs` (2025-11-25 `task.ttl`) is clamped to `maxTtlMs`.
   * Past a cap: `-32603` with `data.reason` `principal_cap` or `global_cap`, and the work never runs.
   */
  async start(
    run: TaskRun,
    principal: string,
    hooks: TaskHooks,
    requestedTtlMs?: number,
  ): Promise<TaskRecord> {
    const { store, clock, maxTtlMs } = this.settings;
    const now = clock.now();
    const ttlMs = Math.min(requestedTtlMs ?? this.settings.ttlMs, maxTtlMs);
    const record: TaskRecord = {
      taskId: crypto.randomUUID(),
      principal,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs,
      pollIntervalMs: this.settings.pollIntervalMs,
    };
    const refused = await store.create(record, {
      perPrincipal: this.settings.maxTasksPerPrincipal,
      total: this.settings.maxTasks,
    });
    if (refused !== undefined) {
      const limit = refused === "principal_cap" ? this.settings.maxTasksPerPrincipal : this.settings.maxTasks;
      throw new JsonRpcError(ErrorCode.InternalError, "Task capacity reached", { reason: refused, limit });
    }
    const running: Running = { abort: new AbortController(), hooks, timer: undefined, pending: undefined };
    running.timer = clock.setTimeout(() => this.expire(record.taskId), ttlMs);
    this.running.set(record.taskId, running);
    // Started on a later turn: the creating request is answered first.
    void Promise.resolve().then(() => this.execute(record.taskId, run, running));
    return record;
  }

  /** The task `taskId` of `principal`; `-32602` when it is unknown, expired or another principal's. */
  async get(principal: string, taskId: unknown): Promise<TaskRecord> {
    if (typeof taskId !== "string")
      throw new JsonRpcError(ErrorCode.InvalidParams, "taskId must be a string");
    const record = await this.settings.store.get(taskId);
    if (record === undefined || record.principal !== principal) {
      throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown task: ${taskId}`, { taskId });
    }
    return record;
  }

  /** Every live task of `principal`, oldest first. */
  list(principal: string): Promise<TaskRecord[]> {
    return this.settings.store.list(principal);
  }

  /**
   * Answers some or all of what a waiting task asked for: known keys are taken (and leave `inputRequests`),
   * unknown ones ignored; once every request is answered the task works again. A task that waits for nothing
   * ignores the call.
   */
  async update(principal: string, taskId: unknown, responses: InputResponses): Promise<TaskRecord> {
    const record = await this.get(principal, taskId);
    const pending = this.running.get(record.taskId)?.pending;
    if (pending === undefined) return record;
    let took = false;
    for (const [key, response] of Object.entries(responses)) {
      if (!(key in pending.remaining) || !isObject(response)) continue;
      pending.answers[key] = response;
      delete pending.remaining[key];
      took = true;
    }
    if (!took) return record;
    const done = Object.keys(pending.remaining).length === 0;
    const next = await this.change(record.taskId, (current) => {
      if (TERMINAL_STATUSES.has(current.status)) return undefined;
      const { inputRequests: _asked, ...rest } = current;
      return done ? { ...rest, status: "working" } : { ...rest, inputRequests: { ...pending.remaining } };
    });
    if (done) {
      const running = this.running.get(record.taskId);
      if (running !== undefined) running.pending = undefined;
      pending.resolve({ ...pending.answers });
    }
    return next ?? record;
  }

  /** Cancels a task that has not finished (a finished one stays as it is); resolves with the record after. */
  async cancel(principal: string, taskId: unknown, reason = "Cancelled by the client"): Promise<TaskRecord> {
    const record = await this.get(principal, taskId);
    if (TERMINAL_STATUSES.has(record.status)) return record;
    const next = await this.change(record.taskId, (current) =>
      TERMINAL_STATUSES.has(current.status) ? undefined : settle(current, "cancelled", reason),
    );
    this.stop(record.taskId, new McpkitError("CLOSED", reason));
    return next ?? record;
  }

  /**
   * Resolves with the task once it is terminal (2025-11-25 `tasks/result`). While it waits for input and
   * `ask` is given, its requests go to `ask` and the answers to the task. Rejects when `signal` fires.
   */
  async waitTerminal(
    principal: string,
    taskId: unknown,
    signal: AbortSignal,
    ask?: (requests: InputRequests) => Promise<InputResponses>,
  ): Promise<TaskRecord> {
    for (;;) {
      const record = await this.get(principal, taskId);
      if (TERMINAL_STATUSES.has(record.status)) return record;
      signal.throwIfAborted();
      const pending = this.running.get(record.taskId)?.pending;
      if (ask !== undefined && pending !== undefined && !pending.asking) {
        pending.asking = true;
        ask({ ...pending.remaining })
          .then((answers) => this.update(principal, record.taskId, answers))
          .catch((error: unknown) => this.stop(record.taskId, error))
          .finally(() => {
            pending.asking = false;
          });
      }
      await this.nextChange(record.taskId, signal);
    }
  }

  private nextChange(taskId: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiters = this.waiters.get(taskId) ?? new Set<() => void>();
      this.waiters.set(taskId, waiters);
      const onAbort = () => {
        waiters.delete(wake);
        reject(signal.reason);
      };
      const wake = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      waiters.add(wake);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  private async change(
    taskId: string,
    edit: (record: TaskRecord) => TaskRecord | undefined,
  ): Promise<TaskRecord | undefined> {
    let changed = false;
    const next = await this.settings.store.update(taskId, (record) => {
      const out = edit(record);
      changed = out !== undefined;
      return out === undefined ? undefined : { ...out, lastUpdatedAt: this.settings.clock.now() };
    });
    if (changed && next !== undefined) {
      try {
        this.running.get(taskId)?.hooks.changed?.(next);
      } catch (error) {
        this.logger.warn("a task status hook failed", error);
      }
      const waiters = this.waiters.get(taskId);
      this.waiters.delete(taskId);
      for (const wake of waiters ?? []) wake();
    }
    return next;
  }

  private async execute(taskId: string, run: TaskRun, running: Running): Promise<void> {
    const context = this.context(taskId, running);
    try {
      const result: unknown = await run.work(context);
      if (running.abort.signal.aborted) return;
      if (!isObject(result) || !Array.isArray(result.content)) {
        throw new Error("a task's work must resolve with a tool result ({ content: [...] })");
      }
      await this.change(taskId, (current) =>
        TERMINAL_STATUSES.has(current.status) ? undefined : { ...settle(current, "completed"), result },
      );
    } catch (error) {
      if (running.abort.signal.aborted) return;
      let failure: { code: number; message: string; data?: unknown };
      if (error instanceof JsonRpcError) {
        failure = { code: error.code, message: error.message };
        if (error.data !== undefined) failure.data = error.data;
      } else {
        this.logger.error(`task ${taskId} failed`, error);
        failure = { code: ErrorCode.InternalError, message: "Internal error" };
      }
      await this.change(taskId, (current) =>
        TERMINAL_STATUSES.has(current.status) ? undefined : { ...settle(current, "failed"), error: failure },
      );
    } finally {
      this.stop(taskId, undefined);
    }
  }

  private context(taskId: string, running: Running): TaskContext {
    const signal = running.abort.signal;
    const setMessage = (statusMessage: string) =>
      this.change(taskId, (current) =>
        TERMINAL_STATUSES.has(current.status) ? undefined : { ...current, statusMessage },
      );
    return {
      taskId,
      signal,
      status: async (message) => {
        if (!signal.aborted) await setMessage(String(message));
      },
      progress: async (progress, total, message) => {
        if (signal.aborted) return;
        await running.hooks.progress?.(progress, total, message);
        await setMessage(message ?? (total === undefined ? `${progress}` : `${progress}/${total}`));
      },
      input: (requests) => {
        if (signal.aborted) return Promise.reject(signal.reason);
        if (running.pending !== undefined) {
          return Promise.reject(
            new McpkitError("UNSUPPORTED", "a task asks for one round of input at a time"),
          );
        }
        return new Promise<InputResponses>((resolve, reject) => {
          running.pending = { remaining: { ...requests }, answers: {}, resolve, reject, asking: false };
          this.change(taskId, (current) =>
            TERMINAL_STATUSES.has(current.status)
              ? undefined
              : { ...current, status: "input_required", inputRequests: structuredClone({ ...requests }) },
          ).catch(reject);
        });
      },
    };
  }

  private expire(taskId: string): void {
    this.stop(taskId, new McpkitError("TIMEOUT", "the task's TTL passed"));
  }

  /** Ends the task's local run: its timer, its pending input, its signal (when `reason` is given). */
  private stop(taskId: string, reason: unknown): void {
    const running = this.running.get(taskId);
    if (running === undefined) return;
    this.running.delete(taskId);
    this.settings.clock.clearTimeout(running.timer);
    if (reason !== undefined) {
      running.pending?.reject(reason);
      running.abort.abort(reason);
    }
    const waiters = this.waiters.get(taskId);
    this.waiters.delete(taskId);
    for (const wake of waiters ?? []) wake();
  }
}

function settle(
  record: TaskRecord,
  status: "completed" | "failed" | "cancelled",
  message?: string,
): TaskRecord {
  const { inputRequests: _asked, statusMessage: _old, ...rest } = record;
  return message === undefined ? { ...rest, status } : { ...rest, status, statusMessage: message };
}
