/**
 * The mcpkit client on its Streamable HTTP transport against mcpkit's own HTTP server, end to end: one
 * handler that needs elicitation and sampling answered in both eras (2026: input rounds on POSTs; 2025: server
 * requests on the POST's SSE stream, answered by POSTs), and subscriptions (2026 `subscriptions/listen` on a
 * long-lived SSE stream, cancelled by closing it; 2025 `resources/subscribe` with updates on the GET stream).
 * Every message is checked against the official schema of its era.
 */
import { describe, expect, it } from "vitest";
import type { ServerNotification } from "../../src/client/types.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { serve } from "../../src/node/serve.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import type { Server } from "../../src/server/server.js";
import { inputRequired } from "../../src/server/state/input.js";
import { textOf } from "../support/interop-helpers.js";
import { until } from "../support/until.js";
import { useWireValidation } from "../support/validating-transport.js";
import { httpClient, LEGACY, MODERN, useHttpCleanups } from "./helpers.js";

useWireValidation();
const cleanup = useHttpCleanups();

function buildServer(): Server {
  return new ServerBuilder({
    serverInfo: { name: "e2e", version: "1.0.0" },
    listChanged: { tools: true },
    subscribe: true,
  })
    .tool({ name: "book", inputSchema: { type: "object" } }, (_args, context) => {
      const answers = context.inputResponses;
      if (!answers) {
        return inputRequired({
          confirm: {
            method: "elicitation/create",
            params: {
              mode: "form",
              message: "Book it?",
              requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
            },
          },
          haiku: {
            method: "sampling/createMessage",
            params: {
              messages: [{ role: "user", content: { type: "text", text: "a haiku" } }],
              maxTokens: 20,
            },
          },
        });
      }
      const confirm = answers.confirm as { action?: string; content?: { ok?: boolean } } | undefined;
      const haiku = answers.haiku as { content?: { text?: string } } | undefined;
      return {
        content: [
          { type: "text", text: `${confirm?.action}/${confirm?.content?.ok}/${haiku?.content?.text}` },
        ],
      };
    })
    .resource({ uri: "test://watched", name: "watched" }, (uri) => ({ contents: [{ uri, text: "v1" }] }))
    .build();
}

async function start() {
  const server = buildServer();
  const handler = createHttpHandler(server);
  const running = await serve(handler, { host: "127.0.0.1" });
  cleanup(
    () => running.close(),
    () => handler.close(),
  );
  return { server, url: running.url };
}

describe.each([MODERN, LEGACY] as const)("over HTTP, mcpkit client and server, %s", (era) => {
  it("completes an elicitation and a sampling round trip in one handler", async () => {
    const { url } = await start();
    const asked: string[] = [];
    const { client } = httpClient(url, {
      era,
      pin: era,
      cleanup,
      client: {
        capabilities: { elicitation: { form: {} }, sampling: {} },
        onElicitation: (params) => {
          asked.push(`elicit:${params.message}`);
          return { action: "accept", content: { ok: true } };
        },
        onSampling: () => {
          asked.push("sample");
          return { role: "assistant", content: { type: "text", text: "old pond" }, model: "test-model" };
        },
      },
    });
    await client.connect();
    expect(textOf(await client.callTool("book", {}))).toBe("accept/true/old pond");
    expect(asked.sort()).toEqual(["elicit:Book it?", "sample"]);
  });
});

describe("subscriptions over HTTP", () => {
  it("2026-07-28: listen acknowledges, delivers list changes, and closing the stream ends it on the server", async () => {
    const { server, url } = await start();
    const { client } = httpClient(url, { era: MODERN, pin: MODERN, cleanup });
    await client.connect();
    const sub = await client.listenSubscriptions({
      toolsListChanged: true,
      resourceSubscriptions: ["test://watched"],
    });
    expect(await sub.next(2_000)).toMatchObject({ type: "acknowledged" });
    await until(() => server.subscriptionCount === 1);
    await server.notifyListChanged("tools");
    await server.notifyResourceUpdated("test://watched");
    expect(await sub.next(2_000)).toMatchObject({
      notification: { method: "notifications/tools/list_changed" },
    });
    expect(await sub.next(2_000)).toMatchObject({
      notification: { method: "notifications/resources/updated", params: { uri: "test://watched" } },
    });
    const closed = await sub.close();
    expect(closed.end.reason).toBe("closed");
    await until(() => server.subscriptionCount === 0);
  });

  it("2025-11-25: resources/subscribe delivers notifications/resources/updated on the session's GET stream", async () => {
    const { server, url } = await start();
    const seen: ServerNotification[] = [];
    const { client } = httpClient(url, {
      era: LEGACY,
      pin: LEGACY,
      cleanup,
      client: { onNotification: (n) => seen.push(n) },
    });
    await client.connect();
    await client.subscribeResource("test://watched");
    // The GET listener opens after initialize; keep publishing until the update arrives on it (bounded).
    for (let i = 0; i < 200 && !seen.some((n) => n.method === "notifications/resources/updated"); i++) {
      await server.notifyResourceUpdated("test://watched");
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(seen.find((n) => n.method === "notifications/resources/updated")?.params).toEqual({
      uri: "test://watched",
    });
    await client.unsubscribeResource("test://watched");
    const before = seen.length;
    await server.notifyResourceUpdated("test://watched");
    await server.notifyListChanged("tools");
    await until(() => seen.length > before);
    expect(seen.slice(before).map((n) => n.method)).toEqual(["notifications/tools/list_changed"]);
  });
});
