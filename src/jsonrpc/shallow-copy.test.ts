import { describe, expect, it } from "vitest";
import { copyInto, shallowCopy } from "./shallow-copy.js";

describe("shallowCopy", () => {
  it("copies what a spread copies, symbols aside: own enumerable string-keyed members, in order", () => {
    const symbol = Symbol("s");
    const source: { [key: string | symbol]: unknown } = {
      b: 1,
      a: { deep: true },
      2: "two",
      [symbol]: "sym",
    };
    Object.defineProperty(source, "hidden", { value: 1, enumerable: false });
    const inherited = Object.assign(Object.create(source) as object, { own: 1 });
    const copied = shallowCopy(source);
    expect(copied).toEqual({ b: 1, a: { deep: true }, 2: "two" });
    expect(Object.keys(copied)).toEqual(Object.keys({ ...source }));
    expect(Object.getOwnPropertySymbols(copied)).toEqual([]);
    expect(shallowCopy(inherited)).toEqual({ own: 1 });
    expect(copied.a).toBe(source.a);
    expect(Object.hasOwn(copied, "hidden")).toBe(false);
    expect(shallowCopy(undefined)).toEqual({});
  });

  it("keeps a __proto__ member as an own member", () => {
    const source = JSON.parse('{"__proto__": {"polluted": true}}') as object;
    const copied = shallowCopy(source);
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.hasOwn(copied, "__proto__")).toBe(true);
    expect((copied as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("copyInto lets later sources win while keeping the first position", () => {
    const target = shallowCopy({ a: 1, b: 2 });
    copyInto(target, { b: 3, c: 4 });
    copyInto(target, undefined);
    expect(Object.entries(target)).toEqual([
      ["a", 1],
      ["b", 3],
      ["c", 4],
    ]);
  });
});
