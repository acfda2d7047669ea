/**
 * The in-memory single-use store: a nonce is spent once; the store holds at most `capacity` unspent, unexpired
 * nonces and refuses to issue past that (it never evicts a live one); expiry frees entries, also out of order.
 */
import { describe, expect, it } from "vitest";
import { McpkitError } from "../../jsonrpc/errors.js";
import { MemoryRequestStateStore } from "./store.js";

function clock(start = 1_000) {
  let time = start;
  return { now: () => time, advance: (ms: number) => (time += ms) };
}

describe("MemoryRequestStateStore", () => {
  it("spends an issued nonce exactly once; an unknown nonce is refused", () => {
    const store = new MemoryRequestStateStore();
    expect(store.issue("a", Date.now() + 60_000)).toBe(true);
    expect(store.consume("b")).toBe(false);
    const spends = Array.from({ length: 5 }, () => store.consume("a"));
    expect(spends).toEqual([true, false, false, false, false]);
    expect(store.size).toBe(0);
  });

  it("lets one of many concurrent consumers through", async () => {
    const store = new MemoryRequestStateStore();
    store.issue("n", Date.now() + 60_000);
    const spends = await Promise.all(
      Array.from({ length: 16 }, async () => {
        await Promise.resolve();
        return store.consume("n");
      }),
    );
    expect(spends.filter(Boolean)).toHaveLength(1);
  });

  it("never issues a nonce that is already held", () => {
    const store = new MemoryRequestStateStore();
    expect(store.issue("n", Date.now() + 60_000)).toBe(true);
    expect(store.issue("n", Date.now() + 60_000)).toBe(false);
    expect(store.consume("n")).toBe(true);
    expect(store.consume("n")).toBe(false);
  });

  it("holds at most the default 10,000 unspent nonces, refusing (not evicting) past it", () => {
    const store = new MemoryRequestStateStore();
    const expiresAt = Date.now() + 60_000;
    for (let i = 0; i < 10_000; i++) expect(store.issue(`n${i}`, expiresAt)).toBe(true);
    expect(store.issue("over", expiresAt)).toBe(false);
    expect(store.size).toBe(10_000);
    // Every issued nonce is still there to be spent once: nothing was evicted.
    expect(store.consume("n0")).toBe(true);
    expect(store.issue("over", expiresAt)).toBe(true);
    expect(store.consume("over")).toBe(true);
    expect(store.consume("n0")).toBe(false);
  });

  it("frees the entries of expired nonces, and refuses to spend an expired one", () => {
    const time = clock();
    const store = new MemoryRequestStateStore({ capacity: 2, now: time.now });
    expect(store.issue("a", time.now() + 1_000)).toBe(true);
    expect(store.issue("b", time.now() + 2_000)).toBe(true);
    expect(store.issue("c", time.now() + 2_000)).toBe(false);
    time.advance(999);
    expect(store.issue("c", time.now() + 2_000)).toBe(false);
    time.advance(1);
    expect(store.issue("c", time.now() + 2_000)).toBe(true);
    expect(store.consume("a")).toBe(false);
    time.advance(1_000);
    expect(store.size).toBe(1);
    expect(store.consume("b")).toBe(false);
    expect(store.consume("c")).toBe(true);
    expect(store.size).toBe(0);
  });

  it("frees a nonce that expires before older ones (lifetimes differ, or the clock stepped back)", () => {
    const time = clock();
    const store = new MemoryRequestStateStore({ capacity: 2, now: time.now });
    store.issue("long", time.now() + 10_000);
    store.issue("short", time.now() + 100);
    time.advance(100);
    expect(store.issue("next", time.now() + 10_000)).toBe(true);
    expect(store.consume("long")).toBe(true);
    expect(store.consume("next")).toBe(true);
  });

  it("rejects unknown options and bad values with INVALID_CONFIG", () => {
    for (const options of [{ capacity: 0 }, { capacity: 1.5 }, { now: 5 }, { ttlMs: 5 }, { size: 1 }, null]) {
      let error: unknown;
      try {
        new MemoryRequestStateStore(options as never);
      } catch (caught) {
        error = caught;
      }
      expect(error, JSON.stringify(options)).toBeInstanceOf(McpkitError);
      expect((error as McpkitError).code).toBe("INVALID_CONFIG");
    }
    expect(new MemoryRequestStateStore({ capacity: 3 }).capacity).toBe(3);
  });
});
