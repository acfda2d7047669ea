/**
 * Upstream tasks: with the gateway's `tasks: true`, a call a client makes as a task runs as the upstream's own
 * task where the upstream and the tool take tasks. A real mcpkit upstream over HTTP on 127.0.0.1, in each era
 * (2025-11-25 by refusing its `server/discover`, so the gateway falls back), and server-everything's
 * `simulate-research-query` (a 2025-11-25 task tool of the official SDK) over stdio.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type Client,
  callToolAsTask,
  callToolToCompletion,
  cancelTask,
  getTask,
  waitForTask,
} from "../../src/client/index.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import { serve } from "../../src/node/index.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { MemoryTaskStore, runAsTask, ServerBuilder, type TaskContext } from "../../src/server/index.js";
import { eventually, gatewayWithClient } from "./support.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

const POLL = { minPollMs: 10, maxPollMs: 50 };
const OBJECT = { type: "object" } as const;
const TASKS = { taskSupport: "optional" } as const;
const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";
const ok = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/** Asks the task's client for a name (an elicitation form) and answers with it. */
async function nameFrom(task: TaskContext): Promise<string | undefined> {
  const { who } = await task.input({
    who: {
      method: "elicitation/create",
      params: {
        mode: "form",
        message: "Who are you?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      },
    },
  });
  return (who as { content?: { name?: string } }).content?.name;
}

/** An mcpkit upstream with task tools, served on 127.0.0.1 in `era`; its task store and what its tools saw. */
async function taskUpstream(era: string) {
  const store = new MemoryTaskStore();
  const seen = { taskIds: [] as Array<string | undefined>, cancelled: 0, discoverRefused: 0 };
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = new ServerBuilder({
    serverInfo: { name: "tasker", version: "1.0.0" },
    tasks: { store, pollIntervalMs: 20 },
  })
    .tool({ name: "staged", inputSchema: OBJECT, execution: TASKS }, () =>
      runAsTask(async (task) => {
        seen.taskIds.push(task.taskId);
        await task.status("stage 1 of 2");
        await released;
        return ok("staged done");
      }),
    )
    .tool({ name: "ask", inputSchema: OBJECT, execution: TASKS }, () =>
      runAsTask(async (task) => {
        seen.taskIds.push(task.taskId);
        return ok(`hello ${await nameFrom(task)}`);
      }),
    )
    .tool({ name: "deep", inputSchema: OBJECT, execution: { taskSupport: "required" } }, () =>
      runAsTask(async (task) => {
        seen.taskIds.push(task.taskId);
        return ok(`deep down, ${await nameFrom(task)}`);
      }),
    )
    .tool({ name: "hold", inputSchema: OBJECT, execution: TASKS }, () =>
      runAsTask(async (task) => {
        seen.taskIds.push(task.taskId);
        await task.status("holding");
        await new Promise((resolve) => task.signal.addEventListener("abort", resolve));
        seen.cancelled++;
        return ok("released");
      }),
    )
    .tool({ name: "fail", inputSchema: OBJECT, execution: TASKS }, () =>
      runAsTask(async (task) => {
        seen.taskIds.push(task.taskId);
        // A thrown JsonRpcError fails the task (any other error completes it with an isError result).
        throw new JsonRpcError(-32603, "secret: the database password is hunter2");
      }),
    )
    .build();
  closers.push(() => server.close());
  const handle = await serve(server);
  closers.push(() => handle.close());
  let url = handle.url;
  if (era === LEGACY_VERSION) {
    // A 2025-only front: `server/discover` answered -32601, so the gateway's client falls back to 2025-11-25.
    const { createHttpHandler } = await import("../../src/http/index.js");
    const handler = createHttpHandler(server);
    const front = await serve(async (request: Request) => {
      if (request.method === "POST") {
        const body = await request.clone().text();
        if (body.includes('"server/discover"')) {
          const id = (JSON.parse(body) as { id: unknown }).id;
          seen.discoverRefused++;
          return Response.json({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } });
        }
      }
      return handler(request);
    });
    closers.push(() => front.close());
    url = front.url;
  }
  return { url, store, seen, release: () => release() };
}

async function gateway(url: string, era: string) {
  const { client } = await gatewayWithClient(
    { up: { url, start: "boot" } },
    {
      protocolVersion: era as never,
      capabilities: { elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } },
      onElicitation: () => ({ action: "accept", content: { name: "Tasker" } }),
    },
    closers,
    { tasks: true },
  );
  return client;
}

const until = async (
  client: Client,
  taskId: string,
  done: (t: Awaited<ReturnType<typeof getTask>>) => boolean,
) => {
  let task = await getTask(client, taskId);
  await eventually(async () => {
    task = await getTask(client, taskId);
    return done(task);
  });
  return task;
};

for (const upstreamEra of [MODERN_VERSION, LEGACY_VERSION] as const) {
  describe.each([MODERN_VERSION, LEGACY_VERSION] as const)(
    `a ${upstreamEra} upstream's own tasks through the gateway (%s client)`,
    (era) => {
      it("runs the call as the upstream's task, mirroring its status message, and fetches its result", async () => {
        const upstream = await taskUpstream(upstreamEra);
        const client = await gateway(upstream.url, era);
        const { task } = await callToolAsTask(client, "up__staged", {});
        if (task === undefined) throw new Error("expected a task");
        const working = await until(client, task.taskId, (t) => t.statusMessage === "stage 1 of 2");
        expect(working.status).toBe("working");
        // The upstream ran it as a task of its own (inline, its taskId would be undefined).
        expect(upstream.seen.taskIds).toHaveLength(1);
        expect(upstream.seen.taskIds[0]).toEqual(expect.any(String));
        upstream.release();
        expect(text(await waitForTask(client, task, POLL))).toBe("staged done");
        expect(upstream.seen.discoverRefused > 0).toBe(upstreamEra === LEGACY_VERSION);
        expect((await upstream.store.get(upstream.seen.taskIds[0] as string))?.status).toBe("completed");
      });

      it("carries the upstream task's input requests to the client and its answers back", async () => {
        const upstream = await taskUpstream(upstreamEra);
        const client = await gateway(upstream.url, era);
        expect(text(await callToolToCompletion(client, "up__ask", {}, POLL))).toBe("hello Tasker");
        expect(upstream.seen.taskIds[0]).toEqual(expect.any(String));
      });

      it("makes a plain call to a tool that requires a task as the upstream's task, its input carried", async () => {
        const upstream = await taskUpstream(upstreamEra);
        // A client that knows nothing of tasks, before a gateway without them.
        const { client } = await gatewayWithClient(
          { up: { url: upstream.url, start: "boot" } },
          {
            protocolVersion: era,
            capabilities: { elicitation: { form: {} } },
            onElicitation: () => ({ action: "accept", content: { name: "Tasker" } }),
          },
          closers,
        );
        expect(text(await client.callTool("up__deep", {}))).toBe("deep down, Tasker");
        expect(upstream.seen.taskIds).toEqual([expect.any(String)]);
        expect((await upstream.store.get(upstream.seen.taskIds[0] as string))?.status).toBe("completed");
      });

      it("cancels the upstream's task when the client cancels the gateway's", async () => {
        const upstream = await taskUpstream(upstreamEra);
        const client = await gateway(upstream.url, era);
        const { task } = await callToolAsTask(client, "up__hold", {});
        if (task === undefined) throw new Error("expected a task");
        await until(client, task.taskId, (t) => t.statusMessage === "holding");
        await cancelTask(client, task.taskId);
        expect((await getTask(client, task.taskId)).status).toBe("cancelled");
        const upstreamId = upstream.seen.taskIds[0] as string;
        await eventually(async () => (await upstream.store.get(upstreamId))?.status === "cancelled");
        await eventually(() => upstream.seen.cancelled === 1);
      });

      it("fails the gateway's task when the upstream's fails, leaking none of its error text", async () => {
        const upstream = await taskUpstream(upstreamEra);
        const client = await gateway(upstream.url, era);
        const { task } = await callToolAsTask(client, "up__fail", {});
        if (task === undefined) throw new Error("expected a task");
        const failed = await until(client, task.taskId, (t) => t.status === "failed");
        const upstreamId = upstream.seen.taskIds[0] as string;
        expect((await upstream.store.get(upstreamId))?.status).toBe("failed");
        expect(JSON.stringify(failed)).not.toContain("hunter2");
        const error = await waitForTask(client, task, POLL).catch((e: unknown) => e);
        expect(JSON.stringify(error)).not.toContain("hunter2");
        expect(String((error as Error).message)).not.toContain("hunter2");
      });
    },
  );
}

const require = createRequire(import.meta.url);
const everything = {
  command: process.execPath,
  args: [
    join(require.resolve("@modelcontextprotocol/server-everything/package.json"), "..", "dist", "index.js"),
  ],
};

describe("server-everything's task tool through the gateway", () => {
  it("runs simulate-research-query as its task: status mirrored, the clarification asked of the client", async () => {
    const { client } = await gatewayWithClient(
      { ev: { ...everything, start: "boot" } },
      {
        protocolVersion: MODERN_VERSION,
        capabilities: { elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } },
        onElicitation: () => ({ action: "accept", content: { interpretation: "the gateway one" } }),
      },
      closers,
      { tasks: true },
    );
    const messages: string[] = [];
    const result = await callToolToCompletion(
      client,
      "ev__simulate-research-query",
      { topic: "gateways", ambiguous: true },
      { ...POLL, onStatus: (t) => t.statusMessage && messages.push(t.statusMessage) },
    );
    expect(text(result)).toContain("the gateway one");
    expect(messages).toContain("Gathering sources...");
  }, 30_000);
});
