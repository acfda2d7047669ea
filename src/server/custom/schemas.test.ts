import { describe, expect, it } from "vitest";
import * as z from "zod";
import { jsonSchemaValidator } from "../../validation/json-schema.js";
import { checkFor } from "./schemas.js";

/** `levels` nested `{ child: ... }` objects around `{}`. */
function tree(levels: number): unknown {
  let value: unknown = {};
  for (let i = 0; i < levels; i++) value = { child: value };
  return value;
}

const RECURSIVE = {
  $defs: { node: { type: "object", properties: { child: { $ref: "#/$defs/node" } } } },
  $ref: "#/$defs/node",
};

type Node = { child?: Node | undefined };
const zodNode: z.ZodType<Node> = z.lazy(() => z.object({ child: zodNode.optional() }));

describe("checks of values nested deeper than the validator can walk", () => {
  it.each([
    ["a raw recursive schema (the default validator)", checkFor(RECURSIVE, undefined)],
    ["a raw recursive schema (a given validator)", checkFor(RECURSIVE, jsonSchemaValidator)],
    ["a recursive zod schema", checkFor(zodNode, undefined)],
  ])("%s: valid at 20 levels, invalid (not a throw) at 100,000", async (_name, check) => {
    expect(await check(tree(20))).toMatchObject({ ok: true });
    const deep = await check(tree(100_000));
    expect(deep).toEqual({
      ok: false,
      issues: [
        { path: "", message: "nests too deep to validate (more than 64 levels, and the validator gave up)" },
      ],
    });
  });

  it("rethrows what a validator throws on a shallow value", async () => {
    const check = checkFor({ type: "object" }, () => () => {
      throw new Error("validator bug");
    });
    expect(() => check({ a: 1 })).toThrow("validator bug");
  });
});
