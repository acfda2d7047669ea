import type { InputRequests, InputResponses } from "../../protocol/types/input.js";
import type { TaskError, TaskStatus } from "../../protocol/types/tasks.js";

/** One task as a {@link TaskStore} keeps it: plain JSON, so a shared store can serialize it. */
export interface TaskRecord {
  readonly taskId: string;
  /** Who created it (an identity fingerprint, or a session's own key): the only principal that sees it. */
  readonly principal: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** Clock times, in milliseconds. */
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** Kept until `createdAt + ttlMs`, then gone. */
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** The final result (status `completed`). */
  readonly result?: { readonly [key: string]: unknown };
  /** The JSON-RPC error (status `failed`). */
  readonly error?: TaskError;
  /** What the task waits for (status `input_required`), by key. */
  readonly inputRequests?: InputRequests;
  /**
   * Answers received and not yet taken by the task's work (never sent to clients): collected while the task
   * is `input_required`, taken when every request is answered.
   */
  readonly inputResponses?: InputResponses;
  /** On a cluster: the instance that runs the task's work (never sent to clients). */
  readonly owner?: string;
}

/** Why {@link TaskStore.create} refused a task. */
export type TaskCapRefusal = "principal_cap" | "global_cap";

/**
 * Where tasks live. Small and async, so that a shared store (Redis, a database) can implement it: every method
 * may be called from many instances at once, and each must be atomic on its own. A record is gone once its TTL
 * (`createdAt + ttlMs`) has passed: `get`, `update` and `list` never return an expired one.
 *
 * @example
 * const store: TaskStore = new MemoryTaskStore();
 * createServer({ serverInfo, handler, tasks: { store } });
 */
export interface TaskStore {
  /**
   * Adds a new record, unless its principal already holds `caps.perPrincipal` live tasks or the store holds
   * `caps.total`: then nothing is added and the refusal says which cap.
   */
  create(
    record: TaskRecord,
    caps: { readonly perPrincipal: number; readonly total: number },
  ): Promise<TaskCapRefusal | undefined>;
  /** The live record of `taskId`, if any. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Replaces a live record with what `change` makes of it, atomically (`change` may run more than once on a
   * store that retries; it must be pure). `change` returning `undefined` leaves the record as it is. Resolves
   * with the record as stored afterwards, or `undefined` when there is none.
   */
  update(
    taskId: string,
    change: (record: TaskRecord) => TaskRecord | undefined,
  ): Promise<TaskRecord | undefined>;
  /** Every live record of `principal`, oldest first. */
  list(principal: string): Promise<TaskRecord[]>;
}

/**
 * The default {@link TaskStore}: records in this process's memory, dropped when their TTL passes (on access;
 * nothing runs in the background).
 */
export class MemoryTaskStore implements TaskStore {
  private readonly records = new Map<string, TaskRecord>();

  /** `now`: the clock TTLs are read against (default `Date.now`). */
  constructor(private readonly now: () => number = Date.now) {}

  /** Live records held now. */
  get size(): number {
    this.sweep();
    return this.records.size;
  }

  async create(
    record: TaskRecord,
    caps: { readonly perPrincipal: number; readonly total: number },
  ): Promise<TaskCapRefusal | undefined> {
    this.sweep();
    if (this.records.size >= caps.total) return "global_cap";
    let mine = 0;
    for (const held of this.records.values()) if (held.principal === record.principal) mine++;
    if (mine >= caps.perPrincipal) return "principal_cap";
    this.records.set(record.taskId, record);
    return undefined;
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return this.live(taskId);
  }

  async update(
    taskId: string,
    change: (record: TaskRecord) => TaskRecord | undefined,
  ): Promise<TaskRecord | undefined> {
    const record = this.live(taskId);
    if (record === undefined) return undefined;
    const next = change(record);
    if (next === undefined) return record;
    this.records.set(taskId, next);
    return next;
  }

  async list(principal: string): Promise<TaskRecord[]> {
    this.sweep();
    return [...this.records.values()].filter((record) => record.principal === principal);
  }

  private live(taskId: string): TaskRecord | undefined {
    const record = this.records.get(taskId);
    if (record === undefined) return undefined;
    if (this.now() < record.createdAt + record.ttlMs) return record;
    this.records.delete(taskId);
    return undefined;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, record] of this.records)
      if (now >= record.createdAt + record.ttlMs) this.records.delete(id);
  }
}
