/**
 * `resources/list` with resource templates' `list` callbacks: their resources come after the fixed ones, paged
 * with them, cursors surviving changes between pages; a callback's answer is checked and bounded. Through a raw
 * 2026-07-28 peer, so cursors are seen as sent.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { connectRaw, errorOf, type RawPeer, resultOf } from "../../../test/support/raw-peer.js";
import { useWireValidation } from "../../../test/support/validating-transport.js";
import type { Server } from "../server.js";
import { ServerBuilder } from "./builder.js";

useWireValidation();

const serverInfo = { name: "pages", version: "1.0.0" };
const read = () => ({ contents: [] });
const named = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({ uri: `${prefix}${i}`, name: `${prefix}${i}` }));

let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function peerOf(s: Server): Promise<RawPeer> {
  server = s;
  return (await connectRaw(s)).peer;
}

/** Every page of resources/list: the URIs of each, and the cursors that led there. */
async function pages(peer: RawPeer): Promise<{ uris: string[][]; cursors: (string | undefined)[] }> {
  const uris: string[][] = [];
  const cursors: (string | undefined)[] = [];
  let cursor: string | undefined;
  do {
    const result = resultOf(await peer.modern("resources/list", cursor === undefined ? {} : { cursor }));
    uris.push((result.resources as { uri: string }[]).map((r) => r.uri));
    cursor = result.nextCursor as string | undefined;
    cursors.push(cursor);
  } while (cursor !== undefined && uris.length < 20);
  return { uris, cursors };
}

describe("resources/list with template list callbacks", () => {
  it("lists the fixed resources, then each template's, paged together", async () => {
    const listNotes = vi.fn((_context: unknown) => ({ resources: named("notes://", 3) }));
    const peer = await peerOf(
      new ServerBuilder({ serverInfo, pageSize: 2 })
        .resource({ uri: "fixed://a", name: "a" }, read)
        .resourceTemplate({ uriTemplate: "notes://{id}", name: "note" }, read, { list: listNotes })
        .resourceTemplate({ uriTemplate: "plain://{id}", name: "unlisted" }, read)
        .resourceTemplate({ uriTemplate: "users://{id}", name: "user" }, read, {
          list: async () => ({ resources: named("users://", 2) }),
        })
        .build(),
    );
    expect(await pages(peer)).toEqual({
      uris: [
        ["fixed://a", "notes://0"],
        ["notes://1", "notes://2"],
        ["users://0", "users://1"],
      ],
      cursors: ["t:0:1", "t:2:0", undefined],
    });
    // The callback gets the list request's context.
    expect(listNotes.mock.calls[0]?.[0]).toMatchObject({ method: "resources/list", era: "2026-07-28" });
  });

  it("keeps the fixed resources' o:N cursors, and moves on to the templates after them", async () => {
    const peer = await peerOf(
      new ServerBuilder({ serverInfo, pageSize: 2 })
        .resource({ uri: "f://0", name: "0" }, read)
        .resource({ uri: "f://1", name: "1" }, read)
        .resource({ uri: "f://2", name: "2" }, read)
        .resourceTemplate({ uriTemplate: "t://{id}", name: "t" }, read, {
          list: () => ({ resources: named("t://", 1) }),
        })
        .build(),
    );
    expect(await pages(peer)).toEqual({
      uris: [
        ["f://0", "f://1"],
        ["f://2", "t://0"],
      ],
      cursors: ["o:2", undefined],
    });
  });

  it("goes on from where a page ended when templates are removed or their lists change between pages", async () => {
    let notes = named("notes://", 3);
    const s = new ServerBuilder({ serverInfo, pageSize: 2 }).buildDynamic();
    s.resourceTemplates.add({ uriTemplate: "notes://{id}", name: "n" }, read, {
      list: () => ({ resources: notes }),
    });
    const gone = s.resourceTemplates.add({ uriTemplate: "gone://{id}", name: "g" }, read, {
      list: () => ({ resources: named("gone://", 2) }),
    });
    s.resourceTemplates.add({ uriTemplate: "last://{id}", name: "l" }, read, {
      list: () => ({ resources: named("last://", 1) }),
    });
    const peer = await peerOf(s);
    const first = resultOf(await peer.modern("resources/list"));
    expect(first.nextCursor).toBe("t:0:2");
    notes = named("notes://", 2); // shrank: the page goes on with the next template
    gone.remove();
    const second = resultOf(await peer.modern("resources/list", { cursor: first.nextCursor }));
    expect((second.resources as { uri: string }[]).map((r) => r.uri)).toEqual(["last://0"]);
    expect(second.nextCursor).toBeUndefined();
  });

  it("answers a list callback past maxRegistrations, or a malformed answer, with -32603; a bad cursor with -32602", async () => {
    const logger = { warn: vi.fn(), error: vi.fn() };
    const peer = await peerOf(
      new ServerBuilder({ serverInfo, maxRegistrations: 3, logger })
        .resourceTemplate({ uriTemplate: "big://{id}", name: "big" }, read, {
          list: () => ({ resources: named("big://", 4) }),
        })
        .build(),
    );
    expect(errorOf(await peer.modern("resources/list"))).toEqual({ code: -32603, message: "Internal error" });
    expect(String(logger.error.mock.calls[0]?.[1])).toMatch(/returned 4 resources, more than the 3 allowed/);
    for (const cursor of ["t:x:0", "t:9:0", "t:0", "o:9"]) {
      expect(errorOf(await peer.modern("resources/list", { cursor })).code).toBe(-32602);
    }
    const bad = new ServerBuilder({ serverInfo, logger })
      .resourceTemplate({ uriTemplate: "bad://{id}", name: "bad" }, read, {
        list: () => ({ resources: [{ uri: "bad://1" }] }) as never,
      })
      .build();
    const other = await peerOf(bad);
    expect(errorOf(await other.modern("resources/list")).code).toBe(-32603);
    expect(String(logger.error.mock.calls.at(-1)?.[1])).toMatch(/without a string uri and name/);
  });

  it("holds at most maxRegistrations resources in a page, even without a pageSize", async () => {
    const peer = await peerOf(
      new ServerBuilder({ serverInfo, maxRegistrations: 3 })
        .resourceTemplate({ uriTemplate: "a://{id}", name: "a" }, read, {
          list: () => ({ resources: named("a://", 3) }),
        })
        .resourceTemplate({ uriTemplate: "b://{id}", name: "b" }, read, {
          list: () => ({ resources: named("b://", 2) }),
        })
        .build(),
    );
    expect(await pages(peer)).toEqual({
      uris: [
        ["a://0", "a://1", "a://2"],
        ["b://0", "b://1"],
      ],
      cursors: ["t:1:0", undefined],
    });
  });

  it("takes a pageSize and maxRegistrations from 1, naming the option below it", () => {
    expect(() => new ServerBuilder({ serverInfo, pageSize: 1, maxRegistrations: 1 }).build()).not.toThrow();
    for (const key of ["pageSize", "maxRegistrations"]) {
      expect(() => new ServerBuilder({ serverInfo, [key]: 0 }).build()).toThrow(
        expect.objectContaining({
          code: "INVALID_CONFIG",
          message: `${key} must be a positive integer`,
          details: { key },
        }),
      );
    }
  });

  it("refuses a list option that is not a function when the template is registered", () => {
    expect(() =>
      new ServerBuilder({ serverInfo }).resourceTemplate({ uriTemplate: "a://{x}", name: "a" }, read, {
        list: "all" as never,
      }),
    ).toThrow(/list must be a function/);
  });
});

describe("resources/read through templates of every operator", () => {
  it("routes reads by the RFC 6570 match and hands the callback typed variables", async () => {
    const seen: unknown[] = [];
    const peer = await peerOf(
      new ServerBuilder({ serverInfo })
        .resourceTemplate({ uriTemplate: "file:///{+path}", name: "file" }, (uri, { path }) => {
          seen.push(path);
          return { contents: [{ uri, text: path.toUpperCase() }] };
        })
        .resourceTemplate(
          { uriTemplate: "repo://{owner}{/parts*}{?ref}", name: "repo" },
          (uri, { owner, parts, ref }) => {
            seen.push({ owner, parts, ref });
            return { contents: [{ uri, text: [owner, ...(parts ?? []), ref ?? "main"].join(" ") }] };
          },
        )
        .build(),
    );
    const text = async (uri: string) =>
      (resultOf(await peer.modern("resources/read", { uri })).contents as { text: string }[])[0]?.text;
    expect(await text("file:///src/a%20b.ts")).toBe("SRC/A B.TS");
    expect(await text("repo://acme/src/lib?ref=dev")).toBe("acme src lib dev");
    expect(await text("repo://acme")).toBe("acme main");
    expect(seen).toEqual([
      "src/a b.ts",
      { owner: "acme", parts: ["src", "lib"], ref: "dev" },
      { owner: "acme", parts: undefined, ref: undefined },
    ]);
  });
});
