/**
 * Task engines of several instances sharing one task store and bus: a task runs on the instance that created
 * it and any instance serves it (get, answers, cancellation, the 2025 result wait), a lost signal is made up
 * by the owner's poll of the store, and a task whose instance is gone fails after the grace.
 */
import { describe, expect, it } from "vitest";
import { connectInProcess } from "../../../test/support/in-process-client.js";
import { ManualClock } from "../../../test/support/manual-clock.js";
import { until } from "../../../test/support/until.js";
import { getTask } from "../../client/tasks.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import type { InputRequests, InputResponse } from "../../protocol/types/input.js";
import { TASKS_EXTENSION } from "../../protocol/types/tasks.js";
import { type ClusterBus, clusterUnavailable } from "../cluster/cluster.js";
import { MemoryBus, MemoryStore } from "../cluster/memory.js";
import { createServer } from "../server.js";
import { MemoryTaskStore, type TaskStore } from "../state/task-store.js";
import { TaskEngine } from "./engine.js";
import { runAsTask, type TaskContext } from "./run.js";
import { OWNER_GRACE_MS } from "./signals.js";

const logger = { warn() {}, error() {} };
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const schema = { type: "object" as const, properties: { v: { type: "string" as const } } };
const ASK: InputRequests = {
  name: { method: "elicitation/create", params: { mode: "form", message: "Name?", requestedSchema: schema } },
  age: { method: "elicitation/create", params: { mode: "form", message: "Age?", requestedSchema: schema } },
};

/** The settings of every engine here: a minute's TTL, polls every 500 ms. */
const settingsOf = (clock: ManualClock, store: TaskStore) => ({
  store,
  clock,
  ttlMs: 60_000,
  maxTtlMs: 60_000,
  pollIntervalMs: 500,
  maxTasksPerPrincipal: 10,
  maxTasks: 10,
});

function instances(count: number, bus: ClusterBus = new MemoryBus()) {
  const clock = new ManualClock();
  const store: TaskStore = new MemoryTaskStore(() => clock.now());
  const settings = settingsOf(clock, store);
  const engines = Array.from({ length: count }, () => new TaskEngine(settings, logger, bus));
  return { clock, store, engines, ready: Promise.all(engines.map((e) => e.joined)) };
}

/** Work that asks for a name and an age, then answers with them; or waits to be cancelled. */
function asking() {
  let context: TaskContext | undefined;
  const run = runAsTask(async (task) => {
    context = task;
    const answers = await task.input(ASK);
    const name = (answers.name as unknown as { content: { v: string } }).content.v;
    const age = (answers.age as unknown as { content: { v: string } }).content.v;
    return text(`${name} ${age}`);
  });
  return { run, context: () => context };
}

/**
 * Two instances on a bus whose publish `fault` replaces while it returns a receiver count (the message is then
 * not delivered), and an asking task started on the first.
 */
async function twoOnFaultyBus(fault: () => number | undefined) {
  const real = new MemoryBus();
  let published = 0;
  const bus: ClusterBus = {
    subscribe: (channel, listener) => real.subscribe(channel, listener),
    publish: async (channel, message) => {
      const receivers = fault() ?? (await real.publish(channel, message));
      published++;
      return receivers;
    },
  };
  const { clock, engines, ready } = instances(2, bus);
  await ready;
  const [a, b] = engines as [TaskEngine, TaskEngine];
  const work = asking();
  const created = await a.start(work.run, "alice", {});
  /** Runs `step`, then waits until a message it published has been answered (or refused by the fault). */
  const answered = async (step: () => Promise<unknown>) => {
    const before = published;
    await step();
    await until(() => published > before);
  };
  return { clock, a, b, work, created, answered };
}

const accept = (v: string): InputResponse => ({ action: "accept", content: { v } });

describe("tasks on a cluster", () => {
  it("serves a task from any instance: answers taken on two others reach the work on its own", async () => {
    const { engines, ready } = instances(3);
    await ready;
    const [a, b, c] = engines as [TaskEngine, TaskEngine, TaskEngine];
    const work = asking();
    const created = await a.start(work.run, "alice", {});
    await until(async () => (await b.get("alice", created.taskId)).status === "input_required");
    expect((await c.get("alice", created.taskId)).inputRequests).toEqual(ASK);
    // Partial answers on b, the rest on c: the record holds them, and the work on a receives all of them.
    await b.update("alice", created.taskId, { name: accept("Ada") });
    const partial = await c.get("alice", created.taskId);
    expect(partial.status).toBe("input_required");
    expect(Object.keys(partial.inputRequests ?? {})).toEqual(["age"]);
    await c.update("alice", created.taskId, { age: accept("36") });
    await until(async () => (await c.get("alice", created.taskId)).status === "completed");
    const final = await b.get("alice", created.taskId);
    expect(final.result).toEqual(text("Ada 36"));
    expect(final.inputResponses).toBeUndefined();
    expect(a.runningCount).toBe(0);
    // Another principal sees nothing, on any instance.
    await expect(c.get("bob", created.taskId)).rejects.toMatchObject({ code: -32602 });
  });

  it("stops the work on its instance when another one cancels the task", async () => {
    const { engines, ready } = instances(2);
    await ready;
    const [a, b] = engines as [TaskEngine, TaskEngine];
    const work = asking();
    const created = await a.start(work.run, "alice", {});
    await until(() => work.context() !== undefined);
    const cancelled = await b.cancel("alice", created.taskId);
    expect(cancelled.status).toBe("cancelled");
    await until(() => work.context()?.signal.aborted === true);
    expect(a.runningCount).toBe(0);
    expect((await a.get("alice", created.taskId)).status).toBe("cancelled");
  });

  it("waits on another instance for a task's result, asking for its input there (2025 tasks/result)", async () => {
    const { clock, engines, ready } = instances(2);
    await ready;
    const [a, b] = engines as [TaskEngine, TaskEngine];
    const work = asking();
    const created = await a.start(work.run, "alice", {});
    const asked: string[][] = [];
    const waiting = b.waitTerminal(
      "alice",
      created.taskId,
      new AbortController().signal,
      async (requests) => {
        asked.push(Object.keys(requests));
        return { name: accept("Grace"), age: accept("45") };
      },
    );
    // b learns of a's changes by reading the store every pollIntervalMs.
    const final = await settledOnPolls(clock, waiting);
    expect(final.status).toBe("completed");
    expect(final.result).toEqual(text("Grace 45"));
    expect(asked).toEqual([["name", "age"]]);
  });

  it("fails the task with the error of a 2025 input round that could not be asked on another instance", async () => {
    const { clock, engines, ready } = instances(2);
    await ready;
    const [a, b] = engines as [TaskEngine, TaskEngine];
    const work = asking();
    const created = await a.start(work.run, "alice", {});
    const missing = new JsonRpcError(-32021, "Missing required client capability: elicitation", {
      requiredCapabilities: { elicitation: {} },
    });
    const waiting = b.waitTerminal("alice", created.taskId, new AbortController().signal, async () => {
      throw missing;
    });
    const final = await settledOnPolls(clock, waiting);
    expect(final.status).toBe("failed");
    expect(final.error).toEqual({ code: -32021, message: missing.message, data: missing.data });
    // The work on its own instance is stopped.
    await until(() => work.context()?.signal.aborted === true);
    expect(a.runningCount).toBe(0);
  });

  it("delivers answers whose signal was lost: the owner reads the store every pollIntervalMs", async () => {
    let drop = false;
    const { clock, a, b, created } = await twoOnFaultyBus(() => (drop ? 1 : undefined));
    await until(async () => (await b.get("alice", created.taskId)).status === "input_required");
    drop = true;
    await b.update("alice", created.taskId, { name: accept("Alan"), age: accept("41") });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await b.get("alice", created.taskId)).status).toBe("working");
    expect(a.runningCount).toBe(1);
    clock.advance(500);
    await until(async () => (await b.get("alice", created.taskId)).status === "completed");
    expect((await b.get("alice", created.taskId)).result).toEqual(text("Alan 41"));
  });

  it("fails a task whose instance is gone, once it stayed unreachable for the grace", async () => {
    const { clock, a, b, work, created, answered } = await twoOnFaultyBus(() => undefined);
    await until(() => work.context() !== undefined);
    await a.close(); // its instance leaves the bus, as a killed process does
    // Each read probes the silent owner: the read's record, once that probe went unanswered.
    const poll = async () => {
      let record: Awaited<ReturnType<TaskEngine["get"]>> | undefined;
      await answered(async () => {
        record = await b.get("alice", created.taskId);
      });
      return record as Awaited<ReturnType<TaskEngine["get"]>>;
    };
    expect((await poll()).status).not.toBe("failed"); // first sight of an empty channel: only suspected
    clock.advance(OWNER_GRACE_MS - 1);
    expect((await poll()).status).not.toBe("failed"); // still within the grace
    clock.advance(1_000); // probes are at most one a second per owner
    await poll();
    const failed = await b.get("alice", created.taskId);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatchObject({ code: -32603, message: /instance running this task stopped/ });
  });

  it("keeps an owner that answers again: a reconnecting bus is not a dead instance", async () => {
    let deaf = false;
    const { clock, a, b, work, created, answered } = await twoOnFaultyBus(() => (deaf ? 0 : undefined));
    await until(() => work.context() !== undefined);
    deaf = true;
    await b.get("alice", created.taskId);
    deaf = false;
    clock.advance(OWNER_GRACE_MS);
    // The owner's answer to this probe is what clears the suspicion: wait for it, not for a time.
    await answered(() => b.get("alice", created.taskId));
    deaf = true;
    clock.advance(OWNER_GRACE_MS - 1);
    await answered(() => b.get("alice", created.taskId));
    expect((await b.get("alice", created.taskId)).status).toBe("input_required");
    expect(a.runningCount).toBe(1);
  });

  it("answers -32603 Cluster unavailable, never a stack, when the shared task store cannot be reached", async () => {
    const down = async (): Promise<never> => {
      throw clusterUnavailable("task get");
    };
    const warned: string[] = [];
    const server = createServer({
      serverInfo: { name: "t", version: "1" },
      handler: {},
      cluster: {
        bus: new MemoryBus(),
        store: new MemoryStore(),
        tasks: { create: down, get: down, update: down, list: down },
      },
      tasks: true,
      logger: { warn: (message) => void warned.push(message), error: () => warned.push("error") },
    });
    const client = await connectInProcess(server, {
      protocolVersion: "2026-07-28",
      capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
    await expect(getTask(client, "any")).rejects.toMatchObject({
      code: -32603,
      message: "Cluster unavailable",
      data: { reason: "cluster_unavailable" },
    });
    expect(warned).toEqual(["a request failed: the cluster is unavailable"]);
    await client.close();
    await server.close();
  });

  it("stores the outcome of work that ended while the store was unreachable, once it is back", async () => {
    const clock = new ManualClock();
    const memory = new MemoryTaskStore(() => clock.now());
    let down = false;
    const guard =
      <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        if (down) throw clusterUnavailable("task update");
        return call(...args);
      };
    const flaky: TaskStore = {
      create: guard((record, caps) => memory.create(record, caps)),
      get: guard((taskId) => memory.get(taskId)),
      update: guard((taskId, change) => memory.update(taskId, change)),
      list: guard((principal) => memory.list(principal)),
    };
    const warnings: string[] = [];
    const engine = new TaskEngine(settingsOf(clock, flaky), {
      warn: (message) => void warnings.push(message),
      error: () => warnings.push("error"),
    });
    let finish: () => void = () => {};
    const created = await engine.start(
      runAsTask(async (task) => {
        await new Promise<void>((resolve) => {
          finish = resolve;
        });
        await task.status("almost"); // the store is down: logged, the work goes on
        return text("done");
      }),
      "alice",
      {},
    );
    await until(() => engine.runningCount === 1);
    down = true;
    finish();
    await until(() => warnings.includes("could not store a task's status message"));
    for (let i = 0; i < 3; i++) {
      clock.advance(5_000);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(engine.runningCount).toBe(1); // still trying to store the outcome
    down = false;
    clock.advance(5_000);
    await until(() => engine.runningCount === 0);
    const final = await engine.get("alice", created.taskId);
    expect(final.status).toBe("completed");
    expect(final.result).toEqual(text("done"));
    expect(warnings).not.toContain("error");
  });
});

/**
 * `waiting`'s value, the clock moving one poll interval (500 ms) at a time until it settles. Each step lets the
 * other side run before the next; however slow the machine, the steps go on until `waiting` settles (a test that
 * never settles ends at the test timeout), so load makes it slower, never wrong.
 */
async function settledOnPolls<T>(clock: { advance(ms: number): void }, waiting: Promise<T>): Promise<T> {
  let settled = false;
  void waiting.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  while (!settled) {
    clock.advance(500);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return waiting;
}
