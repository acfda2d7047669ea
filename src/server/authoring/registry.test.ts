import { describe, expect, it } from "vitest";
import { JsonRpcError, McpkitError } from "../../jsonrpc/errors.js";
import { Table } from "./registry.js";

function table(limit = 100) {
  const changes: number[] = [];
  const t = new Table<string>("tool", limit, () => changes.push(changes.length));
  return { t, changes };
}

const keys = (t: Table<string>, cursor?: string, size = 100) => t.page(cursor, size).items.map((s) => s.key);

describe("Table", () => {
  it("keeps keys unique, lists enabled items in registration order, and reports every change", () => {
    const { t, changes } = table();
    const a = t.add("a", "A");
    t.add("b", "B");
    t.add("c", "C");
    expect(() => t.add("b", "again")).toThrow(McpkitError);
    expect(keys(t)).toEqual(["a", "b", "c"]);
    t.setEnabled(a, false);
    t.setEnabled(a, false); // no change
    expect(keys(t)).toEqual(["b", "c"]);
    expect(t.lookup("a")).toBeUndefined();
    expect(t.get("a")?.entry).toBe("A");
    t.setEnabled(a, true);
    expect(keys(t)).toEqual(["a", "b", "c"]);
    expect(changes).toHaveLength(5);
  });

  it("renames in place (the item keeps its place), refusing a taken key", () => {
    const { t } = table();
    const a = t.add("a", "A");
    t.add("b", "B");
    t.replace(a, "z", "Z");
    expect(keys(t)).toEqual(["z", "b"]);
    expect(t.get("a")).toBeUndefined();
    expect(t.lookup("z")).toBe("Z");
    expect(() => t.replace(a, "b", "B2")).toThrow(/registered twice/);
    expect(t.lookup("z")).toBe("Z");
  });

  it("frees the key of a removed item, and refuses changes to it", () => {
    const { t } = table();
    const a = t.add("a", "A");
    expect(t.remove(a)).toBe(true);
    expect(t.remove(a)).toBe(false);
    expect(() => t.setEnabled(a, true)).toThrow(/was removed/);
    expect(() => t.replace(a, "a", "x")).toThrow(/was removed/);
    t.add("a", "A again");
    expect(t.lookup("a")).toBe("A again");
  });

  it("refuses one item past its limit with CAPACITY, and takes one again once an item is removed", () => {
    const { t } = table(3);
    const slots = ["a", "b", "c"].map((k) => t.add(k, k));
    let error: unknown;
    try {
      t.add("d", "d");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(McpkitError);
    expect(error).toMatchObject({ code: "CAPACITY", details: { kind: "tool", limit: 3 } });
    t.remove(slots[0] as (typeof slots)[number]);
    t.add("d", "d");
    expect(t.size).toBe(3);
  });

  it("pages with cursors that stay valid while items come and go", () => {
    const { t } = table();
    const slots = ["a", "b", "c", "d", "e"].map((k) => t.add(k, k));
    const first = t.page(undefined, 2);
    expect(first.items.map((s) => s.key)).toEqual(["a", "b"]);
    expect(first.nextCursor).toBe("o:2");
    // Between pages: c removed, d disabled, f added: the next page starts after b all the same.
    t.remove(slots[2] as (typeof slots)[number]);
    t.setEnabled(slots[3] as (typeof slots)[number], false);
    t.add("f", "f");
    const second = t.page(first.nextCursor, 2);
    expect(second.items.map((s) => s.key)).toEqual(["e", "f"]);
    expect(second.nextCursor).toBeUndefined();
    expect(keys(t, "o:6")).toEqual([]);
  });

  it("refuses a cursor it never gave with -32602", () => {
    const { t } = table();
    t.add("a", "A");
    for (const cursor of ["o:2", "o:-1", "x", "o:1.5", `o:${"9".repeat(30)}`]) {
      expect(() => t.page(cursor, 10)).toThrow(JsonRpcError);
    }
    expect(keys(t, "o:1")).toEqual([]);
  });
});
