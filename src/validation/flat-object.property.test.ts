import { Validator } from "@cfworker/json-schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { flatObjectCheck } from "./flat-object.js";
import { jsonSchemaValidator } from "./json-schema.js";

const scalarType = fc.constantFrom("string", "number", "integer", "boolean", "null");
const propertySchema = fc.oneof(
  fc.record({ type: scalarType }),
  fc.record({ type: scalarType, description: fc.string() }),
  fc.constant({}),
  fc.constant(true),
);
const names = fc.constantFrom("a", "b", "c", "d", "__proto__", "constructor", "x/y", "~");
const flatSchema = fc.record(
  {
    type: fc.constant("object"),
    properties: fc.dictionary(names, propertySchema, { maxKeys: 4 }),
    required: fc.uniqueArray(names, { maxLength: 3 }),
    additionalProperties: fc.boolean(),
    title: fc.string(),
  },
  { requiredKeys: ["type"] },
);
const scalar = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(2 ** 60),
);
const value = fc.oneof(
  fc.dictionary(names, fc.oneof(scalar, fc.array(scalar, { maxLength: 2 })), { maxKeys: 5 }),
  scalar,
  fc.array(scalar, { maxLength: 2 }),
);

describe("flatObjectCheck", () => {
  it("accepts only what @cfworker/json-schema accepts", () => {
    fc.assert(
      fc.property(flatSchema, value, (schema, instance) => {
        const quick = flatObjectCheck(schema);
        expect(quick).toBeDefined();
        if (quick?.(instance)) {
          expect(new Validator(schema as never, "2020-12", false).validate(instance).valid).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("recognises the ordinary valid values itself", () => {
    const quick = flatObjectCheck({
      type: "object",
      title: "ordinary",
      properties: {
        s: { type: "string", description: "text" },
        n: { type: "number" },
        i: { type: "integer" },
        b: { type: "boolean" },
        z: { type: "null" },
        any: {},
      },
      required: ["s", "n"],
      additionalProperties: false,
    });
    for (const ok of [
      { s: "", n: 0 },
      { s: "x", n: -1.5, i: 3, b: false, z: null, any: [1, { deep: true }] },
      { s: "\u2603", n: 1e300, i: -(2 ** 53 - 1) },
      JSON.parse('{"s":"a","n":2,"i":4}'),
    ]) {
      expect(quick?.(ok)).toBe(true);
    }
    for (const not of [{ n: 1 }, { s: "x", n: 1, extra: 1 }, { s: "x", n: "1" }, [], null, "x"]) {
      expect(quick?.(not)).toBe(false);
    }
  });

  it("stands aside for every schema outside the flat subset", () => {
    const outside = [
      { type: "object", properties: { a: { type: "number", minimum: 0 } } },
      { type: "object", properties: { a: { type: ["number", "string"] } } },
      { type: "object", properties: { a: { type: "object" } } },
      { type: "object", properties: { a: { $ref: "#/$defs/x" } }, $defs: { x: {} } },
      { type: "object", properties: { a: false } },
      { type: "object", additionalProperties: { type: "string" } },
      { type: "object", patternProperties: { "^a": { type: "string" } } },
      { type: "object", required: "a" },
      { properties: { a: { type: "number" } } },
      { type: "array" },
      true,
      null,
    ];
    for (const schema of outside) expect(flatObjectCheck(schema)).toBeUndefined();
  });

  it("leaves the errors of an invalid value to the full validator", () => {
    const check = jsonSchemaValidator({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "integer" } },
      required: ["a", "b"],
      additionalProperties: false,
    });
    expect(check({ a: 1, b: 2 })).toEqual([]);
    expect(check({ a: "1", b: 2.5, c: true })).toEqual([
      { path: "/a", message: "expected number, got string" },
      { path: "/b", message: "expected integer, got number" },
      { path: "/c", message: "unexpected property" },
    ]);
    expect(check({ a: 1 })).toEqual([{ path: "/b", message: "required" }]);
  });
});
