/**
 * An HTTP handler with an `authenticate` hook on a server whose cache defaults let clients keep results
 * (`ttlMs > 0`) as `"public"` warns once, when it is made: identity-dependent cacheable output must use
 * `"private"`. Requests do not repeat it; ttlMs 0, private scope or no hook say nothing.
 */
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import type { CacheHints } from "../../src/protocol/types/common.js";
import { fixtureServer } from "../support/fixture-server.js";
import { modernMeta } from "../support/http-peer.js";

const WARNING = 'must use cacheScope "private"';

function serverWith(cache: Partial<CacheHints> | undefined) {
  const warnings: string[] = [];
  const server = fixtureServer({
    ...(cache === undefined ? {} : { cache }),
    logger: { warn: (message) => warnings.push(message), error: () => {} },
  });
  return { server, warnings: () => warnings.filter((message) => message.includes(WARNING)) };
}

function listTools(id: number): Request {
  return new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params: { _meta: modernMeta() } }),
  });
}

describe("the cache warning of an HTTP authenticate hook", () => {
  it("is logged exactly once per server, at configuration, however many requests and handlers", async () => {
    const { server, warnings } = serverWith({ ttlMs: 60_000 });
    const handler = createHttpHandler(server, { authenticate: () => ({ principal: "ada" }) });
    expect(warnings()).toHaveLength(1);
    for (let id = 1; id <= 3; id++) {
      const response = await handler(listTools(id));
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ result: { ttlMs: 60_000, cacheScope: "public" } });
    }
    createHttpHandler(server, { authenticate: () => "ada" });
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain("authenticate");
  });

  it("is not logged with ttlMs 0, with private scope, or without a hook", async () => {
    const cases: Array<[Partial<CacheHints> | undefined, boolean]> = [
      [undefined, true],
      [{ ttlMs: 0, cacheScope: "public" }, true],
      [{ ttlMs: 60_000, cacheScope: "private" }, true],
      [{ ttlMs: 60_000 }, false],
    ];
    for (const [cache, hook] of cases) {
      const { server, warnings } = serverWith(cache);
      const handler = createHttpHandler(server, hook ? { authenticate: () => "ada" } : {});
      expect((await handler(listTools(1))).status).toBe(200);
      expect(warnings(), JSON.stringify({ cache, hook })).toEqual([]);
    }
  });
});
