import { describe, expect, it } from "vitest";
import { decodeMessage, encodeMessage, exceedsUtf8, utf8Length } from "./codec.js";
import { JsonRpcError, McpkitError } from "./errors.js";

function decodeError(text: string, limit?: number): unknown {
  try {
    decodeMessage(text, limit);
  } catch (error) {
    return error;
  }
  throw new Error(`decoded ${text}`);
}

describe("decodeMessage", () => {
  it("decodes each message kind and keeps unknown members", () => {
    const request = decodeMessage('{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1},"x-extra":true}');
    expect(request).toEqual({ jsonrpc: "2.0", id: 1, method: "x", params: { a: 1 }, "x-extra": true });
    expect(decodeMessage('{"jsonrpc":"2.0","method":"n"}')).toEqual({ jsonrpc: "2.0", method: "n" });
    expect(decodeMessage('{"jsonrpc":"2.0","id":"a","result":{"v":null}}')).toEqual({
      jsonrpc: "2.0",
      id: "a",
      result: { v: null },
    });
  });

  it("drops a null id from an error response", () => {
    expect(
      decodeMessage('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'),
    ).toEqual({
      jsonrpc: "2.0",
      error: { code: -32700, message: "Parse error" },
    });
  });

  it("answers bad JSON with -32700", () => {
    expect(decodeError("{nope")).toMatchObject({ code: -32700 });
    expect(decodeError("\u0000\u00ff garbage")).toBeInstanceOf(JsonRpcError);
  });

  it.each([
    ["an array", "[]"],
    ["a string", '"hello"'],
    ["null", "null"],
    ["a wrong version", '{"jsonrpc":"1.0","id":1,"method":"x"}'],
    ["a float id", '{"jsonrpc":"2.0","id":1.5,"method":"x"}'],
    ["a null request id", '{"jsonrpc":"2.0","id":null,"method":"x"}'],
    ["array params", '{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}'],
    ["a non-object result", '{"jsonrpc":"2.0","id":1,"result":5}'],
    ["result and error", '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}'],
    ["a bad error object", '{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}'],
    ["nothing recognizable", '{"jsonrpc":"2.0","id":1}'],
  ])("answers %s with -32600", (_label, text) => {
    expect(decodeError(text)).toMatchObject({ code: -32600 });
  });

  it("refuses a message over the byte limit before parsing it", () => {
    const text = JSON.stringify({ jsonrpc: "2.0", method: "n", params: { s: "é".repeat(60) } });
    const error = decodeError(text, 100);
    expect(error).toBeInstanceOf(McpkitError);
    expect(error).toMatchObject({ code: "MESSAGE_TOO_LARGE", details: { limit: 100 } });
    expect(decodeMessage(text, utf8Length(text))).toMatchObject({ method: "n" });
  });
});

describe("byte counting", () => {
  it("counts UTF-8 bytes exactly", () => {
    for (const text of ["", "abc", "é", "€", "😀", "a😀é€", "\ud800"]) {
      expect(utf8Length(text), text).toBe(new TextEncoder().encode(text).length);
    }
    expect(exceedsUtf8("😀", 3)).toBe(true);
    expect(exceedsUtf8("😀", 4)).toBe(false);
  });

  it("counts a high surrogate that no low surrogate follows as U+FFFD (3 bytes), not as half of a pair", () => {
    // Found by the codec property test: the character after a lone high surrogate was skipped as its pair.
    for (const text of ["\udbff ", "\ud800é", "\ud800€", "\ud800\ud800", "x\udbff😀"]) {
      expect(utf8Length(text), JSON.stringify(text)).toBe(new TextEncoder().encode(text).length);
    }
    expect(exceedsUtf8("\ud800€".repeat(2), 10)).toBe(true);
  });

  it("refuses to encode a message over the limit", () => {
    expect(() => encodeMessage({ jsonrpc: "2.0", method: "x".repeat(50) }, 20)).toThrow(McpkitError);
  });
});

describe("error classes", () => {
  it("keeps absent data absent and null data null", () => {
    expect(new JsonRpcError(-1, "m").toJSON()).toEqual({ code: -1, message: "m" });
    expect(new JsonRpcError(-1, "m", null).toJSON()).toEqual({ code: -1, message: "m", data: null });
    expect(JsonRpcError.fromWire({ code: 2, message: "m" }).hasData).toBe(false);
    expect(JsonRpcError.fromWire({ code: 2, message: "m", data: undefined }).hasData).toBe(true);
  });

  it("recognizes instances from another copy of the package", () => {
    const foreign = { [Symbol.for("mcpkit.McpkitError")]: true, code: "CLOSED" };
    expect(foreign instanceof McpkitError).toBe(true);
    expect({} instanceof McpkitError).toBe(false);
    expect(new McpkitError("TIMEOUT", "t") instanceof JsonRpcError).toBe(false);
  });
});
