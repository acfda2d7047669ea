/**
 * The custom-surface cases every transport runs (in-process, stdio subprocess, HTTP): an mcpkit client against
 * {@link customServer} in one era. Each transport's test file gives a {@link CustomHarness} that connects a
 * client (the wire validated against the official schema of the era: custom messages as JSON-RPC) and calls
 * {@link customCases} inside its own `describe`.
 */
import { expect, it } from "vitest";
import type { Client } from "../../src/client/client.js";
import type { ClientOptions } from "../../src/client/types.js";
import { JsonRpcError, McpkitError } from "../../src/jsonrpc/errors.js";
import type { BuilderOptions } from "../../src/server/authoring/builder.js";
import { HANDLER_CAPACITY_MESSAGE, HANDLER_TIMEOUT_MESSAGE } from "../../src/server/core/executor.js";
import { SEARCH_ID, SEARCH_SETTINGS, type Seen } from "./custom-server.js";
import { rejection } from "./interop-helpers.js";
import { until } from "./until.js";

type Era = "2025-11-25" | "2026-07-28";
const MODERN = "2026-07-28";

/** Connects an mcpkit client to a fresh custom server in `era`. */
export interface CustomHarness {
  connect(
    era: Era,
    options?: { client?: Partial<ClientOptions>; server?: Partial<BuilderOptions> },
  ): Promise<Client>;
}

const codeOf = (error: unknown) => (error instanceof JsonRpcError ? error.code : error);

async function seenBy(client: Client): Promise<Seen[]> {
  return ((await client.request("acme/seen-log")) as unknown as { seen: Seen[] }).seen;
}

/** What the server's notification handlers saw, once they saw `count` (asked at most 200 times). */
async function seenAtLeast(client: Client, count: number): Promise<Seen[]> {
  for (let i = 0; i < 200; i++) {
    const seen = await seenBy(client);
    if (seen.length >= count) return seen;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return seenBy(client);
}

/** The first error of `method` calls repeated until one fails (at most 200 tries). */
async function firstFailure(client: Client, method: string): Promise<unknown> {
  for (let i = 0; i < 200; i++) {
    const outcome = await client.request(method).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (outcome !== undefined) return outcome;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return undefined;
}

/** Registers the cases for one era; call inside a `describe`. */
export function customCases(harness: CustomHarness, era: Era): void {
  const modern = era === MODERN;

  it("advertises exactly the extensions of the era, with their settings", async () => {
    const client = await harness.connect(era);
    const other = modern ? "com.example/legacy-only" : "com.example/modern-only";
    const own = modern ? "com.example/modern-only" : "com.example/legacy-only";
    const extensions = client.serverCapabilities?.extensions ?? {};
    expect(extensions[SEARCH_ID]).toEqual(SEARCH_SETTINGS);
    expect(extensions).toHaveProperty([own]);
    expect(extensions).not.toHaveProperty([other]);
  });

  it("round-trips a custom request with the era's projection", async () => {
    const client = await harness.connect(era);
    const result = await client.request("acme/echo", { x: 1, nested: { y: [2] } });
    expect(result).toMatchObject({ params: { x: 1, nested: { y: [2] } }, era, method: "acme/echo" });
    if (modern) {
      expect(result.resultType).toBe("complete");
      expect(result._meta?.["io.modelcontextprotocol/serverInfo"]).toEqual({
        name: "custom",
        version: "1.0.0",
      });
    } else expect(result).not.toHaveProperty("resultType");
    // Not cacheable: no cache hints.
    expect(result).not.toHaveProperty("ttlMs");
  });

  it("checks typed params: valid ones reach the handler parsed, bad ones get -32602 naming the path", async () => {
    const client = await harness.connect(era);
    expect(await client.request("search/query", { q: "mcp", limit: 1 })).toMatchObject({ hits: ["mcp"] });
    const error = await rejection(client.request("search/query", { q: 1 }));
    expect(codeOf(error)).toBe(-32602);
    expect((error as JsonRpcError).data).toMatchObject({ issues: [{ path: "/q" }] });
  });

  it("gives cacheable methods the default cache hints in 2026 (the handler's own win), none in 2025", async () => {
    const client = await harness.connect(era);
    const cached = await client.request("acme/cached");
    const own = await client.request("acme/own-cache");
    if (modern) {
      expect(cached).toMatchObject({ value: 1, ttlMs: 0, cacheScope: "public" });
      expect(own).toMatchObject({ value: 2, ttlMs: 5000, cacheScope: "private" });
    } else {
      expect(cached).not.toHaveProperty("ttlMs");
      expect(own).not.toHaveProperty("ttlMs");
    }
  });

  it("answers -32601 for unknown methods and for the other era's extension methods", async () => {
    const client = await harness.connect(era);
    expect(codeOf(await rejection(client.request("nope/nothing")))).toBe(-32601);
    const [own, other] = modern ? ["modern/hello", "legacy/hello"] : ["legacy/hello", "modern/hello"];
    expect(await client.request(own)).toMatchObject({ era });
    expect(codeOf(await rejection(client.request(other)))).toBe(-32601);
  });

  it("runs an input round from a custom method (inputRequired)", async () => {
    const client = await harness.connect(era, {
      client: {
        capabilities: { elicitation: {} },
        onElicitation: async () => ({ action: "accept", content: { name: "Ada" } }),
      },
    });
    expect(await client.request("search/personal")).toMatchObject({ hits: ["Ada's results"] });
  });

  it("delivers custom notifications client to server, dropping ones whose params fail the schema", async () => {
    const client = await harness.connect(era);
    await client.notify("acme/seen", { a: 1 });
    await client.notify("acme/typed", { id: 5 });
    await client.notify("acme/typed", { id: "ok" });
    expect(await seenAtLeast(client, 2)).toEqual([
      { method: "acme/seen", params: { a: 1 }, era },
      { method: "acme/typed", params: { id: "ok" }, era },
    ]);
  });

  it("delivers a handler's custom notifications to the client's notificationHandlers", async () => {
    const events: unknown[] = [];
    const client = await harness.connect(era, {
      client: {
        notificationHandlers: {
          "acme/event": (params, context) => {
            events.push([params, context.era]);
          },
        },
      },
    });
    expect(await client.request("acme/notify", { count: 2 })).toMatchObject({ sent: 2 });
    await until(() => events.length === 2);
    expect(events).toEqual([
      [{ n: 0 }, era],
      [{ n: 1 }, era],
    ]);
  });

  it("refuses core notification names on notify() without sending", async () => {
    const client = await harness.connect(era);
    const error = await rejection(client.notify("notifications/initialized"));
    expect(error).toBeInstanceOf(McpkitError);
    expect((error as McpkitError).code).toBe("UNSUPPORTED");
  });

  it("answers -32603 for a handler that returns a non-object", async () => {
    const client = await harness.connect(era);
    expect(codeOf(await rejection(client.request("acme/bad-result")))).toBe(-32603);
  });

  it("runs custom methods under the handler deadline", async () => {
    const client = await harness.connect(era, { server: { handlerTimeoutMs: 50 } });
    const error = await rejection(client.request("acme/slow"));
    expect(codeOf(error)).toBe(-32603);
    expect((error as JsonRpcError).message).toBe(HANDLER_TIMEOUT_MESSAGE);
  });

  it("runs custom methods under the admission limit", async () => {
    const client = await harness.connect(era, { server: { maxConcurrentHandlers: 1, maxQueuedHandlers: 0 } });
    const stop = new AbortController();
    const slow = rejection(client.request("acme/slow", {}, { signal: stop.signal }));
    // Once the server holds the slow call, it has the one slot: another call is refused at once.
    const refused = await firstFailure(client, "acme/echo");
    expect(codeOf(refused)).toBe(-32603);
    expect((refused as JsonRpcError).message).toMatch(
      new RegExp(`^${HANDLER_CAPACITY_MESSAGE}: .*over maxQueuedHandlers \\(0\\)$`),
    );
    expect((refused as JsonRpcError).data).toMatchObject({ retryAfterMs: 1000 });
    stop.abort();
    expect(await slow).toBeInstanceOf(McpkitError);
  });

  if (modern) {
    it("2026: sendRequest is refused (no server-to-client requests), sendRootsListChanged too", async () => {
      const client = await harness.connect(era, {
        client: { capabilities: { roots: { listChanged: true } } },
      });
      expect(codeOf(await rejection(client.request("acme/ask", { text: "hi" })))).toBe(-32603);
      const error = await rejection(client.sendRootsListChanged());
      expect((error as McpkitError).code).toBe("UNSUPPORTED");
    });
    return;
  }

  it("2025: a handler's sendRequest reaches the client's requestHandlers and returns its answer", async () => {
    const client = await harness.connect(era, {
      client: { requestHandlers: { "acme/question": ({ text }) => ({ reply: `${String(text)}!` }) } },
    });
    expect(await client.request("acme/ask", { text: "hi" })).toMatchObject({ answer: { reply: "hi!" } });
  });

  it("2025: a custom server request without a client callback gets -32601", async () => {
    const client = await harness.connect(era);
    expect(codeOf(await rejection(client.request("acme/ask", { text: "hi" })))).toBe(-32601);
  });

  it("2025: sendRootsListChanged reaches the server's handler; it needs the capability", async () => {
    const without = await harness.connect(era);
    expect(((await rejection(without.sendRootsListChanged())) as McpkitError).code).toBe("UNSUPPORTED");
    const client = await harness.connect(era, { client: { capabilities: { roots: { listChanged: true } } } });
    await client.sendRootsListChanged();
    expect(await seenAtLeast(client, 1)).toEqual([
      { method: "notifications/roots/list_changed", params: {}, era },
    ]);
  });
}
