/**
 * The tasks engine against a manual clock: every bound crossed (TTL, the per-principal and global caps, the
 * longest TTL a client may ask for), visibility to the creating principal only, cancellation, input rounds
 * with partial answers, and how a task's work ends it.
 */
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../test/support/manual-clock.js";
import { until } from "../../../test/support/until.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import { MemoryTaskStore, type TaskRecord } from "../state/task-store.js";
import { TaskEngine } from "./engine.js";
import { runAsTask, type TaskContext } from "./run.js";

const logger = { warn() {}, error() {} };
const done = { content: [{ type: "text" as const, text: "done" }] };

function engine(overrides: { maxTasksPerPrincipal?: number; maxTasks?: number } = {}) {
  const clock = new ManualClock();
  const store = new MemoryTaskStore(() => clock.now());
  const tasks = new TaskEngine(
    {
      store,
      clock,
      ttlMs: 10_000,
      maxTtlMs: 60_000,
      pollIntervalMs: 500,
      maxTasksPerPrincipal: overrides.maxTasksPerPrincipal ?? 3,
      maxTasks: overrides.maxTasks ?? 5,
    },
    logger,
  );
  return { clock, store, tasks };
}

/** A task whose work waits until the test lets it go, and exposes its context. */
function held() {
  let release: () => void = () => {};
  let context: TaskContext | undefined;
  const run = runAsTask(async (task) => {
    context = task;
    await new Promise<void>((resolve, reject) => {
      release = resolve;
      task.signal.addEventListener("abort", () => reject(task.signal.reason));
    });
    return done;
  });
  return { run, release: () => release(), context: () => context };
}

async function codeOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return error instanceof JsonRpcError ? error.code : -1;
  }
}

describe("TaskEngine", () => {
  it("keeps a task, result included, until its TTL passes, and not a millisecond longer", async () => {
    const { clock, tasks } = engine();
    const record = await tasks.start(
      runAsTask(() => done),
      "alice",
      {},
    );
    await until(() => tasks.runningCount === 0);
    expect((await tasks.get("alice", record.taskId)).status).toBe("completed");
    clock.advance(9_999);
    expect((await tasks.get("alice", record.taskId)).result).toEqual(done);
    clock.advance(1);
    expect(await codeOf(tasks.get("alice", record.taskId))).toBe(-32602);
  });

  it("aborts the work of a task whose TTL passes while it runs", async () => {
    const { clock, tasks } = engine();
    const work = held();
    await tasks.start(work.run, "alice", {});
    await until(() => work.context() !== undefined);
    clock.advance(10_000);
    expect(work.context()?.signal.aborted).toBe(true);
    expect(tasks.runningCount).toBe(0);
  });

  it("clamps a requested TTL to maxTtlMs", async () => {
    const { tasks } = engine();
    expect(
      (
        await tasks.start(
          runAsTask(() => done),
          "a",
          {},
          59_999,
        )
      ).ttlMs,
    ).toBe(59_999);
    expect(
      (
        await tasks.start(
          runAsTask(() => done),
          "a",
          {},
          60_001,
        )
      ).ttlMs,
    ).toBe(60_000);
  });

  it("refuses a principal's task past maxTasksPerPrincipal, and takes another principal's", async () => {
    const { clock, tasks } = engine({ maxTasksPerPrincipal: 2 });
    await tasks.start(held().run, "alice", {});
    await tasks.start(held().run, "alice", {});
    const refused = await tasks.start(held().run, "alice", {}).catch((error: JsonRpcError) => error);
    expect(refused).toBeInstanceOf(JsonRpcError);
    expect((refused as JsonRpcError).data).toEqual({
      option: "tasks.maxTasksPerPrincipal",
      limit: 2,
      size: 3,
      reason: "principal_cap",
    });
    await expect(tasks.start(held().run, "bob", {})).resolves.toMatchObject({ principal: "bob" });
    // Expired tasks make room again.
    clock.advance(10_000);
    await expect(tasks.start(held().run, "alice", {})).resolves.toMatchObject({ status: "working" });
  });

  it("refuses any task past maxTasks", async () => {
    const { tasks } = engine({ maxTasks: 2, maxTasksPerPrincipal: 5 });
    await tasks.start(held().run, "a", {});
    await tasks.start(held().run, "b", {});
    const refused = await tasks.start(held().run, "c", {}).catch((error: JsonRpcError) => error);
    expect((refused as JsonRpcError).data).toEqual({
      option: "tasks.maxTasks",
      limit: 2,
      size: 3,
      reason: "global_cap",
    });
  });

  it("shows a task only to its principal", async () => {
    const { tasks } = engine();
    const record = await tasks.start(held().run, "alice", {});
    expect(await codeOf(tasks.get("bob", record.taskId))).toBe(-32602);
    expect(await codeOf(tasks.cancel("bob", record.taskId))).toBe(-32602);
    expect(await tasks.list("bob")).toEqual([]);
    expect((await tasks.list("alice")).map((r) => r.taskId)).toEqual([record.taskId]);
  });

  it("cancels a running task (its work sees the signal) and leaves a finished one as it is", async () => {
    const { tasks } = engine();
    const work = held();
    const record = await tasks.start(work.run, "alice", {});
    await until(() => work.context() !== undefined);
    expect((await tasks.cancel("alice", record.taskId)).status).toBe("cancelled");
    expect(work.context()?.signal.aborted).toBe(true);
    const finished = await tasks.start(
      runAsTask(() => done),
      "alice",
      {},
    );
    await until(() => tasks.runningCount === 0);
    expect((await tasks.cancel("alice", finished.taskId)).status).toBe("completed");
  });

  it("waits for input with partial answers: answered keys leave, unknown ones are ignored", async () => {
    const { tasks } = engine();
    const ask = {
      method: "elicitation/create" as const,
      params: { message: "?", requestedSchema: { type: "object" as const, properties: {} } },
    };
    const changes: TaskRecord[] = [];
    const record = await tasks.start(
      runAsTask(async (task) => {
        const answers = await task.input({ a: ask, b: ask });
        return { content: [{ type: "text", text: Object.keys(answers).sort().join(",") }] };
      }),
      "alice",
      { changed: (next) => changes.push(next) },
    );
    await until(() => changes.some((c) => c.status === "input_required"));
    const accepted = { action: "accept" as const, content: {} };
    let now = await tasks.update("alice", record.taskId, { a: accepted, zzz: accepted });
    expect(now.status).toBe("input_required");
    expect(Object.keys(now.inputRequests ?? {})).toEqual(["b"]);
    now = await tasks.update("alice", record.taskId, { b: accepted });
    expect(now.status).toBe("working");
    await until(() => tasks.runningCount === 0);
    expect((await tasks.get("alice", record.taskId)).result).toEqual({
      content: [{ type: "text", text: "a,b" }],
    });
  });

  it("fails a task with the work's JsonRpcError, or -32603 without details for anything else", async () => {
    const { tasks } = engine();
    const rpc = await tasks.start(
      runAsTask(() => {
        throw new JsonRpcError(-32050, "quota", { left: 0 });
      }),
      "a",
      {},
    );
    const crash = await tasks.start(
      runAsTask(() => {
        throw new Error("secret detail");
      }),
      "a",
      {},
    );
    await until(() => tasks.runningCount === 0);
    expect((await tasks.get("a", rpc.taskId)).error).toEqual({
      code: -32050,
      message: "quota",
      data: { left: 0 },
    });
    expect((await tasks.get("a", crash.taskId)).error).toEqual({ code: -32603, message: "Internal error" });
  });
});
