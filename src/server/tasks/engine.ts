import type { Clock } from "../../jsonrpc/clock.js";
import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError, McpkitError } from "../../jsonrpc/errors.js";
import { limitDetails, limitMessage } from "../../jsonrpc/limit-error.js";
import { isObject } from "../../jsonrpc/message.js";
import type { InputRequests, InputResponses } from "../../protocol/types/input.js";
import { TERMINAL_STATUSES } from "../../protocol/types/tasks.js";
import type { CallToolResult } from "../../protocol/types/tools.js";
import { type ClusterBus, isClusterUnavailable } from "../cluster/cluster.js";
import type { ServerLogger } from "../core/options.js";
import type { TaskRecord, TaskStore } from "../state/task-store.js";
import type { TaskContext, TaskRun } from "./run.js";
import { TaskSignals } from "./signals.js";

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
  /** 2026-07-28: the input requests as the client is to see them in the task's status (trace context added). */
  place?(requests: InputRequests): Promise<InputRequests>;
  /**
   * What the work's thrown error becomes (a thrown `JsonRpcError` is rethrown: the task fails with it): the
   * result the task completes with, an `isError` one. Without it, the task fails with `-32603`.
   */
  failed?(error: unknown): CallToolResult;
}

/** A round of input the local work waits for; its requests and answers live in the store's record. */
interface Pending {
  resolve(answers: InputResponses): void;
  reject(reason: unknown): void;
  /** On a cluster: the timer that reads the store for answers a lost bus signal did not announce. */
  poll: unknown;
}

interface Running {
  readonly abort: AbortController;
  readonly hooks: TaskHooks;
  timer: unknown;
  pending: Pending | undefined;
  /** The work has settled; what is left is storing its outcome. */
  done: boolean;
  /** When the task's TTL passes (clock time). */
  readonly expiresAt: number;
}

/** First and longest pause between attempts to store a task's outcome while the store is unreachable. */
const OUTCOME_RETRY_MS = 250;
const OUTCOME_RETRY_MAX_MS = 5_000;

/** The error of a task whose owning instance stopped before the task finished. */
const OWNER_LOST = {
  code: ErrorCode.InternalError,
  message: "The server instance running this task stopped",
};

/**
 * Runs and keeps a server's tasks: creates them under the caps, runs their work after the creating request
 * ended, moves them through their statuses in the store, delivers input and cancellation. A task is seen only
 * by its principal: another principal's id is "unknown" (`-32602`), as an expired one is.
 *
 * Everything a client can do to a task goes through the store, so any instance sharing it serves any task:
 * answers are collected in the record and taken by the instance running the work, a cancellation is a status.
 * With a `bus`, that instance is told at once (and a task whose instance is gone is failed); without one, or
 * when a signal is lost, it reads the store every `pollIntervalMs` while its work waits for input.
 */
export class TaskEngine {
  private readonly running = new Map<string, Running>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly asking = new Set<string>();
  private readonly signals: TaskSignals | undefined;
  private closed = false;

  constructor(
    readonly settings: TaskSettings,
    private readonly logger: ServerLogger,
    bus?: ClusterBus,
  ) {
    this.signals =
      bus &&
      new TaskSignals(
        bus,
        (taskId) => void this.refresh(taskId),
        logger,
        () => settings.clock.now(),
      );
  }

  /** Resolves once this instance is told of changes other instances make to its tasks (at once without a bus). */
  get joined(): Promise<void> {
    return this.signals?.joined ?? Promise.resolve();
  }

  /** Leaves the bus (tasks running here go on). */
  async close(): Promise<void> {
    this.closed = true;
    await this.signals?.close();
  }

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
    const owner = this.signals?.owner;
    const record: TaskRecord = {
      taskId: crypto.randomUUID(),
      principal,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs,
      pollIntervalMs: this.settings.pollIntervalMs,
      ...(owner === undefined ? {} : { owner }),
    };
    const refused = await store.create(record, {
      perPrincipal: this.settings.maxTasksPerPrincipal,
      total: this.settings.maxTasks,
    });
    if (refused !== undefined) {
      const perPrincipal = refused === "principal_cap";
      const facts = {
        option: perPrincipal ? "tasks.maxTasksPerPrincipal" : "tasks.maxTasks",
        limit: perPrincipal ? this.settings.maxTasksPerPrincipal : this.settings.maxTasks,
      };
      const counted = { ...facts, size: facts.limit + 1 };
      throw new JsonRpcError(
        ErrorCode.InternalError,
        limitMessage("Task capacity reached", counted, "tasks"),
        limitDetails(counted, { reason: refused }),
      );
    }
    const running: Running = {
      abort: new AbortController(),
      hooks,
      timer: undefined,
      pending: undefined,
      done: false,
      expiresAt: now + ttlMs,
    };
    running.timer = clock.setTimeout(() => this.expire(record.taskId), ttlMs);
    this.running.set(record.taskId, running);
    // Started on a later turn: the creating request is answered first.
    void Promise.resolve()
      .then(() => this.execute(record.taskId, run, running))
      .catch((error: unknown) => this.logger.error(`task ${record.taskId} could not end cleanly`, error));
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
    // A poll of a task that runs elsewhere checks, at most once a second, that its instance is still there.
    if (!TERMINAL_STATUSES.has(record.status) && this.signals?.isForeign(record.owner)) {
      const owner = record.owner as string;
      void this.signals
        .probe(owner)
        .then((state) => (state === "gone" ? this.orphaned(record.taskId) : undefined));
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
    if (record.status !== "input_required") return record;
    const next = await this.change(record.taskId, (current) => withAnswers(current, responses));
    return next ?? record;
  }

  /** Cancels a task that has not finished (a finished one stays as it is); resolves with the record after. */
  async cancel(principal: string, taskId: unknown, reason = "Cancelled by the client"): Promise<TaskRecord> {
    const record = await this.get(principal, taskId);
    if (TERMINAL_STATUSES.has(record.status)) return record;
    // The change stops the work where it runs (here through `react`, elsewhere through its signal).
    const next = await this.change(record.taskId, (current) =>
      TERMINAL_STATUSES.has(current.status) ? undefined : settle(current, "cancelled", reason),
    );
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
      const id = record.taskId;
      if (ask !== undefined && record.status === "input_required" && !this.asking.has(id)) {
        this.asking.add(id);
        ask({ ...record.inputRequests })
          .then((answers) => this.update(principal, id, answers))
          .catch((error: unknown) => this.inputFailed(id, error))
          .finally(() => this.asking.delete(id));
      }
      // On a cluster the work may run on another instance, whose changes are seen by reading the store.
      await this.nextChange(id, signal, this.signals && this.settings.pollIntervalMs);
    }
  }

  private nextChange(taskId: string, signal: AbortSignal, timeoutMs: number | undefined): Promise<void> {
    const { clock } = this.settings;
    return new Promise((resolve, reject) => {
      const waiters = this.waiters.get(taskId) ?? new Set<() => void>();
      this.waiters.set(taskId, waiters);
      let timer: unknown;
      const leave = () => {
        waiters.delete(wake);
        if (waiters.size === 0 && this.waiters.get(taskId) === waiters) this.waiters.delete(taskId);
        clock.clearTimeout(timer);
      };
      const onAbort = () => {
        leave();
        reject(signal.reason);
      };
      const wake = () => {
        leave();
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      waiters.add(wake);
      signal.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs !== undefined) timer = clock.setTimeout(wake, timeoutMs);
    });
  }

  private async change(
    taskId: string,
    edit: (record: TaskRecord) => TaskRecord | undefined,
    quiet = false,
  ): Promise<TaskRecord | undefined> {
    let changed = false;
    const next = await this.settings.store.update(taskId, (record) => {
      const out = edit(record);
      changed = out !== undefined;
      return out === undefined ? undefined : { ...out, lastUpdatedAt: this.settings.clock.now() };
    });
    if (changed && next !== undefined) {
      if (!quiet) {
        try {
          this.running.get(taskId)?.hooks.changed?.(next);
        } catch (error) {
          this.logger.warn("a task status hook failed", error);
        }
      }
      const waiters = this.waiters.get(taskId);
      this.waiters.delete(taskId);
      for (const wake of waiters ?? []) wake();
      this.react(next);
      if (this.signals?.isForeign(next.owner)) {
        const owner = next.owner;
        void this.signals
          .signal(owner, taskId)
          .then((state) => (state === "gone" ? this.orphaned(taskId) : undefined));
      }
    }
    return next;
  }

  /** Reads `taskId` after another instance said it changed (or a poll asks) and acts on it here. */
  private async refresh(taskId: string): Promise<void> {
    if (!this.running.has(taskId)) return;
    try {
      const record = await this.settings.store.get(taskId);
      if (record !== undefined) this.react(record);
    } catch (error) {
      this.logger.warn("could not read a task from the store", { taskId, error: String(error) });
    }
  }

  /** What a change means to the work running here: cancelled (or failed elsewhere) stops it; answers go to it. */
  private react(record: TaskRecord): void {
    const running = this.running.get(record.taskId);
    if (running === undefined || running.done) return;
    if (record.status === "cancelled" || record.status === "failed") {
      this.stop(
        record.taskId,
        new McpkitError("CLOSED", record.statusMessage ?? `the task ${record.status}`),
      );
    } else if (running.pending !== undefined && record.status === "working" && record.inputResponses) {
      void this.collect(record.taskId, running, running.pending);
    }
  }

  /** Takes the answers out of the record (atomically: one taker) and hands them to the waiting work. */
  private async collect(taskId: string, running: Running, pending: Pending): Promise<void> {
    let answers: InputResponses | undefined;
    try {
      await this.change(
        taskId,
        (current) => {
          answers = undefined;
          if (current.status !== "working" || current.inputResponses === undefined) return undefined;
          answers = current.inputResponses;
          const { inputResponses: _taken, ...rest } = current;
          return rest;
        },
        true,
      );
    } catch (error) {
      this.logger.warn("could not take a task's answers from the store", { taskId, error: String(error) });
      return;
    }
    if (answers === undefined || running.pending !== pending) return;
    running.pending = undefined;
    this.settings.clock.clearTimeout(pending.poll);
    pending.resolve({ ...answers });
  }

  /**
   * A round of input could not be asked (the client lacks the capability, a request failed on it): the work
   * waiting here gets the error from `task.input()` and decides (catch it, or throw to fail the task), and the
   * task is `working` again so that the round is not asked twice. Work running elsewhere: the task fails.
   */
  private async inputFailed(taskId: string, error: unknown): Promise<void> {
    const running = this.running.get(taskId);
    const pending = running?.pending;
    try {
      await this.change(taskId, (current) => {
        if (current.status !== "input_required") return undefined;
        if (pending === undefined)
          return { ...settle(current, "failed"), error: failureOf(error, this.logger, taskId) };
        const { inputRequests: _asked, ...rest } = current;
        return { ...rest, status: "working" };
      });
    } catch (storeError) {
      this.logger.warn("could not record a task's failed input round", { taskId, error: String(storeError) });
    }
    if (running === undefined || pending === undefined || running.pending !== pending) return;
    running.pending = undefined;
    this.settings.clock.clearTimeout(pending.poll);
    pending.reject(error);
  }

  /** Fails a task whose owning instance is gone (unless it finished meanwhile). */
  private async orphaned(taskId: string): Promise<void> {
    try {
      await this.change(taskId, (current) =>
        TERMINAL_STATUSES.has(current.status)
          ? undefined
          : { ...settle(current, "failed"), error: OWNER_LOST },
      );
    } catch (error) {
      this.logger.warn("could not fail an orphaned task", { taskId, error: String(error) });
    }
  }

  private async execute(taskId: string, run: TaskRun, running: Running): Promise<void> {
    const context = this.context(taskId, running);
    let outcome: ((current: TaskRecord) => TaskRecord) | undefined;
    try {
      const result: unknown = await run.work(context);
      if (!isObject(result) || !Array.isArray(result.content)) {
        throw new Error("a task's work must resolve with a tool result ({ content: [...] })");
      }
      outcome = (current) => ({ ...settle(current, "completed"), result });
    } catch (error) {
      if (!running.abort.signal.aborted) outcome = this.failedWork(taskId, running, error);
    }
    if (outcome !== undefined && !running.abort.signal.aborted) {
      running.done = true;
      await this.storeOutcome(taskId, running, outcome);
    }
    this.stop(taskId, undefined);
  }

  /** How a task ends whose work threw `error`: as its `failed` hook says (an `isError` result), else failed. */
  private failedWork(taskId: string, running: Running, error: unknown): (current: TaskRecord) => TaskRecord {
    if (!(error instanceof JsonRpcError) && running.hooks.failed !== undefined) {
      try {
        const result = running.hooks.failed(error);
        return (current) => ({ ...settle(current, "completed"), result });
      } catch (hookError) {
        error = hookError;
      }
    }
    const failure = failureOf(error, this.logger, taskId);
    return (current) => ({ ...settle(current, "failed"), error: failure });
  }

  /**
   * Stores how a task's work ended, unless the task ended otherwise meanwhile. A store that cannot be reached
   * (a cluster's Redis restarting) is retried, 250 ms doubling up to 5 s, until the task's TTL passes.
   */
  private async storeOutcome(
    taskId: string,
    running: Running,
    outcome: (current: TaskRecord) => TaskRecord,
  ): Promise<void> {
    const { clock } = this.settings;
    for (let delayMs = OUTCOME_RETRY_MS; ; delayMs = Math.min(delayMs * 2, OUTCOME_RETRY_MAX_MS)) {
      try {
        await this.change(taskId, (current) =>
          TERMINAL_STATUSES.has(current.status) ? undefined : outcome(current),
        );
        return;
      } catch (error) {
        if (!isClusterUnavailable(error) || this.closed || clock.now() + delayMs >= running.expiresAt) {
          this.logger.warn("could not store the outcome of a task", { taskId, error: String(error) });
          return;
        }
        await new Promise<void>((resolve) => clock.setTimeout(resolve, delayMs));
      }
    }
  }

  private context(taskId: string, running: Running): TaskContext {
    const signal = running.abort.signal;
    // A status message is informative: one the store cannot take is logged, never a failure of the work.
    const setMessage = (statusMessage: string) =>
      this.change(taskId, (current) =>
        TERMINAL_STATUSES.has(current.status) ? undefined : { ...current, statusMessage },
      ).catch((error: unknown) => {
        this.logger.warn("could not store a task's status message", { taskId, error: String(error) });
      });
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
          const pending: Pending = { resolve, reject, poll: undefined };
          running.pending = pending;
          if (this.signals !== undefined) this.pollAnswers(taskId, running, pending);
          const ask = (asked: InputRequests) =>
            this.change(taskId, (current) => {
              if (TERMINAL_STATUSES.has(current.status)) return undefined;
              const { inputResponses: _old, ...rest } = current;
              return { ...rest, status: "input_required", inputRequests: structuredClone({ ...asked }) };
            });
          const place = running.hooks.place;
          (place === undefined ? ask(requests) : place(requests).then(ask)).catch(reject);
        });
      },
    };
  }

  /** On a cluster: reads the store for answers every `pollIntervalMs` while `pending` waits. */
  private pollAnswers(taskId: string, running: Running, pending: Pending): void {
    const { clock, pollIntervalMs } = this.settings;
    pending.poll = clock.setTimeout(() => {
      if (running.pending !== pending) return;
      void this.refresh(taskId).finally(() => {
        if (running.pending === pending) this.pollAnswers(taskId, running, pending);
      });
    }, pollIntervalMs);
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
    this.settings.clock.clearTimeout(running.pending?.poll);
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
  const { inputRequests: _asked, inputResponses: _answers, statusMessage: _old, ...rest } = record;
  return message === undefined ? { ...rest, status } : { ...rest, status, statusMessage: message };
}

/**
 * `current` with the `responses` to keys it asks for moved from `inputRequests` to `inputResponses` (other keys,
 * and answers that are not objects, ignored); `working` once nothing is left to answer. `undefined` when it
 * takes none of them.
 */
function withAnswers(current: TaskRecord, responses: InputResponses): TaskRecord | undefined {
  if (current.status !== "input_required" || current.inputRequests === undefined) return undefined;
  const remaining: { [key: string]: InputRequests[string] } = { ...current.inputRequests };
  const answers: InputResponses = { ...current.inputResponses };
  let took = false;
  for (const [key, response] of Object.entries(responses)) {
    if (!(key in remaining) || !isObject(response)) continue;
    answers[key] = response;
    delete remaining[key];
    took = true;
  }
  if (!took) return undefined;
  const { inputRequests: _asked, ...rest } = current;
  return Object.keys(remaining).length === 0
    ? { ...rest, status: "working", inputResponses: answers }
    : { ...rest, inputRequests: remaining, inputResponses: answers };
}

/** A task's error: a `JsonRpcError` as it is; anything else is logged and becomes `-32603` "Internal error". */
function failureOf(
  error: unknown,
  logger: { error(message: string, error: unknown): void },
  taskId: string,
): { code: number; message: string; data?: unknown } {
  if (error instanceof JsonRpcError) {
    const failure: { code: number; message: string; data?: unknown } = {
      code: error.code,
      message: error.message,
    };
    if (error.data !== undefined) failure.data = error.data;
    return failure;
  }
  logger.error(`task ${taskId} failed`, error);
  return { code: ErrorCode.InternalError, message: "Internal error" };
}
