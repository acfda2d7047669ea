import { describe, expect, it } from "vitest";
import { immutableJson, jsonCopy } from "./json-copy.js";

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value) as string);

/** Same value as the JSON round trip, key order included, and no object shared with the input. */
function expectSameAsRoundTrip(value: unknown): unknown {
  const copied = jsonCopy(value);
  expect(JSON.stringify(copied)).toBe(JSON.stringify(roundTrip(value)));
  expect(copied).toStrictEqual(roundTrip(value));
  return copied;
}

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
  get sum(): number {
    return this.x + this.y;
  }
}

describe("jsonCopy", () => {
  it("copies a JSON-RPC message deeply: nothing is shared", () => {
    const message = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "add", arguments: { a: 1, list: [1, "two", { three: 3 }] }, _meta: { k: "v" } },
    };
    const copied = expectSameAsRoundTrip(message) as typeof message;
    expect(copied).not.toBe(message);
    expect(copied.params).not.toBe(message.params);
    expect(copied.params.arguments.list).not.toBe(message.params.arguments.list);
    expect(copied.params.arguments.list[2]).not.toBe(message.params.arguments.list[2]);
    copied.params.arguments.a = 99;
    expect(message.params.arguments.a).toBe(1);
  });

  it("drops undefined members and turns undefined, functions and symbols in arrays into null", () => {
    const copied = expectSameAsRoundTrip({
      kept: 1,
      gone: undefined,
      fn: () => 1,
      sym: Symbol("s"),
      list: [undefined, () => 1, Symbol("s"), 2],
    });
    expect(copied).toEqual({ kept: 1, list: [null, null, null, 2] });
    expect(Object.keys(copied as object)).toEqual(["kept", "list"]);
  });

  it("turns non-finite numbers into null and -0 into 0", () => {
    const copied = expectSameAsRoundTrip({
      nan: Number.NaN,
      inf: Infinity,
      ninf: -Infinity,
      zero: -0,
      list: [-0, NaN],
    });
    expect(copied).toEqual({ nan: null, inf: null, ninf: null, zero: 0, list: [0, null] });
    expect(Object.is((copied as { zero: number }).zero, 0)).toBe(true);
  });

  it("honours toJSON, with the member's key, in objects, arrays and at the top", () => {
    const keys: string[] = [];
    const tagged = (tag: string) => ({
      toJSON(key: string) {
        keys.push(key);
        return { tag, key };
      },
    });
    expectSameAsRoundTrip({ a: tagged("a"), list: [tagged("l")], date: new Date(0) });
    expect(keys).toEqual(["a", "0", "a", "0", "a", "0"]);
    expect(jsonCopy(tagged("top"))).toEqual({ tag: "top", key: "" });
    expect(jsonCopy({ skip: { toJSON: () => undefined }, list: [{ toJSON: () => undefined }] })).toEqual({
      list: [null],
    });
  });

  it("honours a toJSON that every object inherits, and an array's own toJSON", () => {
    const list = Object.assign([1, 2], { toJSON: () => "list" });
    expectSameAsRoundTrip({ list });
    Object.defineProperty(Object.prototype, "toJSON", {
      value: () => "inherited",
      configurable: true,
      writable: true,
    });
    try {
      expect(jsonCopy({ a: { b: 1 } })).toBe("inherited");
    } finally {
      delete (Object.prototype as { toJSON?: unknown }).toJSON;
    }
    expect(jsonCopy({ a: { b: 1 } })).toEqual({ a: { b: 1 } });
  });

  it("copies class instances, boxed primitives, maps and sparse arrays as JSON does", () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    const sparse = [1, , 3];
    const copied = expectSameAsRoundTrip({
      point: new Point(1, 2),
      boxed: [new String("s"), new Number(2), new Boolean(false)],
      map: new Map([[1, 2]]),
      sparse,
      nullProto: Object.assign(Object.create(null), { a: 1 }),
      regexp: /x/,
    });
    expect((copied as { point: unknown }).point).toEqual({ x: 1, y: 2 });
    expect(Object.getPrototypeOf((copied as { point: unknown }).point)).toBe(Object.prototype);
  });

  it("keeps a __proto__ member as an own member, never as the prototype", () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as { [key: string]: unknown };
    const copied = expectSameAsRoundTrip(value) as { [key: string]: unknown };
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.hasOwn(copied, "__proto__")).toBe(true);
    expect(copied.polluted).toBeUndefined();
  });

  it("keeps the member order of JSON, integer-like keys first", () => {
    const copied = expectSameAsRoundTrip({ b: 1, 2: "two", a: 2, 1: "one" });
    expect(Object.keys(copied as object)).toEqual(["1", "2", "b", "a"]);
  });

  it("ignores symbol keys and non-enumerable members, and reads getters once", () => {
    let reads = 0;
    const value = { [Symbol("s")]: 1, plain: 1 } as { [key: string]: unknown };
    Object.defineProperty(value, "hidden", { value: 2, enumerable: false });
    Object.defineProperty(value, "got", {
      get: () => {
        reads++;
        return { deep: reads };
      },
      enumerable: true,
    });
    expect(jsonCopy(value)).toEqual({ plain: 1, got: { deep: 1 } });
    expect(reads).toBe(1);
  });

  it("rejects a cycle and a BigInt as JSON.stringify does", () => {
    const cyclic: { [key: string]: unknown } = { a: 1 };
    cyclic.self = { back: cyclic };
    expect(() => jsonCopy(cyclic)).toThrow(TypeError);
    expect(() => jsonCopy(cyclic)).toThrow(/circular/i);
    expect(() => jsonCopy({ big: 1n })).toThrow(TypeError);
    expect(() => jsonCopy({ list: [1n] })).toThrow(/BigInt/);
  });

  it("copies structures deeper than its fast path through the round trip", () => {
    let deep: unknown = { leaf: [1, undefined] };
    for (let i = 0; i < 200; i++) deep = i % 2 === 0 ? { next: deep } : [deep];
    expectSameAsRoundTrip(deep);
  });

  it("copies top-level primitives and throws where JSON.parse of undefined would", () => {
    expect(jsonCopy("s")).toBe("s");
    expect(jsonCopy(Number.NaN)).toBeNull();
    expect(jsonCopy(null)).toBeNull();
    expect(() => jsonCopy(undefined)).toThrow(SyntaxError);
  });

  it("propagates what a getter or toJSON throws", () => {
    const broken = {
      get bad(): never {
        throw new Error("getter");
      },
    };
    expect(() => jsonCopy(broken)).toThrow("getter");
    expect(() =>
      jsonCopy({
        a: {
          toJSON() {
            throw new Error("toJSON");
          },
        },
      }),
    ).toThrow("toJSON");
  });

  it("shares what immutableJson made, and copies every other object, frozen or not", () => {
    const source = { info: { name: "me", list: [1, { deep: true }] }, skip: undefined };
    const shared = immutableJson(source);
    expect(shared).toEqual({ info: { name: "me", list: [1, { deep: true }] } });
    expect(shared.info).not.toBe(source.info);
    expect(Object.isFrozen(shared) && Object.isFrozen(shared.info.list[1])).toBe(true);
    expect(() => {
      (shared.info as { name: string }).name = "changed";
    }).toThrow(TypeError);

    const message = { params: { _meta: shared, own: { a: 1 } } };
    const copied = jsonCopy(message);
    expect(copied.params._meta).toBe(shared);
    expect(copied.params.own).not.toBe(message.params.own);
    expect(jsonCopy(shared.info)).toBe(shared.info);

    const frozen = Object.freeze({ a: Object.freeze({ b: 1 }) });
    expect(jsonCopy(frozen)).not.toBe(frozen);
    expect(jsonCopy(frozen).a).not.toBe(frozen.a);
  });
});
