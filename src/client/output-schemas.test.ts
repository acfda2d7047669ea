import { describe, expect, it } from "vitest";
import { McpkitError } from "../jsonrpc/errors.js";
import type { JsonValue } from "../jsonrpc/message.js";
import { OutputSchemas } from "./output-schemas.js";

function tree(levels: number): JsonValue {
  let value: JsonValue = {};
  for (let i = 0; i < levels; i++) value = { child: value };
  return value;
}

const RECURSIVE = {
  type: "object",
  $defs: { node: { type: "object", properties: { child: { $ref: "#/$defs/node" } } } },
  $ref: "#/$defs/node",
};

describe("OutputSchemas", () => {
  it("rejects structuredContent nested too deep for the validator with INVALID_RESULT, not a RangeError", async () => {
    const schemas = new OutputSchemas(undefined);
    schemas.remember([{ name: "tree", inputSchema: { type: "object" }, outputSchema: RECURSIVE }]);
    await expect(
      schemas.check("tree", { content: [], structuredContent: tree(20) }),
    ).resolves.toBeUndefined();
    const error = await schemas
      .check("tree", { content: [], structuredContent: tree(100_000) })
      .catch((e) => e);
    expect(error).toBeInstanceOf(McpkitError);
    expect(error).toMatchObject({ code: "INVALID_RESULT" });
    expect((error as Error).message).toMatch(/\(root\): nests too deep to validate/);
  });
});
