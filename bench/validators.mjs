/**
 * Measures raw JSON Schema validators on the bench's `add` schema and a richer 2020-12 schema: validations per
 * second of a valid and of an invalid value (all errors collected), and zod 4 on the same `add` for reference.
 * `node bench/validators.mjs` (docs/performance.md, "Validation").
 */
import { Validator } from "@cfworker/json-schema";
import { validator as schemasafe } from "@exodus/schemasafe";
import Ajv2020 from "ajv/dist/2020.js";
import * as z from "zod";

const ADD = {
  type: "object",
  properties: { a: { type: "number" }, b: { type: "number" } },
  required: ["a", "b"],
};
const RICH = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { tag: { type: "string", minLength: 1, maxLength: 32 } },
  properties: {
    id: { type: "string", pattern: "^[a-z]+-[0-9]+$" },
    count: { type: "integer", minimum: 0, maximum: 1000 },
    mode: { enum: ["fast", "slow"] },
    tags: { type: "array", items: { $ref: "#/$defs/tag" }, maxItems: 10 },
    point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false },
    owner: {
      type: "object",
      properties: { name: { type: "string" }, email: { type: "string", format: "email" } },
      required: ["name"],
      additionalProperties: false,
    },
  },
  required: ["id", "count", "mode"],
  unevaluatedProperties: false,
};
const cases = {
  add: { schema: ADD, valid: { a: 1, b: 2 }, invalid: { a: "1" } },
  rich: {
    schema: RICH,
    valid: {
      id: "ab-12",
      count: 3,
      mode: "fast",
      tags: ["x", "y"],
      point: [1, 2],
      owner: { name: "n", email: "a@b.co" },
    },
    invalid: {
      id: "AB",
      count: -1,
      mode: "x",
      tags: [""],
      point: [1, "2", 3],
      owner: { mail: 1 },
      extra: true,
    },
  },
};
const impls = {
  "@cfworker/json-schema": (schema) => {
    const v = new Validator(schema, "2020-12", false);
    return (value) => v.validate(value).valid;
  },
  "ajv (2020, compiled)": (schema) => {
    const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
    const f = ajv.compile(schema);
    return (value) => f(value);
  },
  "@exodus/schemasafe (compiled)": (schema) => {
    const f = schemasafe(schema, {
      allErrors: true,
      includeErrors: true,
      mode: "default",
      formats: { email: (s) => s.includes("@") },
    });
    return (value) => f(value);
  },
};
const ZOD_ADD = z.object({ a: z.number(), b: z.number() });
function zodCheck(value) {
  return ZOD_ADD["~standard"].validate(value).issues === undefined;
}

/** Validations per second over 300 ms; every verdict is used, so that no call can be optimized away. */
function rate(fn, value) {
  const deadline = performance.now() + 300;
  let n = 0;
  let valid = 0;
  while (performance.now() < deadline) {
    for (let i = 0; i < 1000; i++, n++) if (fn(value) === true) valid++;
  }
  if (valid !== 0 && valid !== n) throw new Error("inconsistent verdicts");
  return Math.round(n / 0.3);
}

for (const [name, make] of Object.entries(impls)) {
  for (const [label, c] of Object.entries(cases)) {
    let fn;
    try {
      fn = make(c.schema);
    } catch (error) {
      console.log(`${name} ${label}: cannot compile (${error.message})`);
      continue;
    }
    if (fn(c.valid) !== true || fn(c.invalid) !== false) console.log(`${name} ${label}: WRONG verdict`);
    rate(fn, c.valid);
    console.log(
      `${name} ${label}: valid ${rate(fn, c.valid).toLocaleString("en")}/s, invalid ${rate(fn, c.invalid).toLocaleString("en")}/s`,
    );
  }
}
rate(zodCheck, cases.add.valid);
console.log(
  `zod 4 (~standard.validate) add: valid ${rate(zodCheck, cases.add.valid).toLocaleString("en")}/s, invalid ${rate(zodCheck, cases.add.invalid).toLocaleString("en")}/s`,
);
