/**
 * Every limit of the SDK, crossed: the error names the option that governs it and its value in the message
 * (`over <option> (<limit>)`), says the size or count seen, and carries `{ option, limit, size }` in `details`
 * (or in `data` for what goes on the wire). The byte paths first (the HTTP client's limits over real HTTP on
 * 127.0.0.1), then the counts and capacities of the client, the server and the Skills client.
 */
import { describe, expect, it } from "vitest";
import { defineApp } from "../../src/apps/index.js";
import { CallbackRunner } from "../../src/client/callbacks.js";
import { Client } from "../../src/client/client.js";
import { SseParser } from "../../src/http/client/sse-parser.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { bodyTooLarge } from "../../src/http/server/view.js";
import { encodeMessage } from "../../src/jsonrpc/codec.js";
import { McpkitError } from "../../src/jsonrpc/errors.js";
import { serve } from "../../src/node/serve.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { ClientRequests } from "../../src/server/state/client-requests.js";
import { MemoryTaskStore } from "../../src/server/state/task-store.js";
import { TaskEngine } from "../../src/server/tasks/engine.js";
import { runAsTask } from "../../src/server/tasks/run.js";
import { listAllSkills } from "../../src/skills/client.js";
import { createSkillCatalogue } from "../../src/skills/index.js";
import { encodeFrame, FrameDecoder } from "../../src/stdio/framing.js";
import { type ConnectFakeOptions, connectFake, ok } from "../support/fake-server.js";
import { connectInProcess } from "../support/in-process-client.js";
import { inputServer } from "../support/input-server.js";
import { useCleanups } from "../support/interop-helpers.js";
import { ManualClock } from "../support/manual-clock.js";

const cleanup = useCleanups();

/** What a case produced: the message and the facts (from `details` or wire `data`). */
interface Crossed {
  message: string;
  facts: { [key: string]: unknown } | undefined;
}

async function caught(run: () => unknown): Promise<Crossed> {
  try {
    await run();
  } catch (error) {
    if (error instanceof McpkitError) return { message: error.message, facts: error.details as never };
    const wire = error as { message: string; data?: { [key: string]: unknown } };
    return { message: wire.message, facts: wire.data };
  }
  throw new Error("the limit was not crossed");
}

async function httpClientOf(policy: { [key: string]: number }): Promise<Client> {
  const server = new ServerBuilder({ serverInfo: { name: "limits", version: "1.0.0" } })
    .tool({ name: "big", inputSchema: { type: "object" } }, ({ size }) => ({
      content: [{ type: "text", text: "x".repeat(Number(size)) }],
    }))
    .build();
  const handler = createHttpHandler(server);
  const running = await serve(handler, { host: "127.0.0.1" });
  const client = new Client({
    transport: new StreamableHttpClientTransport({ url: running.url, policy }),
    clientInfo: { name: "limits", version: "1.0.0" },
  });
  cleanup(async () => {
    await client.close();
    await running.close();
    await handler.close();
  });
  await client.connect();
  return client;
}

const PING = { jsonrpc: "2.0" as const, id: 1, method: "ping", params: { pad: "x".repeat(200) } };

const cases: [name: string, option: string, limit: number, run: () => unknown][] = [
  [
    "stdio inbound frame",
    "maxFrameBytes",
    100,
    () =>
      new FrameDecoder({ maxFrameBytes: 100, maxPendingBytes: 1_000 }, () => {}).push(
        Buffer.from("y".repeat(150)),
      ),
  ],
  [
    "stdio bytes pending a newline",
    "maxPendingStdoutBytes",
    100,
    () =>
      new FrameDecoder({ maxFrameBytes: 1_000, maxPendingBytes: 100 }, () => {}).push(
        Buffer.from("y".repeat(150)),
      ),
  ],
  ["stdio outbound frame", "maxOutboundFrameBytes", 100, () => encodeFrame(PING, 100)],
  ["codec", "maxBytes", 100, () => encodeMessage(PING, 100)],
  [
    "SSE event",
    "maxSseEventBytes",
    100,
    () => new SseParser(100, { event: () => {} }).push(Buffer.from(`data: ${"x".repeat(200)}`)),
  ],
  [
    "HTTP request body (server)",
    "maxBodyBytes",
    100,
    () => {
      const { refusal } = bodyTooLarge(100, 150);
      throw Object.assign(new Error(refusal.message), { data: refusal.data });
    },
  ],
  [
    "HTTP response (client)",
    "maxResponseBytes",
    10_000,
    async () => (await httpClientOf({ maxResponseBytes: 10_000 })).callTool("big", { size: 20_000 }),
  ],
  [
    "HTTP request (client)",
    "maxRequestBytes",
    1_000,
    async () =>
      (await httpClientOf({ maxRequestBytes: 1_000 })).callTool("big", { size: 1, pad: "p".repeat(2_000) }),
  ],
  [
    "skill file (catalogue)",
    "options.limits.maxFileBytes",
    1_000,
    () =>
      createSkillCatalogue(
        [{ frontmatter: { name: "s", description: "d" }, files: { "F.md": "f".repeat(2_000) } }],
        {
          limits: { maxFileBytes: 1_000 },
        },
      ),
  ],
  [
    "App view body",
    "limits.resourceBytes",
    100,
    () =>
      defineApp({
        tool: { name: "v", inputSchema: { type: "object" } },
        resource: { uri: "ui://v/view", name: "v" },
        content: { text: `<p>${"x".repeat(200)}</p>` },
        limits: { resourceBytes: 100 },
      }),
  ],
];

describe("limit errors name the option that governs them", () => {
  it.each(cases)("%s: %s", async (_name, option, limit, run) => {
    const { message, facts } = await caught(run);
    expect(message).toContain(`over ${option} (${limit})`);
    expect(message).toMatch(/\d+ bytes, over /);
    expect(facts).toMatchObject({ option, limit });
    expect(facts?.size).toBeGreaterThan(limit);
  });
});

const never = (signal?: AbortSignal) =>
  new Promise<never>((_resolve, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));

async function fakeClient(
  client: { [key: string]: unknown },
  setup: NonNullable<ConnectFakeOptions["setup"]>,
) {
  const pair = await connectFake({ validate: false, client, setup });
  cleanup(() => pair.client.close());
  return pair.client;
}

function pagedServer(options: { pageSize: number; maxSubscriptions?: number }) {
  const builder = new ServerBuilder({ serverInfo: { name: "counts", version: "1.0.0" }, ...options });
  for (const name of ["a", "b", "c"])
    builder.tool({ name, inputSchema: { type: "object" } }, () => ({ content: [] }));
  return builder.build();
}

const ELICIT = {
  method: "elicitation/create",
  params: { message: "Who?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
};

/** A `skills/list` that always has another page, `perPage` entries each. */
function endlessSkills(perPage: number) {
  return async (_method: string, params?: { [key: string]: unknown }) => {
    const at = Number(params?.cursor ?? 0);
    const skills = Array.from({ length: perPage }, (_, i) => ({
      name: `s${at}-${i}`,
      description: "d",
      uri: `skill://s${at}-${i}/SKILL.md`,
    }));
    return { skills, nextCursor: String(at + 1) };
  };
}

const counts: [name: string, option: string, limit: number, unit: string, run: () => unknown][] = [
  [
    "client: pending requests",
    "maxPendingRequests",
    1,
    "requests",
    async () => {
      const client = await fakeClient({ maxPendingRequests: 1 }, (s) => s.on("tools/call", () => undefined));
      client.callTool("a").catch(() => {});
      return client.callTool("b");
    },
  ],
  [
    "client: subscriptions",
    "maxSubscriptions",
    1,
    "subscriptions",
    async () => {
      const client = await fakeClient({ maxSubscriptions: 1 }, (s) =>
        s.on("subscriptions/listen", () => undefined),
      );
      await client.listenSubscriptions({ toolsListChanged: true });
      return client.listenSubscriptions({ toolsListChanged: true });
    },
  ],
  [
    "client: concurrent callbacks",
    "maxConcurrentCallbacks",
    1,
    "callbacks",
    () => {
      const runner = new CallbackRunner(1, 60_000);
      cleanup(async () => runner.close(new McpkitError("CLOSED", "done")));
      runner.run("first", never).catch(() => {});
      return runner.run("second", never);
    },
  ],
  [
    "client: listAll pages",
    "maxPages",
    1,
    "pages",
    async () =>
      (await connectInProcess(pagedServer({ pageSize: 1 }), {}, cleanup)).listAllTools({ maxPages: 1 }),
  ],
  [
    "client: listAll items",
    "maxItems",
    2,
    "items",
    async () =>
      (await connectInProcess(pagedServer({ pageSize: 2 }), {}, cleanup)).listAllTools({ maxItems: 2 }),
  ],
  [
    "client: input rounds",
    "maxInputRounds",
    1,
    "rounds",
    async () =>
      (
        await fakeClient(
          {
            capabilities: { elicitation: {} },
            maxInputRounds: 1,
            onInputRequired: () => ({ x: { action: "accept", content: { name: "Ada" } } }),
          },
          (s) =>
            s.on("tools/call", () =>
              ok({ resultType: "input_required", inputRequests: { x: ELICIT }, requestState: "again" }),
            ),
        )
      ).callTool("t"),
  ],
  [
    "server: 2026 subscriptions (on the wire)",
    "maxSubscriptions",
    1,
    "subscriptions",
    async () => {
      const client = await connectInProcess(
        pagedServer({ pageSize: 1, maxSubscriptions: 1 }),
        { protocolVersion: "2026-07-28" },
        cleanup,
      );
      await client.listenSubscriptions({ toolsListChanged: true });
      const refused = await client.listenSubscriptions({ toolsListChanged: true });
      for await (const _event of refused) {
        // The refusal ends the subscription with the server's error.
      }
    },
  ],
  [
    "server: 2025 resource subscriptions per session (on the wire)",
    "maxSessionSubscriptions",
    1,
    "subscriptions",
    async () => {
      const { server } = inputServer({ maxSessionSubscriptions: 1 });
      const client = await connectInProcess(server, { protocolVersion: "2025-11-25" }, cleanup);
      await client.subscribeResource("a://1");
      return client.subscribeResource("a://2");
    },
  ],
  [
    "server: builder registrations",
    "maxRegistrations",
    1,
    "tools",
    () =>
      new ServerBuilder({ serverInfo: { name: "r", version: "1" }, maxRegistrations: 1 })
        .tool({ name: "a", inputSchema: { type: "object" } }, () => ({ content: [] }))
        .tool({ name: "b", inputSchema: { type: "object" } }, () => ({ content: [] })),
  ],
  [
    "server: queued handler calls (on the wire)",
    "maxQueuedHandlers",
    0,
    "queued calls",
    async () => {
      const server = new ServerBuilder({
        serverInfo: { name: "q", version: "1" },
        maxConcurrentHandlers: 1,
        maxQueuedHandlers: 0,
      })
        .tool({ name: "wait", inputSchema: { type: "object" } }, (_args, context) => never(context.signal))
        .build();
      const client = await connectInProcess(server, { protocolVersion: "2026-07-28" }, cleanup);
      client.callTool("wait").catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 0));
      return client.callTool("wait");
    },
  ],
  [
    "server: tasks per principal",
    "tasks.maxTasksPerPrincipal",
    1,
    "tasks",
    () => secondTask({ maxTasksPerPrincipal: 1, maxTasks: 5 }, "alice"),
  ],
  [
    "server: tasks in the store",
    "tasks.maxTasks",
    1,
    "tasks",
    () => secondTask({ maxTasksPerPrincipal: 5, maxTasks: 1 }, "bob"),
  ],
  [
    "server: server-to-client requests pending",
    "maxClientRequests",
    1,
    "requests",
    () => {
      const requests = new ClientRequests(1, 60_000);
      const signal = new AbortController();
      cleanup(async () => signal.abort());
      requests.request("roots/list", undefined, async () => {}, signal.signal).catch(() => {});
      return requests.request("roots/list", undefined, async () => {}, signal.signal);
    },
  ],
  [
    "HTTP: legacy sessions (on the wire)",
    "sessions.maxSessions",
    1,
    "sessions",
    async () => {
      const handler = createHttpHandler(pagedServer({ pageSize: 1 }), { sessions: { maxSessions: 1 } });
      cleanup(() => handler.close());
      const initialize = () =>
        handler(
          new Request("http://127.0.0.1/mcp", {
            method: "POST",
            headers: {
              host: "127.0.0.1",
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
            },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "initialize",
              params: {
                protocolVersion: "2025-11-25",
                capabilities: {},
                clientInfo: { name: "c", version: "1" },
              },
            }),
          }),
        );
      expect((await initialize()).status).toBe(200);
      const refused = await initialize();
      expect(refused.status).toBe(503);
      const { error } = (await refused.json()) as { error: { message: string; data: unknown } };
      throw Object.assign(new Error(error.message), { data: error.data });
    },
  ],
  [
    "Skills client: pages",
    "options.maxPages",
    2,
    "pages",
    () => listAllSkills(endlessSkills(1), { maxPages: 2 }),
  ],
  [
    "Skills client: items",
    "options.maxItems",
    3,
    "items",
    () => listAllSkills(endlessSkills(2), { maxItems: 3 }),
  ],
];

describe("count and capacity limit errors name the option that governs them", () => {
  it.each(counts)("%s: %s", async (_name, option, limit, unit, run) => {
    const { message, facts } = await caught(run);
    expect(message).toContain(`over ${option} (${limit})`);
    expect(message).toMatch(new RegExp(`\\d+ ${unit}, over `));
    expect(facts).toMatchObject({ option, limit });
    expect(facts?.size).toBeGreaterThan(limit);
  });
});

/** A task engine with these caps, one task of alice's running: starts a second task, for `principal`. */
async function secondTask(caps: { maxTasksPerPrincipal: number; maxTasks: number }, principal: string) {
  const clock = new ManualClock();
  const store = new MemoryTaskStore(() => clock.now());
  const settings = { store, clock, ttlMs: 10_000, maxTtlMs: 60_000, pollIntervalMs: 500 };
  const tasks = new TaskEngine({ ...settings, ...caps }, { warn() {}, error() {} });
  await tasks.start(
    runAsTask((task) => never(task.signal)),
    "alice",
    {},
  );
  return tasks.start(
    runAsTask((task) => never(task.signal)),
    principal,
    {},
  );
}
