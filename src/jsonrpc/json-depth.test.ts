import { describe, expect, it } from "vitest";
import { nestsDeeperThan } from "./json-depth.js";

/** `levels` nested objects around `leaf` (`{ a: { a: ... leaf } }`). */
function nested(levels: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

describe("nestsDeeperThan", () => {
  it("counts objects and arrays, not scalars", () => {
    expect(nestsDeeperThan(7, 0)).toBe(false);
    expect(nestsDeeperThan(null, 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan({ a: [] }, 1)).toBe(true);
    expect(nestsDeeperThan({ a: [] }, 2)).toBe(false);
    expect(nestsDeeperThan([1, [2, [3]]], 3)).toBe(false);
    expect(nestsDeeperThan([1, [2, [3]]], 2)).toBe(true);
  });

  it("finds the deepest branch whichever member holds it", () => {
    const value = { a: 1, b: { c: "x" }, d: [{}, { e: [[{}]] }] };
    expect(nestsDeeperThan(value, 6)).toBe(false);
    expect(nestsDeeperThan(value, 5)).toBe(true);
  });

  it("crosses the limit at exactly one level past it", () => {
    expect(nestsDeeperThan(nested(32), 32)).toBe(false);
    expect(nestsDeeperThan(nested(33), 32)).toBe(true);
  });

  it("measures half a million levels without a stack overflow", () => {
    const deep = JSON.parse(`${"[".repeat(500_000)}${"]".repeat(500_000)}`);
    expect(nestsDeeperThan(deep, 32)).toBe(true);
    expect(nestsDeeperThan(deep, 500_000)).toBe(false);
  });

  it("treats a cycle as too deep, and walks a shared value again only deeper", () => {
    const cycle: { [key: string]: unknown } = {};
    cycle.self = cycle;
    expect(nestsDeeperThan(cycle, 1_000)).toBe(true);
    // Each level holds the next one twice: 2^40 paths, but 41 objects.
    let shared: unknown = {};
    for (let i = 0; i < 40; i++) shared = { left: shared, right: shared };
    expect(nestsDeeperThan(shared, 41)).toBe(false);
    expect(nestsDeeperThan(shared, 40)).toBe(true);
  });
});
