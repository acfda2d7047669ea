// The page's bounded stores on their own (no browser): each limit crossed, the oldest dropped and counted; and
// the history import's bounds (size, JSON, format, the entries beyond what the history keeps).
import { describe, expect, it } from "vitest";
import { BoundedLog, BoundedMap } from "../../src/cli/inspect/page/bounded.js";
import {
  checkImportSize,
  MAX_IMPORT_BYTES,
  parseHistoryFile,
} from "../../src/cli/inspect/page/history-file.js";
import { MAX_HISTORY } from "../../src/cli/inspect/page/limits.js";

describe("BoundedLog", () => {
  it("keeps the newest max items, drops the oldest first and counts them", () => {
    const log = new BoundedLog<number>(3);
    for (let i = 0; i < 10; i++) log.push(i);
    expect(log.items).toEqual([7, 8, 9]);
    expect(log.dropped).toBe(7);
    expect(log.push(10, 11)).toBe(2);
    expect(log.items).toEqual([9, 10, 11]);
  });

  it("keeps the summed weight under its bound, the newest item always kept", () => {
    const log = new BoundedLog<string>(100, 10, (s) => s.length);
    log.push("aaaa", "bbbb");
    expect(log.weight).toBe(8);
    log.push("cccc");
    expect(log.items).toEqual(["bbbb", "cccc"]);
    expect(log.weight).toBe(8);
    log.push("x".repeat(50));
    expect(log.items).toEqual(["x".repeat(50)]);
    expect(log.dropped).toBe(3);
    log.noteDropped(2);
    expect(log.dropped).toBe(5);
    log.clear();
    expect([log.items.length, log.weight, log.dropped]).toEqual([0, 0, 0]);
  });

  it("stays bounded however much is pushed at once", () => {
    const log = new BoundedLog<number>(1_000);
    log.push(...Array.from({ length: 50_000 }, (_, i) => i));
    expect(log.items.length).toBe(1_000);
    expect(log.items[0]).toBe(49_000);
    expect(log.dropped).toBe(49_000);
  });
});

describe("BoundedMap", () => {
  it("keeps the newest max keys by first insertion; a dropped key is known as dropped", () => {
    const map = new BoundedMap<string, number>(2);
    expect(map.set("a", 1)).toEqual([]);
    map.set("b", 2);
    map.set("a", 10); // an update, not a new key: nothing dropped
    expect(map.set("c", 3)).toEqual([["a", 10]]);
    expect([...map.values()]).toEqual([2, 3]);
    expect(map.dropped).toBe(1);
    expect(map.has("a")).toBe(false);
    expect(map.wasDropped("a")).toBe(true);
    expect(map.wasDropped("b")).toBe(false);
  });

  it("remembers at most max dropped keys", () => {
    const map = new BoundedMap<number, number>(2);
    for (let i = 0; i < 10; i++) map.set(i, i);
    expect(map.size).toBe(2);
    expect(map.dropped).toBe(8);
    expect([0, 1, 2, 3, 4, 5, 6, 7].filter((k) => map.wasDropped(k))).toEqual([6, 7]);
  });
});

describe("importing a history file", () => {
  const file = (entries: unknown[], extra: object = {}) =>
    JSON.stringify({ format: "mcpkit-inspect-history", version: 1, entries, ...extra });
  const entry = (i: number) => ({
    time: "t",
    op: "tools/call",
    params: { name: `t${i}` },
    ok: true,
    summary: "",
  });

  it(`keeps the newest ${MAX_HISTORY} of a longer file and says how many it dropped`, () => {
    const read = parseHistoryFile(
      file(Array.from({ length: MAX_HISTORY + 500 }, (_, i) => entry(i))),
      MAX_HISTORY,
    );
    expect(read.entries).toHaveLength(MAX_HISTORY);
    expect(read.dropped).toBe(500);
    expect(read.entries[0]?.params.name).toBe("t500");
    expect(read.entries.every((e) => e.imported === true)).toBe(true);
  });

  it("skips what is not an entry, counting it, and cuts long fields", () => {
    const read = parseHistoryFile(
      file([
        null,
        7,
        { op: 1, params: {} },
        { op: "x", params: [] },
        { op: "x".repeat(500), params: {}, summary: "s".repeat(500) },
      ]),
      MAX_HISTORY,
    );
    expect(read.skipped).toBe(4);
    expect(read.entries).toHaveLength(1);
    expect(read.entries[0]?.op).toHaveLength(200);
    expect(read.entries[0]?.summary).toHaveLength(200);
  });

  it("refuses a malformed file with a message that says what is wrong", () => {
    expect(() => parseHistoryFile("{ not json", MAX_HISTORY)).toThrow(/^not JSON: /);
    expect(() => parseHistoryFile("[]", MAX_HISTORY)).toThrow(/not an mcpkit inspect history.*format/);
    expect(() => parseHistoryFile(JSON.stringify({ format: "other" }), MAX_HISTORY)).toThrow(/format/);
    expect(() =>
      parseHistoryFile(JSON.stringify({ format: "mcpkit-inspect-history", entries: {} }), MAX_HISTORY),
    ).toThrow(/no "entries" array/);
  });

  it(`refuses a file over ${MAX_IMPORT_BYTES} bytes before reading it`, () => {
    expect(() => checkImportSize(MAX_IMPORT_BYTES)).not.toThrow();
    expect(() => checkImportSize(MAX_IMPORT_BYTES + 1)).toThrow(
      /16,000,001 bytes: a history file has at most 16,000,000/,
    );
    expect(() => parseHistoryFile(" ".repeat(MAX_IMPORT_BYTES + 1), MAX_HISTORY)).toThrow(/at most/);
  });
});
