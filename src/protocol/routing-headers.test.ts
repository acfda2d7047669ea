import { describe, expect, it } from "vitest";
import {
  decodeHeaderValue,
  encodeHeaderValue,
  headerParamMatches,
  headerParamsOf,
  headerParamValue,
  renderHeaderParam,
  routedName,
  routingHeaders,
} from "./routing-headers.js";

describe("the base64 sentinel", () => {
  it("sends safe ASCII as it is and everything else as =?base64?…?=", () => {
    expect(encodeHeaderValue("get_weather")).toBe("get_weather");
    expect(encodeHeaderValue("a b/c:d")).toBe("a b/c:d");
    expect(encodeHeaderValue("Hello")).toBe("Hello");
    expect(encodeHeaderValue("café")).toBe("=?base64?Y2Fmw6k=?=");
    expect(encodeHeaderValue(" padded")).toBe("=?base64?IHBhZGRlZA==?=");
    expect(encodeHeaderValue("trailing ")).toBe("=?base64?dHJhaWxpbmcg?=");
    expect(encodeHeaderValue("line\nbreak")).toBe("=?base64?bGluZQpicmVhaw==?=");
    expect(encodeHeaderValue("tab\there")).toBe("=?base64?dGFiCWhlcmU=?=");
    expect(encodeHeaderValue("")).toBe("=?base64??=");
    expect(encodeHeaderValue("日本")).toBe("=?base64?5pel5pys?=");
  });

  it("encodes a literal that already looks like the sentinel", () => {
    const literal = "=?base64?SGVsbG8=?=";
    const sent = encodeHeaderValue(literal);
    expect(sent).not.toBe(literal);
    expect(sent.startsWith("=?base64?")).toBe(true);
    expect(decodeHeaderValue(sent)).toBe(literal);
  });

  it("round-trips any string", () => {
    for (const value of [
      "x",
      "",
      " ",
      "é",
      "😀 emoji",
      "=?base64?",
      "?=",
      "=?base64??=",
      "a\u0000b",
      "\u007f",
    ]) {
      expect(decodeHeaderValue(encodeHeaderValue(value)), JSON.stringify(value)).toBe(value);
    }
  });

  it("keeps a leading U+FEFF through the round trip (a BOM is part of the value, not a marker)", () => {
    // Found by the routing-header property test: the decoder dropped it, so Mcp-Name no longer matched the body.
    for (const value of ["\ufeff", "\ufeffx", "\ufeff\ufeffweather"]) {
      expect(decodeHeaderValue(encodeHeaderValue(value)), JSON.stringify(value)).toBe(value);
    }
    expect(decodeHeaderValue("=?base64?77u/eA==?=")).toBe("\ufeffx");
  });

  it("decodes valid base64 and takes a value without the whole sentinel as a literal", () => {
    expect(decodeHeaderValue("=?base64?SGVsbG8=?=")).toBe("Hello");
    expect(decodeHeaderValue("SGVsbG8=")).toBe("SGVsbG8=");
    expect(decodeHeaderValue("=?base64?SGVsbG8=")).toBe("=?base64?SGVsbG8=");
    expect(decodeHeaderValue("base64?SGVsbG8=?=")).toBe("base64?SGVsbG8=?=");
    // The markers are case-sensitive.
    expect(decodeHeaderValue("=?BASE64?SGVsbG8=?=")).toBe("=?BASE64?SGVsbG8=?=");
    expect(decodeHeaderValue("  spaced  ")).toBe("spaced");
  });

  it.each([
    ["missing padding", "=?base64?SGVsbG8?="],
    ["non-alphabet characters", "=?base64?SGVs!!!bG8=?="],
    ["padding in the middle", "=?base64?SG=sbG8=?="],
    ["three padding characters", "=?base64?SGV===?="],
    ["url-safe alphabet", "=?base64?_-8=?="],
    ["invalid UTF-8", "=?base64?/w==?="],
  ])("refuses %s as undecodable", (_label, value) => {
    expect(decodeHeaderValue(value)).toBeUndefined();
  });
});

describe("Mcp-Name", () => {
  it("routes params.name or params.uri for the three named methods only", () => {
    expect(routedName("tools/call", { name: "add" })).toBe("add");
    expect(routedName("prompts/get", { name: "greet" })).toBe("greet");
    expect(routedName("resources/read", { uri: "test://x" })).toBe("test://x");
    expect(routedName("tools/list", { name: "add" })).toBeUndefined();
    expect(routedName("tools/call", { name: 5 })).toBeUndefined();
    expect(routedName("tools/call", undefined)).toBeUndefined();
  });
});

describe("x-mcp-header annotations", () => {
  const schema = {
    type: "object",
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      count: { type: "integer", "x-mcp-header": "Count" },
      dry: { type: "boolean", "x-mcp-header": "Dry-Run" },
      nested: { type: "object", properties: { id: { type: "string", "x-mcp-header": "Tenant" } } },
      plain: { type: "string" },
    },
  };

  it("collects the annotations reached through properties", () => {
    const result = headerParamsOf(schema);
    expect(result).toEqual({
      ok: true,
      params: [
        { name: "Region", path: ["region"], type: "string" },
        { name: "Count", path: ["count"], type: "integer" },
        { name: "Dry-Run", path: ["dry"], type: "boolean" },
        { name: "Tenant", path: ["nested", "id"], type: "string" },
      ],
    });
    expect(headerParamsOf({ type: "object" })).toEqual({ ok: true, params: [] });
  });

  it.each([
    ["a number property", { properties: { n: { type: "number", "x-mcp-header": "N" } } }],
    ["an object property", { properties: { o: { type: "object", "x-mcp-header": "O" } } }],
    ["a property without a type", { properties: { o: { "x-mcp-header": "O" } } }],
    ["a name with a space", { properties: { s: { type: "string", "x-mcp-header": "Bad Name" } } }],
    ["an empty name", { properties: { s: { type: "string", "x-mcp-header": "" } } }],
    ["a name with CR/LF", { properties: { s: { type: "string", "x-mcp-header": "A\r\nB" } } }],
    ["a non-string name", { properties: { s: { type: "string", "x-mcp-header": 7 } } }],
    [
      "a duplicate name in another case",
      {
        properties: {
          a: { type: "string", "x-mcp-header": "Region" },
          b: { type: "string", "x-mcp-header": "region" },
        },
      },
    ],
    ["the root", { type: "object", "x-mcp-header": "Root" }],
    [
      "under items",
      { properties: { list: { type: "array", items: { type: "string", "x-mcp-header": "I" } } } },
    ],
    ["under anyOf", { anyOf: [{ properties: { a: { type: "string", "x-mcp-header": "A" } } }] }],
    // Built with JSON.parse: a literal `then` key reads as a thenable to the linter.
    [
      "under if/then",
      JSON.parse('{"if":{},"then":{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}}'),
    ],
    ["under $defs", { $defs: { d: { type: "string", "x-mcp-header": "D" } } }],
    [
      "under additionalProperties",
      { additionalProperties: { properties: { a: { type: "string", "x-mcp-header": "A" } } } },
    ],
  ])("refuses an annotation on %s", (_label, body) => {
    const result = headerParamsOf({ type: "object", ...body });
    expect(result.ok).toBe(false);
  });

  it("bounds the walk of a deeply nested schema", () => {
    let deep: { [key: string]: unknown } = { type: "string" };
    for (let i = 0; i < 100; i++) deep = { type: "object", properties: { p: deep } };
    expect(headerParamsOf(deep)).toMatchObject({ ok: false, problem: expect.stringContaining("deeper") });
  });

  it("bounds the walk through nested arrays too, with a problem instead of a stack overflow", () => {
    // Found by the x-mcp-header property test: arrays skipped the depth check, so a deep enough one overflowed.
    let deep: unknown = { type: "string" };
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const result = headerParamsOf({ type: "object", properties: { p: { type: "string", allOf: deep } } });
    expect(result).toMatchObject({ ok: false, problem: expect.stringContaining("deeper") });
  });

  it("renders and compares values: strings and booleans exactly, integers numerically", () => {
    expect(renderHeaderParam("x")).toBe("x");
    expect(renderHeaderParam(42)).toBe("42");
    expect(renderHeaderParam(-7)).toBe("-7");
    expect(renderHeaderParam(true)).toBe("true");
    expect(renderHeaderParam(false)).toBe("false");
    for (const none of [null, undefined, 1.5, 2 ** 53, {}, []])
      expect(renderHeaderParam(none)).toBeUndefined();
    expect(headerParamMatches("42", 42)).toBe(true);
    expect(headerParamMatches("042", 42)).toBe(true);
    expect(headerParamMatches("+42", 42)).toBe(true);
    expect(headerParamMatches("42.0", 42)).toBe(false);
    expect(headerParamMatches("4e1", 40)).toBe(false);
    expect(headerParamMatches("true", true)).toBe(true);
    expect(headerParamMatches("True", true)).toBe(false);
    expect(headerParamMatches("eu", "eu")).toBe(true);
    expect(headerParamMatches("EU", "eu")).toBe(false);
  });

  it("builds a client's routing headers, leaving out absent and null arguments", () => {
    const result = headerParamsOf(schema);
    if (!result.ok) throw new Error(result.problem);
    const params = {
      name: "deploy",
      arguments: { region: "münchen", count: 3, dry: null, nested: { id: "t1" } },
    };
    expect(
      headerParamValue(params.arguments, result.params[3] ?? { name: "", path: [], type: "string" }),
    ).toBe("t1");
    expect(routingHeaders({ method: "tools/call", params }, "2026-07-28", result.params)).toEqual({
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/call",
      "Mcp-Name": "deploy",
      "Mcp-Param-Region": "=?base64?bcO8bmNoZW4=?=",
      "Mcp-Param-Count": "3",
      "Mcp-Param-Tenant": "t1",
    });
    expect(routingHeaders({ method: "tools/list" }, "2026-07-28")).toEqual({
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/list",
    });
  });
});
