/** The `tasks` server option: defaults, unknown keys and bad values refused with INVALID_CONFIG. */

import { describe, expect, it } from "vitest";
import { McpkitError } from "../../jsonrpc/errors.js";
import { MemoryBus, MemoryStore, memoryCluster } from "../cluster/memory.js";
import { createServer } from "../server.js";
import { MemoryTaskStore } from "../state/task-store.js";
import { taskSettings } from "./options.js";
import { taskEngineOf } from "./plugin.js";

const base = { serverInfo: { name: "t", version: "1" }, handler: {} };

function refusal(tasks: unknown): unknown {
  try {
    createServer({ ...base, tasks: tasks as never });
    return undefined;
  } catch (error) {
    return error instanceof McpkitError ? [error.code, error.details?.key] : error;
  }
}

describe("tasks option", () => {
  it("is off by default, and true takes every default", () => {
    expect(taskSettings(undefined)).toBeUndefined();
    expect(taskSettings(false)).toBeUndefined();
    const settings = taskSettings(true);
    expect(settings).toMatchObject({
      ttlMs: 3_600_000,
      maxTtlMs: 86_400_000,
      pollIntervalMs: 1_000,
      maxTasksPerPrincipal: 100,
      maxTasks: 10_000,
    });
    expect(settings?.store).toBeInstanceOf(MemoryTaskStore);
  });

  it("refuses unknown keys, bad numbers, a TTL above maxTtlMs and a store without its methods", () => {
    expect(refusal({ ttl: 5 })).toEqual(["INVALID_CONFIG", "tasks.ttl"]);
    expect(refusal({ maxTasks: 0 })).toEqual(["INVALID_CONFIG", "tasks.maxTasks"]);
    expect(refusal({ ttlMs: 1.5 })).toEqual(["INVALID_CONFIG", "tasks.ttlMs"]);
    expect(refusal({ ttlMs: 2_000, maxTtlMs: 1_000 })).toEqual(["INVALID_CONFIG", "tasks.ttlMs"]);
    expect(refusal({ store: { get() {} } })).toEqual(["INVALID_CONFIG", "tasks.store"]);
    expect(refusal("yes")).toEqual(["INVALID_CONFIG", "tasks"]);
  });

  it("keeps tasks in the cluster's task store, and refuses a cluster without one unless tasks.store is given", async () => {
    const cluster = memoryCluster();
    const server = createServer({ ...base, cluster, tasks: true });
    expect(taskEngineOf(server.config.hooks.plugins)?.settings.store).toBe(cluster.tasks);
    await server.close();
    const bare = { bus: new MemoryBus(), store: new MemoryStore() };
    expect(() => createServer({ ...base, cluster: bare, tasks: true })).toThrow(/cluster\.tasks/);
    const own = new MemoryTaskStore();
    const explicit = createServer({ ...base, cluster: bare, tasks: { store: own } });
    expect(taskEngineOf(explicit.config.hooks.plugins)?.settings.store).toBe(own);
    await explicit.close();
  });

  it("advertises core tasks in 2025-11-25 and the extension in 2026-07-28 only", () => {
    const server = createServer({ ...base, tasks: true });
    const legacy = server.config.capabilitiesByEra["2025-11-25"];
    const modern = server.config.capabilitiesByEra["2026-07-28"];
    expect(legacy.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    expect(legacy.extensions?.["io.modelcontextprotocol/tasks"]).toBeUndefined();
    expect(modern.tasks).toBeUndefined();
    expect(modern.extensions?.["io.modelcontextprotocol/tasks"]).toEqual({});
  });
});
