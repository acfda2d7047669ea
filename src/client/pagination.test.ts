import { describe, expect, it } from "vitest";
import { connectFake, type FakeServer, ok } from "../../test/support/fake-server.js";
import { useWireValidation } from "../../test/support/validating-transport.js";
import type { Client } from "./client.js";
import type { ListAllOptions } from "./types.js";

useWireValidation();

type Walk = [
  method: string,
  member: string,
  item: (i: number) => { [key: string]: unknown },
  listAll: (client: Client, options?: ListAllOptions) => Promise<unknown[]>,
];

const WALKS: Walk[] = [
  [
    "tools/list",
    "tools",
    (i) => ({ name: `t${i}`, inputSchema: { type: "object" } }),
    (c, o) => c.listAllTools(o),
  ],
  [
    "resources/list",
    "resources",
    (i) => ({ uri: `file:///${i}`, name: `r${i}` }),
    (c, o) => c.listAllResources(o),
  ],
  [
    "resources/templates/list",
    "resourceTemplates",
    (i) => ({ uriTemplate: `file:///${i}/{x}`, name: `rt${i}` }),
    (c, o) => c.listAllResourceTemplates(o),
  ],
  ["prompts/list", "prompts", (i) => ({ name: `p${i}` }), (c, o) => c.listAllPrompts(o)],
];

/** Pages of `perPage` items; `cursorOf(page)` gives the next cursor, undefined on the last page. */
function paged(
  server: FakeServer,
  [method, member, item]: Walk,
  perPage: number,
  cursorOf: (page: number) => string | undefined,
): void {
  server.on(method, (request) => {
    const cursor = request.params?.cursor;
    const page = typeof cursor === "string" ? Number(cursor.split(":")[0]) : 0;
    const items = Array.from({ length: perPage }, (_, i) => item(page * perPage + i));
    const next = cursorOf(page);
    return ok(next === undefined ? { [member]: items } : { [member]: items, nextCursor: next });
  });
}

describe.each(["modern", "legacy"] as const)("listAll* (%s)", (era) => {
  describe.each(WALKS)("%s", (...walk) => {
    const [method, , item, listAll] = walk;

    it("follows nextCursor to the last page", async () => {
      const { server, client } = await connectFake({
        era,
        setup: (s) => paged(s, walk, 2, (page) => (page < 2 ? `${page + 1}:c` : undefined)),
      });
      const items = await listAll(client);
      expect(items).toEqual([0, 1, 2, 3, 4, 5].map(item));
      expect(server.requests(method).map((r) => r.params?.cursor)).toEqual([undefined, "1:c", "2:c"]);
    });

    it("stops at a repeated cursor with LIMIT_EXCEEDED repeated_cursor", async () => {
      const { server, client } = await connectFake({ era, setup: (s) => paged(s, walk, 1, () => "1:same") });
      await expect(listAll(client)).rejects.toMatchObject({
        code: "LIMIT_EXCEEDED",
        details: { reason: "repeated_cursor", cursor: "1:same" },
      });
      expect(server.requests(method)).toHaveLength(2);
    });

    it("stops at maxPages with LIMIT_EXCEEDED naming the limit", async () => {
      const { server, client } = await connectFake({
        era,
        setup: (s) => paged(s, walk, 1, (page) => `${page + 1}:c`),
      });
      await expect(listAll(client, { maxPages: 3 })).rejects.toMatchObject({
        code: "LIMIT_EXCEEDED",
        details: { option: "maxPages", limit: 3, size: 4 },
      });
      expect(server.requests(method)).toHaveLength(3);
    });

    it("stops at maxItems with LIMIT_EXCEEDED naming the limit", async () => {
      const { client } = await connectFake({
        era,
        setup: (s) => paged(s, walk, 4, (page) => (page < 5 ? `${page + 1}:c` : undefined)),
      });
      await expect(listAll(client, { maxItems: 10 })).rejects.toMatchObject({
        code: "LIMIT_EXCEEDED",
        details: { option: "maxItems", limit: 10 },
      });
      await expect(listAll(client, { maxItems: 24 })).resolves.toHaveLength(24);
    });
  });

  it("runs the whole walk under one deadline", async () => {
    const walk = WALKS[0] as Walk;
    const { client } = await connectFake({
      era,
      client: { requestTimeoutMs: 10_000 },
      setup: (s) =>
        s.on("tools/list", async (request) => {
          await new Promise<void>((resolve) => setTimeout(() => resolve(), 20));
          const page = Number(request.params?.cursor ?? 0);
          return ok({ tools: [walk[2](page)], nextCursor: String(page + 1) });
        }),
    });
    // Each page answers well within 60 ms; only a deadline shared by all pages can end the walk.
    await expect(client.listAllTools({ timeoutMs: 60, maxPages: 1_000 })).rejects.toMatchObject({
      code: "TIMEOUT",
    });
  });

  it("rejects ABORTED when the signal aborts mid-walk", async () => {
    const { server, client } = await connectFake({
      era,
      setup: (s) =>
        s.on("tools/list", (request) =>
          request.params?.cursor ? undefined : ok({ tools: [], nextCursor: "1" }),
        ),
    });
    const controller = new AbortController();
    const walking = client.listAllTools({ signal: controller.signal });
    await new Promise<void>((resolve) => {
      const poll = () => (server.requests("tools/list").length === 2 ? resolve() : setTimeout(poll, 1));
      poll();
    });
    controller.abort();
    await expect(walking).rejects.toMatchObject({ code: "ABORTED" });
  });

  it("rejects bad limits with INVALID_CONFIG", async () => {
    const { client } = await connectFake({ era });
    await expect(client.listAllTools({ maxPages: 0 })).rejects.toMatchObject({
      code: "INVALID_CONFIG",
      details: { key: "maxPages" },
    });
  });
});
