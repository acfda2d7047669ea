import { type Clock, isClock, systemClock } from "../../jsonrpc/clock.js";
import { checkKeys, optionError, positiveInteger } from "../../jsonrpc/config-check.js";
import type { McpkitError } from "../../jsonrpc/errors.js";
import { isObject } from "../../jsonrpc/message.js";
import type { Cluster } from "../cluster/cluster.js";
import { MemoryTaskStore, type TaskStore } from "../state/task-store.js";
import type { TaskSettings } from "./engine.js";

/**
 * Options of a server's tasks (`createServer({ tasks })`; `tasks: true` takes every default).
 *
 * @example
 * createServer({ serverInfo, handler, tasks: { ttlMs: 600_000, maxTasksPerPrincipal: 10 } });
 */
export interface TasksOptions {
  /**
   * Where tasks live (default: the `cluster`'s task store, or without a cluster a {@link MemoryTaskStore} on
   * `clock`). Instances behind a load balancer must share it.
   */
  store?: TaskStore;
  /** How long a task is kept from its creation, result included (default 3,600,000 ms). */
  ttlMs?: number;
  /** The longest TTL a 2025-11-25 client may ask for with `task.ttl` (default 86,400,000 ms). */
  maxTtlMs?: number;
  /** The poll interval suggested to clients (default 1,000 ms). */
  pollIntervalMs?: number;
  /** Live tasks one principal may hold (default 100); past it a new one gets `-32603` `principal_cap`. */
  maxTasksPerPrincipal?: number;
  /** Live tasks the store may hold (default 10,000); past it a new one gets `-32603` `global_cap`. */
  maxTasks?: number;
  /** The clock of TTLs and timestamps (default: the system clock). */
  clock?: Clock;
}

/** The prefix of every option error of the tasks. */
const PREFIX = "server option ";

const KEYS = new Set([
  "store",
  "ttlMs",
  "maxTtlMs",
  "pollIntervalMs",
  "maxTasksPerPrincipal",
  "maxTasks",
  "clock",
]);

/**
 * Checks `tasks` server options into settings; `undefined` when tasks are off. Throws `INVALID_CONFIG`, also for
 * a `cluster` without a task store when `tasks.store` is not given (its tasks would not be seen by the others).
 */
export function taskSettings(
  option: boolean | TasksOptions | undefined,
  cluster?: Cluster,
): TaskSettings | undefined {
  if (option === undefined || option === false) return undefined;
  if (option !== true && !isObject(option)) throw invalid("tasks", "must be true or an object");
  const options: TasksOptions = option === true ? {} : option;
  checkKeys(options, KEYS, PREFIX, "tasks.");
  const clock = options.clock ?? systemClock;
  if (!isClock(clock)) throw invalid("tasks.clock", "must be a Clock");
  if (options.store === undefined && cluster !== undefined && cluster.tasks === undefined) {
    throw invalid(
      "tasks.store",
      "is needed with a cluster that has no task store (cluster.tasks): instances must share their tasks",
    );
  }
  const store: TaskStore = options.store ?? cluster?.tasks ?? new MemoryTaskStore(() => clock.now());
  const s = store as unknown as { [key: string]: unknown };
  if (
    typeof store !== "object" ||
    store === null ||
    !["create", "get", "update", "list"].every((m) => typeof s[m] === "function")
  ) {
    throw invalid("tasks.store", "must have create, get, update and list methods");
  }
  const ttlMs = positiveInteger(options.ttlMs, 3_600_000, "tasks.ttlMs", PREFIX);
  const maxTtlMs = positiveInteger(options.maxTtlMs, 86_400_000, "tasks.maxTtlMs", PREFIX);
  if (ttlMs > maxTtlMs) throw invalid("tasks.ttlMs", "must not exceed tasks.maxTtlMs");
  return Object.freeze({
    store,
    clock,
    ttlMs,
    maxTtlMs,
    pollIntervalMs: positiveInteger(options.pollIntervalMs, 1_000, "tasks.pollIntervalMs", PREFIX),
    maxTasksPerPrincipal: positiveInteger(
      options.maxTasksPerPrincipal,
      100,
      "tasks.maxTasksPerPrincipal",
      PREFIX,
    ),
    maxTasks: positiveInteger(options.maxTasks, 10_000, "tasks.maxTasks", PREFIX),
  });
}

function invalid(key: string, problem: string): McpkitError {
  return optionError(key, problem, PREFIX);
}
