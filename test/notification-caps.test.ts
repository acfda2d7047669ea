/**
 * Per-request notification caps (`maxNotificationsPerRequest`, `maxNotificationBytes`) on every transport: in-process
 * and stdio in both eras, Streamable HTTP (on 127.0.0.1) in both eras. A handler sends past a cap; the client gets
 * exactly what fits, then the response; the server warns once per request.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcResponse } from "../src/jsonrpc/message.js";
import { type BuilderOptions, ServerBuilder } from "../src/server/authoring/builder.js";
import type { Server } from "../src/server/server.js";
import { inputRequired } from "../src/server/state/input.js";
import { StdioServerTransport } from "../src/stdio/server-transport.js";
import { HttpPeer, useServe } from "./support/http-peer.js";
import { LEGACY, MODERN, textOf } from "./support/interop-helpers.js";
import { connectRaw, modernMeta } from "./support/raw-peer.js";
import { until } from "./support/until.js";
import { useWireValidation, WireValidator } from "./support/validating-transport.js";

useWireValidation();
const serve = useServe();

type Era = typeof LEGACY | typeof MODERN;
type Caps = Pick<BuilderOptions, "maxNotificationsPerRequest" | "maxNotificationBytes">;

/** `chatty` sends `count` notifications (progress, or progress and log messages in turn), then answers. */
interface ChattyArgs {
  count: number;
  pad: string;
  mixed: boolean;
}

function chattyServer(caps: Caps, warnings: string[]): Server {
  return new ServerBuilder({
    serverInfo: { name: "chatty", version: "1.0.0" },
    logger: { warn: (message) => warnings.push(message), error: (message) => warnings.push(message) },
    ...caps,
  })
    .tool({ name: "chatty", inputSchema: { type: "object" } }, async (args, context) => {
      const { count, pad, mixed } = args as unknown as ChattyArgs;
      for (let i = 1; i <= count; i++) {
        if (mixed && i % 2 === 0) await context.log("info", { i, pad });
        else await context.progress(100 + i, 100 + count, pad);
      }
      return { content: [{ type: "text", text: `sent ${count}` }] };
    })
    .build();
}

/** The encoded size of the progress notification `chatty` sends (its numbers have 3 digits up to 899). */
function progressBytes(count: number, pad: string): number {
  const params = { progressToken: "p", progress: 101, total: 100 + count, message: pad };
  return Buffer.byteLength(JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params }));
}

interface Outcome {
  notifications: JsonRpcNotification[];
  response: JsonRpcResponse;
}

/** Calls `chatty` once on a fresh connection of one transport, in one era. */
type Driver = (server: Server, era: Era, args: ChattyArgs) => Promise<Outcome>;

const legacyMeta = { progressToken: "p" };
const modernExtra = { progressToken: "p", "io.modelcontextprotocol/logLevel": "debug" };

const inProcess: Driver = async (server, era, args) => {
  const { peer } = await connectRaw(server);
  if (era === LEGACY) await peer.initialize();
  const response =
    era === LEGACY
      ? await peer.request("tools/call", { name: "chatty", arguments: args, _meta: legacyMeta })
      : await peer.modern("tools/call", { name: "chatty", arguments: args }, modernExtra);
  return { notifications: peer.notifications, response };
};

const stdio: Driver = async (server, era, args) => {
  const input = new PassThrough();
  const output = new PassThrough();
  const validator = new WireValidator(era);
  const received: JsonRpcMessage[] = [];
  let rest = "";
  output.on("data", (chunk: Buffer) => {
    const lines = (rest + chunk.toString("utf8")).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) {
      const message = JSON.parse(line) as JsonRpcMessage;
      validator.check(message, "server");
      received.push(message);
    }
  });
  const connection = await server.connect(new StdioServerTransport({ input, output }));
  const write = (message: unknown) => {
    validator.check(message, "client");
    input.write(`${JSON.stringify(message)}\n`);
  };
  if (era === LEGACY) {
    write({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    await until(() => received.some((m) => "id" in m && m.id === 1));
    write({ jsonrpc: "2.0", method: "notifications/initialized" });
  }
  const _meta = era === LEGACY ? legacyMeta : modernMeta(modernExtra);
  write({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "chatty", arguments: args, _meta } });
  await until(() => received.some((m) => "id" in m && m.id === 2 && !("method" in m)));
  await connection.close();
  return {
    notifications: received.filter((m): m is JsonRpcNotification => "method" in m && !("id" in m)),
    response: received.find((m) => "id" in m && m.id === 2) as JsonRpcResponse,
  };
};

const http: Driver = async (server, era, args) => {
  const { url } = await serve(server);
  const peer = new HttpPeer(url, era);
  if (era === LEGACY) await peer.open();
  const request =
    era === LEGACY
      ? peer.request("tools/call", { name: "chatty", arguments: args, _meta: legacyMeta })
      : peer.request("tools/call", { name: "chatty", arguments: args }, modernExtra);
  const reply = await peer.send(request);
  expect(reply.status).toBe(200);
  return {
    notifications: reply.messages.filter((m): m is JsonRpcNotification => "method" in m && !("id" in m)),
    response: reply.messages.at(-1) as JsonRpcResponse,
  };
};

const transports: [string, Driver][] = [
  ["in-process", inProcess],
  ["stdio", stdio],
  ["Streamable HTTP", http],
];

describe.each(transports)("notification caps over %s", (_name, drive) => {
  describe.each([LEGACY, MODERN] as const)("%s", (era) => {
    it("sends maxNotificationsPerRequest notifications (progress and log alike), drops the rest, still answers", async () => {
      const warnings: string[] = [];
      const server = chattyServer({ maxNotificationsPerRequest: 5 }, warnings);
      const { notifications, response } = await drive(server, era, { count: 20, pad: "", mixed: true });
      expect(notifications.map((n) => n.method)).toEqual([
        "notifications/progress",
        "notifications/message",
        "notifications/progress",
        "notifications/message",
        "notifications/progress",
      ]);
      expect(textOf("result" in response ? response.result : undefined)).toBe("sent 20");
      expect(warnings).toEqual(["dropped the notifications of a request past maxNotificationsPerRequest"]);
    });

    it("sends notifications up to maxNotificationBytes encoded bytes, drops the one past it and all after", async () => {
      const warnings: string[] = [];
      const pad = "é".repeat(40);
      const size = progressBytes(10, pad);
      const server = chattyServer({ maxNotificationBytes: 3 * size + size - 1 }, warnings);
      const { notifications, response } = await drive(server, era, { count: 10, pad, mixed: false });
      expect(notifications.map((n) => n.params?.progress)).toEqual([101, 102, 103]);
      const sent = notifications.reduce((sum, n) => sum + Buffer.byteLength(JSON.stringify(n)), 0);
      expect(sent).toBe(3 * size);
      expect(textOf("result" in response ? response.result : undefined)).toBe("sent 10");
      expect(warnings).toEqual(["dropped the notifications of a request past maxNotificationBytes"]);
    });
  });
});

describe("notification caps: defaults and scope", () => {
  it("caps at 256 notifications and 1,000,000 bytes by default, per request, and warns once per request", async () => {
    const warnings: string[] = [];
    const server = chattyServer({}, warnings);
    const { peer } = await connectRaw(server);
    const many = await peer.modern(
      "tools/call",
      { name: "chatty", arguments: { count: 300, pad: "" } },
      modernExtra,
    );
    expect(textOf("result" in many ? many.result : undefined)).toBe("sent 300");
    expect(peer.notifications).toHaveLength(256);
    // A new request has a budget of its own: 3 notifications of about 300 kB fit, the 4th would pass 1,000,000.
    peer.notifications.length = 0;
    const pad = "x".repeat(300_000);
    const big = await peer.modern(
      "tools/call",
      { name: "chatty", arguments: { count: 5, pad } },
      modernExtra,
    );
    expect(textOf("result" in big ? big.result : undefined)).toBe("sent 5");
    expect(peer.notifications).toHaveLength(3);
    expect(warnings).toEqual([
      "dropped the notifications of a request past maxNotificationsPerRequest",
      "dropped the notifications of a request past maxNotificationBytes",
    ]);
  });

  it("counts a 2025-11-25 request's notifications across its input rounds as one budget", async () => {
    const warnings: string[] = [];
    let rounds = 0;
    const server = new ServerBuilder({
      serverInfo: { name: "rounds", version: "1.0.0" },
      logger: { warn: (message) => warnings.push(message), error: () => {} },
      maxNotificationsPerRequest: 4,
    })
      .tool({ name: "ask", inputSchema: { type: "object" } }, async (_args, context) => {
        rounds++;
        for (let i = 1; i <= 3; i++) await context.progress(rounds * 10 + i);
        if (context.inputResponses === undefined) {
          return inputRequired({ roots: { method: "roots/list", params: {} } });
        }
        return { content: [{ type: "text", text: "done" }] };
      })
      .build();
    const { peer } = await connectRaw(server);
    peer.answer = () => ({ result: { roots: [] } });
    await peer.initialize({ roots: {} });
    const response = await peer.request("tools/call", { name: "ask", arguments: {}, _meta: legacyMeta });
    expect(textOf("result" in response ? response.result : undefined)).toBe("done");
    expect(rounds).toBe(2);
    expect(peer.notifications.map((n) => n.params?.progress)).toEqual([11, 12, 13, 21]);
    expect(warnings).toEqual(["dropped the notifications of a request past maxNotificationsPerRequest"]);
  });
});
