import { describe, expect, it } from "vitest";
import { promptArguments, toolArguments } from "./coerce.js";
import { UsageError } from "./exit-codes.js";

const schema = {
  type: "object",
  properties: {
    n: { type: "number" },
    i: { type: "integer" },
    on: { type: "boolean" },
    s: { type: "string" },
    list: { type: "array" },
    obj: { type: "object" },
    color: { type: "string", enum: ["red", "green"] },
    level: { enum: [1, 2, 3] },
    maybe: { type: ["integer", "null"] },
    any: {},
  },
  required: ["n"],
};

function refused(words: string[], inputSchema: { [key: string]: unknown } = schema): string {
  try {
    toolArguments("t", words, inputSchema);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error("accepted");
}

describe("toolArguments", () => {
  it("converts each value to its declared type", () => {
    expect(
      toolArguments(
        "t",
        [
          "n=-2.5",
          "i=42",
          "on=true",
          "s=a=b",
          "list=[1,2]",
          'obj={"k":null}',
          "color=red",
          "level=2",
          "maybe=null",
          "any=7",
        ],
        schema,
      ),
    ).toEqual({
      n: -2.5,
      i: 42,
      on: true,
      s: "a=b",
      list: [1, 2],
      obj: { k: null },
      color: "red",
      level: 2,
      maybe: null,
      any: 7,
    });
    // A string stays a string even when it looks like a number; a value of an untyped property that is not JSON
    // stays a string.
    expect(toolArguments("t", ["n=1", "s=007", "any=hello"], schema)).toEqual({
      n: 1,
      s: "007",
      any: "hello",
    });
    expect(toolArguments("t", ["n=1", "s="], schema)).toEqual({ n: 1, s: "" });
  });

  it("refuses what does not convert, naming the tool, the key and the value", () => {
    expect(refused(["n=abc"])).toBe('tool "t": n: "abc" is not a number');
    expect(refused(["n="])).toBe('tool "t": n: "" is not a number');
    expect(refused(["n=1", "i=1.5"])).toBe('tool "t": i: "1.5" is not an integer');
    expect(refused(["n=1", "on=yes"])).toBe('tool "t": on: "yes" is not true or false');
    expect(refused(["n=1", "list={}"])).toBe('tool "t": list: "{}" is not a JSON array');
    expect(refused(["n=1", "obj=[1]"])).toBe('tool "t": obj: "[1]" is not a JSON object');
    expect(refused(["n=1", "obj={"])).toBe('tool "t": obj: "{" is not JSON');
    expect(refused(["n=1", "color=blue"])).toBe('tool "t": color: "blue" is not one of "red", "green"');
    expect(refused(["n=1", "level=4"])).toBe('tool "t": level: "4" is not one of 1, 2, 3');
    expect(refused(["n=1", "maybe=x"])).toBe('tool "t": maybe: "x" is not an integer');
  });

  it("refuses unknown keys, missing required ones, repeats and words without =", () => {
    expect(refused(["n=1", "zzz=1"])).toContain('tool "t" has no argument "zzz" (arguments: n, i, on');
    expect(refused([])).toBe('tool "t" needs n=...');
    expect(refused(["n=1", "n=2"])).toBe('tool "t": "n" is given twice');
    expect(refused(["n"])).toBe('tool "t": "n" is not key=value');
    expect(refused(["=1"])).toBe('tool "t": "=1" is not key=value');
    expect(refused(["x=1"], { type: "object" })).toBe('tool "t" has no argument "x" (arguments: none)');
  });

  it("accepts extra keys when the schema allows additional properties", () => {
    const open = { type: "object", additionalProperties: true };
    expect(toolArguments("t", ["x=1", "y=hi"], open)).toEqual({ x: 1, y: "hi" });
  });
});

describe("promptArguments", () => {
  const declared = [{ name: "city", required: true }, { name: "state" }];

  it("passes strings through, checked against the declared arguments", () => {
    expect(promptArguments("p", ["city=Paris", "state=42"], declared)).toEqual({
      city: "Paris",
      state: "42",
    });
  });

  it("refuses unknown and missing arguments", () => {
    expect(() => promptArguments("p", ["town=x"], declared)).toThrow(
      'prompt "p" has no argument "town" (arguments: city, state)',
    );
    expect(() => promptArguments("p", ["state=x"], declared)).toThrow('prompt "p" needs city=...');
    expect(() => promptArguments("p", ["a=b"], undefined)).toThrow("(arguments: none)");
  });
});
