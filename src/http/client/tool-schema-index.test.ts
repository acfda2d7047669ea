import { describe, expect, it } from "vitest";
import { ToolSchemaIndex } from "./tool-schema-index.js";

const tool = (name: string, header?: string) => ({
  name,
  inputSchema: {
    type: "object",
    properties: { v: header ? { type: "string", "x-mcp-header": header } : { type: "string" } },
  },
});

describe("ToolSchemaIndex", () => {
  it("keeps valid tools in order, drops invalid ones with the reason, remembers annotations", () => {
    const index = new ToolSchemaIndex(10);
    const bad = {
      name: "bad",
      inputSchema: { type: "object", properties: { n: { type: "number", "x-mcp-header": "N" } } },
    };
    const { tools, dropped } = index.admit([tool("a", "Region"), bad, tool("b"), "junk", { name: "c" }]);
    expect(tools).toEqual([tool("a", "Region"), tool("b"), "junk", { name: "c" }]);
    expect(dropped).toEqual([{ name: "bad", problem: expect.stringContaining("N") }]);
    expect(index.params("a")).toEqual([{ name: "Region", path: ["v"], type: "string" }]);
    expect(index.params("b")).toEqual([]);
    expect(index.params("c")).toEqual([]);
    expect(index.params("bad")).toBeUndefined();
  });

  it("forgets the least recently used tool past its capacity", () => {
    const index = new ToolSchemaIndex(2);
    index.admit([tool("a"), tool("b")]);
    index.params("a");
    index.admit([tool("c")]);
    expect(index.size).toBe(2);
    expect(index.params("b")).toBeUndefined();
    expect(index.params("a")).toEqual([]);
    expect(index.params("c")).toEqual([]);
  });

  it("a tool relisted with an invalid annotation is forgotten", () => {
    const index = new ToolSchemaIndex(2);
    index.admit([tool("a", "X")]);
    index.admit([
      {
        name: "a",
        inputSchema: { type: "object", properties: { v: { type: "object", "x-mcp-header": "X" } } },
      },
    ]);
    expect(index.params("a")).toBeUndefined();
  });
});
