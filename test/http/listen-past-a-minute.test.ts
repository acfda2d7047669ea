/**
 * The one real-time check of long-lived streams (the others run on manual clocks): a 2026-07-28 listen opened
 * by mcpkit's HTTP client with the default policy (requestTimeoutMs 60 s) against mcpkit's server (default
 * keepalives, real HTTP on 127.0.0.1) is still open after 65 s of real time, and delivers what the server
 * publishes then. It waits for time to pass, never races it: what it asserts is the delivery after 60 s.
 */
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { serve } from "../../src/node/serve.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { useCleanups } from "../support/interop-helpers.js";
import { until } from "../support/until.js";

const cleanup = useCleanups();
const HELD_MS = 65_000;

describe("a listen over real HTTP", () => {
  it(
    "outlives the 60 s request timeout in real time and then delivers",
    async () => {
      const server = new ServerBuilder({
        serverInfo: { name: "past-a-minute", version: "1.0.0" },
        listChanged: { tools: true },
      })
        .tool({ name: "noop", inputSchema: { type: "object" } }, () => ({ content: [] }))
        .build();
      const handler = createHttpHandler(server);
      const running = await serve(handler, { host: "127.0.0.1" });
      cleanup(
        () => running.close(),
        () => handler.close(),
      );
      const warnings: string[] = [];
      const client = new Client({
        transport: new StreamableHttpClientTransport({ url: running.url }),
        clientInfo: { name: "past-a-minute", version: "1.0.0" },
        protocolVersion: "2026-07-28",
        logger: { warn: (message) => warnings.push(message) },
      });
      cleanup(() => client.close());
      await client.connect();
      // No re-listen: a stream cut at 60 s would end the subscription, not hide behind a new listen.
      const sub = await client.listenSubscriptions({ toolsListChanged: true }, { relisten: false });
      expect(await sub.next(10_000)).toMatchObject({ type: "acknowledged" });
      await until(() => server.subscriptionCount === 1);
      const opened = Date.now();
      await new Promise((resolve) => setTimeout(resolve, HELD_MS));
      expect(Date.now() - opened).toBeGreaterThanOrEqual(60_000);
      expect(sub.end).toBeUndefined();
      await server.notifyListChanged("tools");
      expect(await sub.next(10_000)).toMatchObject({
        type: "notification",
        notification: { method: "notifications/tools/list_changed" },
      });
      expect(warnings).toEqual([]);
      await sub.close();
    },
    HELD_MS + 60_000,
  );
});
