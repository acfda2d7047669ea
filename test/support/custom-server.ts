/**
 * A server with a custom protocol surface, for the custom-method tests of every transport: an extension serving
 * both eras (`com.example/search`: typed params, an input round, a notification), one per era, plain custom
 * methods (echo, slow, cacheable, notify, sendRequest) and notification handlers. What the notification handlers
 * received is kept in `seen`.
 *
 * @example
 * const { server, seen } = customServer();
 * // a client calls "search/query" { q: "mcp" } -> { hits: ["mcp"] }
 */

// Through the package name: the sources in the tests (vitest.config.ts aliases), the built package in the stdio
// fixture compiled from this file (test/fixtures/stdio-server/custom-server.ts, see test/support/fixture-build.ts).
import {
  type BuilderOptions,
  defineExtension,
  defineRequest,
  inputRequired,
  type Server,
  ServerBuilder,
} from "mcpkit/server";
import { z } from "zod";
import { accepted, askFor } from "./input-server.js";

/** What a notification handler saw. */
export interface Seen {
  method: string;
  params: { [key: string]: unknown };
  era: string;
}

export const SEARCH_ID = "com.example/search";
export const SEARCH_SETTINGS = { maxHits: 3 };

export const search = defineExtension({
  id: SEARCH_ID,
  settings: SEARCH_SETTINGS,
  requests: {
    "search/query": defineRequest(
      { params: z.object({ q: z.string(), limit: z.number().int().optional() }) },
      ({ q, limit }) => ({ hits: [q].slice(0, limit ?? 3) }),
    ),
    // Asks for a name in an input round, then answers with it.
    "search/personal": (_params, context) => {
      const name = accepted(context, "who", "name");
      return name === undefined ? inputRequired({ who: askFor("name") }) : { hits: [`${name}'s results`] };
    },
  },
});

export const modernOnly = defineExtension({
  id: "com.example/modern-only",
  eras: ["2026-07-28"],
  requests: { "modern/hello": (_params, context) => ({ era: context.era }) },
});

export const legacyOnly = defineExtension({
  id: "com.example/legacy-only",
  eras: ["2025-11-25"],
  settings: { v: 1 },
  requests: { "legacy/hello": (_params, context) => ({ era: context.era }) },
});

/** The server, and what its notification handlers received. */
export function customServer(options: Partial<BuilderOptions> = {}): { server: Server; seen: Seen[] } {
  const seen: Seen[] = [];
  const record = (params: { [key: string]: unknown }, context: { method: string; era: string }) => {
    seen.push({ method: context.method, params, era: context.era });
  };
  const server = new ServerBuilder({
    serverInfo: { name: "custom", version: "1.0.0" },
    logger: { warn: () => {}, error: () => {} },
    extensions: [search, modernOnly, legacyOnly],
    ...options,
  })
    .tool({ name: "noop", inputSchema: { type: "object" } }, () => ({ content: [] }))
    .request("acme/echo", (params, context) => ({ params, era: context.era, method: context.method }))
    .request("acme/cached", { cacheable: true }, () => ({ value: 1 }))
    .request("acme/own-cache", { cacheable: true }, () => ({ value: 2, ttlMs: 5000, cacheScope: "private" }))
    // Runs until its signal fires (the deadline, a cancel, or the connection closing).
    .request(
      "acme/slow",
      (_params, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener("abort", () => reject(context.signal.reason));
        }),
    )
    .request("acme/notify", async ({ count }, context) => {
      for (let i = 0; i < Number(count ?? 1); i++) await context.notify("acme/event", { n: i });
      return { sent: Number(count ?? 1) };
    })
    .request("acme/ask", async (params, context) => {
      const answer = await context.sendRequest("acme/question", { text: String(params.text ?? "?") });
      return { answer };
    })
    .request("acme/bad-result", () => [1, 2] as never)
    .request("acme/seen-log", () => ({ seen: seen.map((entry) => ({ ...entry })) }))
    .notification("acme/seen", record)
    .notification("acme/typed", { params: z.object({ id: z.string() }) }, (params, context) =>
      record(params, context),
    )
    .notification("notifications/roots/list_changed", record)
    .build();
  return { server, seen };
}
