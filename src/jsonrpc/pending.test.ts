import { describe, expect, it } from "vitest";
import { JsonRpcError, McpkitError } from "./errors.js";
import type { JsonRpcResponse } from "./message.js";
import { DEFAULT_MAX_PENDING, PendingTable } from "./pending.js";

describe("PendingTable", () => {
  it("allocates increasing integer ids and resolves an entry with its result", async () => {
    const table = new PendingTable();
    const a = table.open();
    const b = table.open();
    expect([a.id, b.id]).toEqual([1, 2]);
    expect(table.settle({ jsonrpc: "2.0", id: 2, result: { ok: true } })).toBe(true);
    await expect(b.promise).resolves.toEqual({ ok: true });
    expect(table.size).toBe(1);
  });

  it("rejects an entry with a JsonRpcError built from an error response, data kept", async () => {
    const table = new PendingTable();
    const { id, promise } = table.open();
    table.settle({ jsonrpc: "2.0", id, error: { code: -32602, message: "bad", data: { why: 1 } } });
    const error = await promise.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code: -32602, message: "bad", data: { why: 1 }, hasData: true });
  });

  it("fails the entry past the default capacity at once with CAPACITY", () => {
    const table = new PendingTable();
    for (let i = 0; i < DEFAULT_MAX_PENDING; i++) table.open();
    expect(() => table.open()).toThrow(expect.objectContaining({ code: "CAPACITY" }));
    expect(table.size).toBe(1024);
  });

  it("frees a slot when an entry settles", () => {
    const table = new PendingTable({ capacity: 1 });
    const { id } = table.open();
    expect(() => table.open()).toThrow(McpkitError);
    table.reject(id, new Error("gone"));
    expect(() => table.open()).not.toThrow();
  });

  it("drops and reports responses for unknown, rejected or non-numeric ids", async () => {
    const unknown: JsonRpcResponse[] = [];
    const table = new PendingTable({ onUnknownResponse: (r) => unknown.push(r) });
    const { id, promise } = table.open();
    table.reject(id, new McpkitError("TIMEOUT", "late"));
    await expect(promise).rejects.toMatchObject({ code: "TIMEOUT" });
    expect(table.settle({ jsonrpc: "2.0", id, result: {} })).toBe(false);
    expect(table.settle({ jsonrpc: "2.0", id: "1", result: {} })).toBe(false);
    expect(table.settle({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } })).toBe(false);
    expect(unknown).toHaveLength(3);
  });

  it("rejectAll fails every entry and empties the table", async () => {
    const table = new PendingTable();
    const entries = [table.open(), table.open(), table.open()];
    const closed = new McpkitError("CLOSED", "closed");
    expect(table.rejectAll(closed)).toBe(3);
    for (const entry of entries) await expect(entry.promise).rejects.toBe(closed);
    expect(table.size).toBe(0);
  });

  it("does not report a rejection nobody awaits yet as unhandled", async () => {
    const table = new PendingTable();
    const { id, promise } = table.open();
    table.reject(id, new Error("early"));
    await new Promise<void>((resolve) => setTimeout(() => resolve(), 5));
    await expect(promise).rejects.toThrow("early");
  });

  it("rejects a capacity that is not a positive integer, naming it", () => {
    expect(new PendingTable({ capacity: 1 }).capacity).toBe(1);
    expect(() => new PendingTable({ capacity: 0 })).toThrow(
      expect.objectContaining({
        code: "INVALID_CONFIG",
        message: "capacity must be a positive integer",
        details: { key: "capacity" },
      }),
    );
    expect(() => new PendingTable({ capacity: 1.5 })).toThrow(McpkitError);
  });

  it("counts, finds and rejects in opening order whether an entry is the lone one or not", async () => {
    const table = new PendingTable();
    const order: number[] = [];
    const entry = (n: number) => ({ resolve: () => {}, reject: () => order.push(n) });
    const first = table.add(entry(1));
    const second = table.add(entry(2));
    table.reject(first, new Error("gone"));
    const third = table.add(entry(3));
    expect([table.size, table.has(first), table.has(second), table.has(third)]).toEqual([
      2,
      false,
      true,
      true,
    ]);
    expect(order).toEqual([1]);
    expect(table.rejectAll(new Error("closed"))).toBe(2);
    expect(order).toEqual([1, 2, 3]);
    const lone = table.add(entry(4));
    expect(table.settle({ jsonrpc: "2.0", id: lone, result: {} })).toBe(true);
    expect(table.size).toBe(0);
  });
});
