import { describe, expect, it } from "vitest";
import {
  checkKeys,
  checkOptions,
  NOT_AN_OPTION,
  nonNegativeInteger,
  optionError,
  positiveInteger,
  unknownKey,
} from "./config-check.js";
import { McpkitError } from "./errors.js";

function thrown(fn: () => unknown): McpkitError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(McpkitError);
    return error as McpkitError;
  }
  throw new Error("did not throw");
}

describe("optionError", () => {
  it("names the key in the message and in details, after the prefix", () => {
    const error = optionError("maxBytes", "must be a positive integer", "http option ");
    expect(error.code).toBe("INVALID_CONFIG");
    expect(error.message).toBe("http option maxBytes must be a positive integer");
    expect(error.details).toEqual({ key: "maxBytes" });
    expect(optionError("options.x", NOT_AN_OPTION).message).toBe("options.x is not an option");
  });
});

describe("unknownKey and checkKeys", () => {
  it("find the first key not allowed by a list, a set or a test", () => {
    expect(unknownKey({ a: 1, b: 2 }, ["a", "b"])).toBeUndefined();
    expect(unknownKey({ a: 1, c: 2, d: 3 }, ["a"])).toBe("c");
    expect(unknownKey({ a: 1, c: 2 }, new Set(["a"]))).toBe("c");
    expect(unknownKey({ a: 1, c: 2 }, (key) => key === "a")).toBe("c");
  });

  it("throw the unknown key with its path, in the given scope", () => {
    expect(() => checkKeys({ a: 1 }, ["a"])).not.toThrow();
    const error = thrown(() => checkKeys({ nope: 1 }, ["a"], "server option ", "tasks."));
    expect(error.message).toBe("server option tasks.nope is not an option");
    expect(error.details).toEqual({ key: "tasks.nope" });
  });

  it("take a fault of the caller's for messages of another shape", () => {
    const fault = (key: string, problem: string) =>
      new McpkitError("INVALID_CONFIG", `buildDynamic option ${key} ${problem}`);
    const error = thrown(() => checkKeys({ x: 1 }, ["families"], fault));
    expect(error.message).toBe("buildDynamic option x is not an option");
    expect(error.details).toBeUndefined();
  });
});

describe("checkOptions", () => {
  it("returns {} for absent options and the options themselves otherwise", () => {
    expect(checkOptions(undefined, ["a"], "options")).toEqual({});
    const given = { a: 1 };
    expect(checkOptions(given, ["a"], "options")).toBe(given);
  });

  it("refuses a non-object and an unknown key, named under the key", () => {
    for (const bad of [null, 1, "x", [1]]) {
      const error = thrown(() => checkOptions(bad as unknown as object, ["a"], "options.limits"));
      expect(error.message).toBe("options.limits must be an object");
      expect(error.details).toEqual({ key: "options.limits" });
    }
    const error = thrown(() => checkOptions({ b: 1 }, ["a"], "options"));
    expect(error.message).toBe("options.b is not an option");
    expect(error.details).toEqual({ key: "options.b" });
  });
});

describe("positiveInteger", () => {
  it("returns the fallback when absent and the value when a positive safe integer", () => {
    expect(positiveInteger(undefined, 7, "k")).toBe(7);
    expect(positiveInteger(undefined, undefined, "k")).toBeUndefined();
    expect(positiveInteger(1, 7, "k")).toBe(1);
    expect(positiveInteger(Number.MAX_SAFE_INTEGER, 7, "k")).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("refuses zero, negatives, fractions, unsafe integers and non-numbers", () => {
    for (const bad of [0, -1, 1.5, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY, "3", null, true]) {
      const error = thrown(() => positiveInteger(bad, 7, "sessions.max", "http option "));
      expect(error.message).toBe("http option sessions.max must be a positive integer");
      expect(error.details).toEqual({ key: "sessions.max" });
    }
  });
});

describe("nonNegativeInteger", () => {
  it("accepts zero and returns the fallback when absent", () => {
    expect(nonNegativeInteger(0, 5, "k")).toBe(0);
    expect(nonNegativeInteger(3, 5, "k")).toBe(3);
    expect(nonNegativeInteger(undefined, 5, "k")).toBe(5);
  });

  it("refuses negatives, fractions, unsafe integers and non-numbers", () => {
    for (const bad of [-1, 0.5, 2 ** 53, Number.NaN, "0", null]) {
      const error = thrown(() => nonNegativeInteger(bad, 5, "keepAliveMs"));
      expect(error.message).toBe("keepAliveMs must be a non-negative integer");
      expect(error.details).toEqual({ key: "keepAliveMs" });
    }
  });
});
