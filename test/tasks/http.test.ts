/**
 * Tasks over Streamable HTTP, mcpkit to mcpkit, both eras: 2026-07-28 routes `Mcp-Name: <taskId>` on the task
 * methods (checked by the server), 2025-11-25 carries the task's input requests on the `tasks/result` POST.
 */
import { describe, expect, it } from "vitest";
import { Client, callToolToCompletion } from "../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { TASKS_EXTENSION } from "../../src/protocol/types/tasks.js";
import { useServe } from "../support/http-peer.js";
import { LEGACY, MODERN, textOf, useCleanups } from "../support/interop-helpers.js";
import { taskServer } from "../support/task-server.js";

const serveHandler = useServe();
const cleanup = useCleanups();

describe.each([MODERN, LEGACY] as const)("tasks over HTTP (%s)", (era) => {
  it("runs a task to its result with input answered by the client's callback", async () => {
    const server = taskServer();
    const handler = createHttpHandler(server);
    const running = await serveHandler(handler, { port: 0, path: "/mcp" });
    const sent: { method: unknown; name: string | null }[] = [];
    const client = new Client({
      transport: new StreamableHttpClientTransport({
        url: running.url,
        fetch: async (input, init) => {
          const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
          const headers = new Headers(init?.headers);
          if (body?.method) sent.push({ method: body.method, name: headers.get("mcp-name") });
          return fetch(input, init);
        },
      }),
      clientInfo: { name: "tasks-http", version: "1.0.0" },
      protocolVersion: era,
      capabilities: { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } },
      onElicitation: () => ({ action: "accept", content: { ok: true } }),
    });
    cleanup(
      () => client.close(),
      () => handler.close(),
      () => server.close(),
    );
    await client.connect();
    const result = await callToolToCompletion(client, "research", {}, { minPollMs: 10 });
    expect(textOf(result)).toBe("report (approved)");
    const gets = sent.filter((s) => s.method === "tasks/get");
    expect(gets.length).toBeGreaterThan(0);
    if (era === MODERN) for (const get of gets) expect(get.name).not.toBeNull();
    else expect(sent.some((s) => s.method === "tasks/result")).toBe(true);
  });
});
