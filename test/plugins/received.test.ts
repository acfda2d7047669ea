import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { serve } from "../../src/node/serve.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import type { PluginIncoming, ServerPlugin } from "../../src/server/core/plugin.js";
import type { Server } from "../../src/server/server.js";
import { createInProcessPair } from "../../src/transports/in-process.js";
import { until } from "../support/until.js";

const ERAS: readonly Era[] = [MODERN_VERSION, LEGACY_VERSION];
let closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

interface Seen {
  method: string;
  era: Era;
  session: boolean;
}

function watchingServer(seen: Seen[]): Server {
  const watch: ServerPlugin = {
    name: "watch",
    received: (notification, from: PluginIncoming) =>
      void seen.push({ method: notification.method, era: from.era, session: from.session !== undefined }),
  };
  return new ServerBuilder({ serverInfo: { name: "w", version: "1.0.0" }, plugins: [watch] })
    .tool({ name: "echo", inputSchema: { type: "object" } }, () => ({ content: [] }))
    .build();
}

async function inProcess(server: Server, era: Era): Promise<Client> {
  const [clientSide, serverSide] = createInProcessPair();
  await server.connect(serverSide);
  return new Client({ clientInfo: { name: "c", version: "1" }, protocolVersion: era, transport: clientSide });
}

async function http(server: Server, era: Era): Promise<Client> {
  const handle = await serve(server, { host: "127.0.0.1", port: 0 });
  closers.push(() => handle.close());
  const transport = new StreamableHttpClientTransport({ url: handle.url });
  return new Client({ clientInfo: { name: "c", version: "1" }, protocolVersion: era, transport });
}

describe("the received hook: notifications from the client", () => {
  for (const [name, connect] of [
    ["in process", inProcess],
    ["Streamable HTTP on 127.0.0.1", http],
  ] as const) {
    for (const era of ERAS) {
      it(`sees the client's notifications, with their era and session (${name}, ${era})`, async () => {
        const seen: Seen[] = [];
        const server = watchingServer(seen);
        const client = await connect(server, era);
        closers.push(() => server.close());
        await client.connect();
        closers.unshift(() => client.close());
        await client.notify("acme/seen", { id: "42" });
        await until(() => seen.some((s) => s.method === "acme/seen"));
        const legacy = era === LEGACY_VERSION;
        expect(seen).toEqual([
          ...(legacy ? [{ method: "notifications/initialized", era, session: true }] : []),
          { method: "acme/seen", era, session: legacy },
        ]);
      });
    }
  }

  it("tells a subscribed hook of each 2026 listen that opens, and how it ended", async () => {
    const events: string[] = [];
    const watch: ServerPlugin = {
      name: "watch",
      subscribed: (call, ended) => {
        events.push(`opened ${call.method}`);
        void ended.then((reason) => events.push(`ended ${reason}`));
      },
    };
    const server = new ServerBuilder({
      serverInfo: { name: "w", version: "1.0.0" },
      listChanged: { tools: true },
      plugins: [watch],
    })
      .tool({ name: "echo", inputSchema: { type: "object" } }, () => ({ content: [] }))
      .build();
    closers.push(() => server.close());
    const client = await inProcess(server, MODERN_VERSION);
    await client.connect();
    closers.unshift(() => client.close());
    const subscription = await client.listenSubscriptions({ toolsListChanged: true });
    expect((await subscription.next(5_000)).type).toBe("acknowledged");
    expect(events).toEqual(["opened subscriptions/listen"]);
    await subscription.close();
    await until(() => events.length === 2);
    expect(events[1]).toMatch(/^ended (cancelled|complete)$/);
    expect(server.config.hooks.needsCall()).toBe(true);
  });

  it("costs a server without such a hook one check: it is undefined", () => {
    const server = new ServerBuilder({ serverInfo: { name: "w", version: "1.0.0" } }).build();
    expect(server.config.hooks.received).toBeUndefined();
    expect(server.config.hooks.subscribed).toBeUndefined();
  });
});
