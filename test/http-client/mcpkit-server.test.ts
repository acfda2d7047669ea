/**
 * An mcpkit client on its Streamable HTTP transport against mcpkit's own HTTP server (src/http + src/node
 * serve()) on 127.0.0.1, in both eras: the ladder, every operation, progress and logs on the POST stream,
 * cancellation (by closing the stream in 2026, by notifications/cancelled in 2025), Mcp-Param headers checked by
 * the server (from the listed schema, from the caller's schema, and via the -32020 refresh-and-retry), and the
 * 2025 session's id, GET stream and DELETE. Every message is checked against the official schema of its era.
 */
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { McpkitError } from "../../src/jsonrpc/errors.js";
import { serve } from "../../src/node/serve.js";
import type { ToolResult } from "../../src/server/authoring/authoring.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { rejection, textOf } from "../support/interop-helpers.js";
import { until } from "../support/until.js";
import { useWireValidation } from "../support/validating-transport.js";
import { httpClient, LEGACY, MODERN, useHttpCleanups } from "./helpers.js";

useWireValidation();
const cleanup = useHttpCleanups();

const REGION_SCHEMA = {
  type: "object",
  properties: { region: { type: "string", "x-mcp-header": "Region" }, q: { type: "string" } },
  required: ["region"],
};

/** The fixture server plus a tool whose `region` argument is mirrored in `Mcp-Param-Region`. */
async function start(options: { toolSchemas?: boolean } = {}) {
  const aborted: string[] = [];
  const built = new ServerBuilder({ serverInfo: { name: "http-client-test", version: "1.0.0" } })
    .tool({ name: "regional", inputSchema: REGION_SCHEMA }, ({ region }) => ({
      content: [{ type: "text", text: `region ${String(region)}` }],
    }))
    .tool({ name: "hang", inputSchema: { type: "object" } }, (_args, context) => {
      return new Promise<ToolResult>((_resolve, reject) => {
        context.signal.addEventListener("abort", () => {
          aborted.push(context.era);
          reject(context.signal.reason);
        });
      });
    })
    .tool({ name: "chatty", inputSchema: { type: "object" } }, async (_args, context) => {
      await context.progress(1, 2, "half");
      await context.log("info", { step: "working" });
      await context.progress(2, 2);
      return { content: [{ type: "text", text: `era ${context.era}` }] };
    })
    .resource({ uri: "test://static-text", name: "static-text", mimeType: "text/plain" }, (uri) => ({
      contents: [{ uri, mimeType: "text/plain", text: "hello" }],
    }))
    .prompt({ name: "simple" }, () => ({
      messages: [{ role: "user", content: { type: "text", text: "hi" } }],
    }))
    .build();
  const handler = createHttpHandler(
    built,
    options.toolSchemas === false ? {} : { toolSchemas: { regional: REGION_SCHEMA } },
  );
  const running = await serve(handler, { host: "127.0.0.1" });
  cleanup(
    () => running.close(),
    () => handler.close(),
  );
  return { url: running.url, handler, aborted };
}

describe.each([MODERN, LEGACY] as const)("mcpkit client over HTTP against mcpkit's server, %s", (era) => {
  it("negotiates the era and runs every operation", async () => {
    const { url } = await start();
    const { client, transport } = httpClient(url, {
      era,
      ...(era === LEGACY ? { pin: LEGACY } : {}),
      cleanup,
    });
    const info = await client.connect();
    expect(info.era).toBe(era);
    expect(info.serverInfo?.name).toBe("http-client-test");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["regional", "hang", "chatty"]);
    expect(textOf(await client.callTool("regional", { region: "eu-west" }))).toBe("region eu-west");
    expect((await client.readResource("test://static-text")).contents[0]).toMatchObject({ text: "hello" });
    expect((await client.getPrompt("simple")).messages).toHaveLength(1);
    expect(transport.sessionId === undefined).toBe(era === MODERN);
    expect(transport.protocolVersion).toBe(era === LEGACY ? LEGACY : undefined);
  });

  it("streams progress and log notifications before the answer", async () => {
    const { url } = await start();
    const logs: unknown[] = [];
    const { client } = httpClient(url, {
      era,
      pin: era,
      cleanup,
      client: {
        onLog: (log) => logs.push(log.data),
        ...(era === MODERN ? { logLevel: "info" as const } : {}),
      },
    });
    await client.connect();
    if (era === LEGACY) await client.setLoggingLevel("info");
    const progress: number[] = [];
    const result = await client.callTool("chatty", {}, { onProgress: (p) => progress.push(p.progress) });
    expect(textOf(result)).toBe(`era ${era}`);
    expect(progress).toEqual([1, 2]);
    expect(logs).toEqual([{ step: "working" }]);
  });

  it("cancels a call: by closing the stream in 2026, by notifications/cancelled in 2025", async () => {
    const { url, aborted } = await start();
    const { client, messages } = httpClient(url, { era, pin: era, cleanup });
    await client.connect();
    const error = await rejection(client.callTool("hang", {}, { timeoutMs: 200 }));
    expect(error).toMatchObject({ code: "TIMEOUT" });
    await until(() => aborted.length === 1);
    expect(aborted).toEqual([era]);
    const cancelled = messages.filter(
      (m) => "method" in m.message && m.message.method === "notifications/cancelled",
    );
    expect(cancelled).toHaveLength(era === MODERN ? 0 : 1);
  });
});

describe("Mcp-Param headers against mcpkit's server (2026-07-28)", () => {
  it("come from the listed schema", async () => {
    const { url } = await start();
    const { client, sent } = httpClient(url, { era: MODERN, cleanup });
    await client.connect();
    await client.listTools();
    expect(textOf(await client.callTool("regional", { region: "  padded" }))).toBe("region   padded");
    const call = sent.find((s) => s.body && "method" in s.body && s.body.method === "tools/call");
    expect(call?.headers["mcp-param-region"]).toBe("=?base64?ICBwYWRkZWQ=?=");
    expect(call?.headers["mcp-name"]).toBe("regional");
    expect(call?.headers["mcp-method"]).toBe("tools/call");
  });

  it("come from a schema the caller passes, without listing", async () => {
    const { url } = await start();
    const { client, sent } = httpClient(url, { era: MODERN, cleanup });
    await client.connect();
    const result = await client.callTool("regional", { region: "us" }, { toolInputSchema: REGION_SCHEMA });
    expect(textOf(result)).toBe("region us");
    expect(sent.filter((s) => s.body && "method" in s.body && s.body.method === "tools/list")).toHaveLength(
      0,
    );
  });

  it("are learned by one tools/list refresh after the server's -32020, then the call is retried once", async () => {
    const { url } = await start();
    const { client, sent, transport } = httpClient(url, { era: MODERN, cleanup });
    await client.connect();
    expect(transport.knownTools).toBe(0);
    expect(textOf(await client.callTool("regional", { region: "ap" }))).toBe("region ap");
    const methods = sent.map((s) => (s.body && "method" in s.body ? s.body.method : s.method));
    expect(methods).toEqual(["server/discover", "tools/call", "tools/list", "tools/call"]);
    expect(sent.at(-1)?.headers["mcp-param-region"]).toBe("ap");
  });
});

describe("the 2025-11-25 session against mcpkit's server", () => {
  it("carries Mcp-Session-Id, opens the GET stream, and ends the session with DELETE on close", async () => {
    const { url, handler } = await start();
    const { client, transport, sent } = httpClient(url, { era: LEGACY, pin: LEGACY });
    await client.connect();
    const id = transport.sessionId;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(handler.sessionCount).toBe(1);
    await client.listTools();
    await until(() => sent.some((s) => s.method === "GET"));
    const later = sent.filter((s) => s.body && "method" in s.body && s.body.method !== "initialize");
    for (const request of later) {
      expect(request.headers["mcp-session-id"]).toBe(id);
      expect(request.headers["mcp-protocol-version"]).toBe(LEGACY);
    }
    await client.close();
    expect(sent.at(-1)).toMatchObject({ method: "DELETE", headers: { "mcp-session-id": id } });
    expect(handler.sessionCount).toBe(0);
  });

  it("re-initializes once after the session expired (404) and retries the request", async () => {
    const { url, handler } = await start();
    const { client, transport } = httpClient(url, { era: LEGACY, pin: LEGACY, cleanup });
    await client.connect();
    const first = transport.sessionId;
    await handler.close(); // every session ends: the next request gets 404
    expect(textOf(await client.callTool("regional", { region: "eu" }))).toBe("region eu");
    expect(transport.sessionId).not.toBe(first);
    expect(handler.sessionCount).toBe(1);
  });

  it("refuses to start on a closed transport", async () => {
    const { url } = await start();
    const { client } = httpClient(url, { era: LEGACY, pin: LEGACY });
    await client.connect();
    await client.close();
    expect(await rejection(client.listTools())).toBeInstanceOf(McpkitError);
  });
});
