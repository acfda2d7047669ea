/**
 * The plugin hooks on the way to the client: `notification` (every notification the server sends, both eras,
 * in process and over HTTP on 127.0.0.1), `clientRequest` (server-to-client requests: real ones in 2025-11-25,
 * the entries of an `input_required` result in 2026-07-28) and a plugin's own per-call context data.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { callToolToCompletion } from "../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import type { JsonRpcMessage, JsonRpcNotification } from "../../src/jsonrpc/message.js";
import { TASKS_EXTENSION } from "../../src/protocol/types/tasks.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import type { PluginClientRequest, ServerPlugin } from "../../src/server/core/plugin.js";
import type { Server } from "../../src/server/server.js";
import { inputRequired } from "../../src/server/state/input.js";
import { runAsTask } from "../../src/server/tasks/run.js";
import { createInProcessPair } from "../../src/transports/in-process.js";
import { useServe } from "../support/http-peer.js";
import { askFor } from "../support/input-server.js";
import { until } from "../support/until.js";

const ERAS: readonly Era[] = [MODERN_VERSION, LEGACY_VERSION];
const TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const OBJECT = { type: "object" } as const;
const serveHandler = useServe();
let closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

type Params = { readonly [key: string]: unknown } | undefined;
const withTrace = (params: Params) => ({
  ...params,
  _meta: { ...(params?._meta as object | undefined), traceparent: TRACEPARENT },
});

/** A tracing-shaped plugin: records what goes out, stamps trace context on it, and gives each call a span id. */
function tracer() {
  const notes: string[] = [];
  const requests: string[] = [];
  const plugin: ServerPlugin = {
    name: "acme/trace",
    context: (call) => ({ span: `span-${String(call.request.id)}` }),
    notification(notification, out) {
      notes.push(
        `${out.era} ${notification.method} ${out.call?.method ?? "-"} ${out.session ? "session" : "-"}`,
      );
      return { ...notification, params: withTrace(notification.params) };
    },
    async clientRequest(request, out, send) {
      requests.push(`${out.era} ${request.method} for ${out.call?.method ?? "-"}`);
      const answer = await send({ ...request, params: withTrace(request.params) });
      requests.push(`${out.era} ${request.method} answered ${answer === undefined ? "later" : "now"}`);
      return answer;
    },
  };
  return { plugin, notes, requests };
}

function tracedServer(plugin: ServerPlugin, options: { subscriptionQueueEvents?: number } = {}): Server {
  return new ServerBuilder({
    serverInfo: { name: "traced", version: "1.0.0" },
    listChanged: { tools: true },
    plugins: [plugin],
    ...options,
  })
    .tool({ name: "work", inputSchema: OBJECT }, async (_args, ctx) => {
      await ctx.progress(1, 2);
      await ctx.log("info", "half way");
      await ctx.notify("acme/partial", { rows: 1 });
      const data = ctx.pluginData["acme/trace"] as { span: string } | undefined;
      return { content: [{ type: "text", text: data?.span ?? "no span" }] };
    })
    .tool({ name: "greet", inputSchema: OBJECT }, (_args, ctx) => {
      const answer = ctx.inputResponses?.name;
      if (answer === undefined) return inputRequired({ name: askFor("name") });
      return {
        content: [
          {
            type: "text",
            text: `Hello, ${String((answer.content as { name?: unknown } | undefined)?.name)}!`,
          },
        ],
      };
    })
    .tool({ name: "confirm", inputSchema: OBJECT }, async (_args, ctx) => {
      const { ok } = await ctx.sendRequest("acme/confirm", { action: "deploy" });
      return { content: [{ type: "text", text: `confirmed ${String(ok)}` }] };
    })
    .build();
}

/** What the client side saw: every message the server wrote, and the params of the callbacks it answered. */
function clientSide() {
  const wire: JsonRpcMessage[] = [];
  const partials: { [key: string]: unknown }[] = [];
  const elicited: { [key: string]: unknown }[] = [];
  const confirmed: { [key: string]: unknown }[] = [];
  const options = {
    clientInfo: { name: "c", version: "1" },
    capabilities: { elicitation: {} },
    logLevel: "info" as const,
    onProgress: () => {},
    onLog: () => {},
    notificationHandlers: {
      "acme/partial": (_params: unknown, context: { meta: { readonly [key: string]: unknown } }) =>
        void partials.push({ _meta: context.meta }),
    },
    requestHandlers: {
      "acme/confirm": async (_params: unknown, context: { meta: { readonly [key: string]: unknown } }) => {
        confirmed.push({ _meta: context.meta });
        return { ok: true };
      },
    },
    onElicitation: (params: object) => {
      elicited.push(params as { [key: string]: unknown });
      return { action: "accept" as const, content: { name: "Ada" } };
    },
  };
  return { wire, partials, elicited, confirmed, options };
}

async function inProcess(server: Server, era: Era) {
  const side = clientSide();
  const [clientEnd, serverEnd] = createInProcessPair();
  const send = serverEnd.send.bind(serverEnd);
  serverEnd.send = (message) => {
    side.wire.push(message);
    return send(message);
  };
  await server.connect(serverEnd);
  const client = new Client({ ...side.options, protocolVersion: era, transport: clientEnd });
  await client.connect();
  closers.push(
    () => server.close(),
    () => client.close(),
  );
  return { client, ...side };
}

const sentNotifications = (wire: JsonRpcMessage[]) =>
  wire.filter((m): m is JsonRpcNotification => "method" in m && !("id" in m));

describe("the notification hook, in process", () => {
  for (const era of ERAS) {
    it(`${era}: sees a request's progress, log and custom notifications with their call, and amends their _meta`, async () => {
      const { plugin, notes } = tracer();
      const { client, wire, partials } = await inProcess(tracedServer(plugin), era);
      notes.length = 0;
      const result = await client.callTool("work", {});
      const session = era === LEGACY_VERSION ? "session" : "-";
      expect(notes).toEqual([
        `${era} notifications/progress tools/call ${session}`,
        `${era} notifications/message tools/call ${session}`,
        `${era} acme/partial tools/call ${session}`,
      ]);
      // The context hook's data reached the handler: the same span a tracing plugin would end later.
      expect(result.content).toEqual([{ type: "text", text: expect.stringMatching(/^span-/) }]);
      const sent = sentNotifications(wire).filter(
        (n) => n.method !== "notifications/subscriptions/acknowledged",
      );
      expect(sent.map((n) => n.method)).toEqual([
        "notifications/progress",
        "notifications/message",
        "acme/partial",
      ]);
      for (const notification of sent)
        expect(notification.params?._meta).toMatchObject({ traceparent: TRACEPARENT });
      await until(() => partials.length === 1);
      expect(partials[0]?._meta).toMatchObject({ traceparent: TRACEPARENT });
    });
  }

  it("2025-11-25: sees list_changed sent to a session, with the session and no call", async () => {
    const { plugin, notes } = tracer();
    const server = tracedServer(plugin);
    const { wire } = await inProcess(server, LEGACY_VERSION);
    notes.length = 0;
    await server.notifyListChanged("tools");
    expect(notes).toEqual(["2025-11-25 notifications/tools/list_changed - session"]);
    const listChanged = sentNotifications(wire).find((n) => n.method === "notifications/tools/list_changed");
    expect(listChanged?.params?._meta).toEqual({ traceparent: TRACEPARENT });
  });

  it("2025-11-25: sees the cancellation of a server-to-client request whose call was cancelled", async () => {
    const { plugin, notes, requests } = tracer();
    const server = tracedServer(plugin);
    const [clientEnd, serverEnd] = createInProcessPair();
    await server.connect(serverEnd);
    const stop = new AbortController();
    const client = new Client({
      clientInfo: { name: "c", version: "1" },
      capabilities: { elicitation: {} },
      protocolVersion: LEGACY_VERSION,
      transport: clientEnd,
      // The user never answers: the caller gives up instead, once the question is asked.
      onElicitation: () => {
        stop.abort();
        return new Promise(() => {});
      },
    });
    await client.connect();
    closers.push(
      () => server.close(),
      () => client.close(),
    );
    await expect(client.callTool("greet", {}, { signal: stop.signal })).rejects.toThrow();
    await until(() => notes.some((note) => note.startsWith("2025-11-25 notifications/cancelled")));
    expect(notes).toContain("2025-11-25 notifications/cancelled tools/call session");
    await until(() => requests.length === 1);
    expect(requests).toEqual(["2025-11-25 elicitation/create for tools/call"]);
  });

  it("2026-07-28: sees a subscription's events with its subscriptions/listen call", async () => {
    const { plugin, notes } = tracer();
    const server = tracedServer(plugin);
    const { client } = await inProcess(server, MODERN_VERSION);
    const subscription = await client.listenSubscriptions({ toolsListChanged: true });
    expect(await subscription.next(5_000)).toMatchObject({ type: "acknowledged" });
    await server.notifyListChanged("tools");
    expect(await subscription.next(5_000)).toMatchObject({ type: "notification" });
    expect(notes).toEqual([
      "2026-07-28 notifications/subscriptions/acknowledged subscriptions/listen -",
      "2026-07-28 notifications/tools/list_changed subscriptions/listen -",
    ]);
    await subscription.close();
  });
});

describe("the notification hook, at a subscription's overflow", () => {
  it("2026-07-28: sees the cancellation that ends an overflowed subscription, with its listen call", async () => {
    const { plugin, notes } = tracer();
    const server = tracedServer(plugin, { subscriptionQueueEvents: 4 });
    const { client, wire } = await inProcess(server, MODERN_VERSION);
    const subscription = await client.listenSubscriptions({ toolsListChanged: true });
    expect(await subscription.next(5_000)).toMatchObject({ type: "acknowledged" });
    // Publishing never waits: ten changes at once fill the four-event queue.
    for (let i = 0; i < 10; i++) void server.notifyListChanged("tools");
    await until(() => notes.includes("2026-07-28 notifications/cancelled subscriptions/listen -"));
    const cancelled = sentNotifications(wire).find((n) => n.method === "notifications/cancelled");
    expect(cancelled?.params?._meta).toEqual({ traceparent: TRACEPARENT });
  });
});

describe("the clientRequest hook", () => {
  for (const era of ERAS) {
    it(`${era}: wraps each input request, whose _meta reaches the client with the trace context`, async () => {
      const { plugin, requests } = tracer();
      const { client, elicited } = await inProcess(tracedServer(plugin), era);
      const result = await client.callTool("greet", {});
      expect(result.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
      expect(elicited).toHaveLength(1);
      expect(elicited[0]?._meta).toMatchObject({ traceparent: TRACEPARENT });
      // 2025-11-25: the hook wraps the exchange (the answer comes back through it); 2026-07-28: the request is
      // placed in the input_required result, and its answer comes with the retry.
      expect(requests).toEqual([
        `${era} elicitation/create for tools/call`,
        `${era} elicitation/create answered ${era === LEGACY_VERSION ? "now" : "later"}`,
      ]);
    });
  }

  it("2026-07-28: wraps the input requests of a task, which reach the client in the task's status", async () => {
    const { plugin, requests } = tracer();
    const server = new ServerBuilder({
      serverInfo: { name: "tasks", version: "1.0.0" },
      tasks: { pollIntervalMs: 10 },
      plugins: [plugin],
    })
      .tool({ name: "deploy", inputSchema: OBJECT, execution: { taskSupport: "optional" } }, () =>
        runAsTask(async (task) => {
          const { name } = await task.input({ name: askFor("name") });
          return { content: [{ type: "text", text: `deployed by ${name?.action}` }] };
        }),
      )
      .build();
    const side = clientSide();
    const [clientEnd, serverEnd] = createInProcessPair();
    await server.connect(serverEnd);
    const client = new Client({
      ...side.options,
      capabilities: { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } },
      protocolVersion: MODERN_VERSION,
      transport: clientEnd,
    });
    await client.connect();
    closers.push(
      () => server.close(),
      () => client.close(),
    );
    const result = await callToolToCompletion(client, "deploy", {}, { minPollMs: 10 });
    expect(result.content).toEqual([{ type: "text", text: "deployed by accept" }]);
    expect(side.elicited[0]?._meta).toMatchObject({ traceparent: TRACEPARENT });
    expect(requests).toEqual([
      "2026-07-28 elicitation/create for tools/call",
      "2026-07-28 elicitation/create answered later",
    ]);
  });

  it("2025-11-25: wraps a handler's sendRequest too", async () => {
    const { plugin, requests } = tracer();
    const { client, confirmed } = await inProcess(tracedServer(plugin), LEGACY_VERSION);
    const result = await client.callTool("confirm", {});
    expect(result.content).toEqual([{ type: "text", text: "confirmed true" }]);
    expect(confirmed[0]?._meta).toMatchObject({ traceparent: TRACEPARENT });
    expect(requests).toEqual([
      "2025-11-25 acme/confirm for tools/call",
      "2025-11-25 acme/confirm answered now",
    ]);
  });

  it("nests the hooks of several plugins in order, each sending what the one before it passed on", async () => {
    const order: string[] = [];
    const stamp =
      (name: string): NonNullable<ServerPlugin["clientRequest"]> =>
      async (request: PluginClientRequest, _out, send) => {
        order.push(`${name} in`);
        const answer = await send({
          ...request,
          params: { ...request.params, _meta: { ...(request.params?._meta as object), [name]: true } },
        });
        order.push(`${name} out`);
        return answer;
      };
    const { client, elicited } = await inProcess(
      new ServerBuilder({
        serverInfo: { name: "s", version: "1" },
        plugins: [
          { name: "a", clientRequest: stamp("a") },
          { name: "b", clientRequest: stamp("b") },
        ],
      })
        .tool({ name: "greet", inputSchema: OBJECT }, (_args, ctx) =>
          ctx.inputResponses?.name === undefined
            ? inputRequired({ name: askFor("name") })
            : { content: [{ type: "text", text: "done" }] },
        )
        .build(),
      LEGACY_VERSION,
    );
    await client.callTool("greet", {});
    expect(elicited[0]?._meta).toEqual({ a: true, b: true });
    expect(order).toEqual(["a in", "b in", "b out", "a out"]);
  });
});

describe("the notification and clientRequest hooks over HTTP (127.0.0.1)", () => {
  for (const era of ERAS) {
    it(`${era}: see a call's notifications and input requests, and the client gets the amended _meta`, async () => {
      const { plugin, notes, requests } = tracer();
      const server = tracedServer(plugin);
      const handler = createHttpHandler(server);
      const running = await serveHandler(handler, { port: 0, path: "/mcp" });
      const { partials, elicited, options } = clientSide();
      const client = new Client({
        ...options,
        protocolVersion: era,
        transport: new StreamableHttpClientTransport({ url: running.url }),
      });
      closers.push(
        () => server.close(),
        () => handler.close(),
        () => client.close(),
      );
      await client.connect();
      notes.length = 0;
      const result = await client.callTool("work", {});
      expect(result.content).toEqual([{ type: "text", text: expect.stringMatching(/^span-/) }]);
      const session = era === LEGACY_VERSION ? "session" : "-";
      expect(notes).toEqual([
        `${era} notifications/progress tools/call ${session}`,
        `${era} notifications/message tools/call ${session}`,
        `${era} acme/partial tools/call ${session}`,
      ]);
      await until(() => partials.length === 1);
      expect(partials[0]?._meta).toMatchObject({ traceparent: TRACEPARENT });
      expect((await client.callTool("greet", {})).content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
      expect(elicited[0]?._meta).toMatchObject({ traceparent: TRACEPARENT });
      expect(requests[0]).toBe(`${era} elicitation/create for tools/call`);
    });
  }
});
