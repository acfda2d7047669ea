import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runs } from "../../test/support/property.js";
import { decodeMessage, encodeMessage, exceedsUtf8, parseMessage, requestIdOf, utf8Length } from "./codec.js";
import { JsonRpcError, McpkitError } from "./errors.js";
import type { JsonRpcMessage } from "./message.js";

const encoder = new TextEncoder();
const bytesOf = (text: string) => encoder.encode(text).length;

/** Characters where UTF-8 lengths change (1, 2, 3 and 4 bytes), surrogate halves, and JSON's escapes. */
const edgeChar = fc.constantFrom(
  "a",
  "\u007f",
  "\u0080",
  "é",
  "\u07ff",
  "\u0800",
  "€",
  "\uffff",
  "😀",
  "\ud800",
  "\udbff",
  "\udc00",
  "\udfff",
  '"',
  "\\",
  "\n",
  "\u0000",
  "\u2028",
);
/** Any UTF-16 string, lone surrogates included, leaning on the edge characters. */
const anyString = fc.string({ unit: fc.oneof(edgeChar, fc.string({ unit: "binary", maxLength: 1 })) });

// fast-check's JSON values include -0, which JSON text cannot carry: normalised as JSON would.
const json = fc.jsonValue({ maxDepth: 4, stringUnit: "binary" }).map((v) => JSON.parse(JSON.stringify(v)));
const params = fc.dictionary(fc.string({ unit: "binary", maxLength: 8 }), json, { maxKeys: 5 });
const id = fc.oneof(anyString, fc.integer(), fc.maxSafeInteger());

/** Every kind of JSON-RPC message: request, notification, result response, error response (with and without id). */
const message: fc.Arbitrary<JsonRpcMessage> = fc.oneof(
  fc.record(
    { jsonrpc: fc.constant("2.0" as const), id, method: anyString.filter((m) => m !== ""), params },
    { requiredKeys: ["jsonrpc", "id", "method"] },
  ),
  fc.record(
    { jsonrpc: fc.constant("2.0" as const), method: anyString.filter((m) => m !== ""), params },
    { requiredKeys: ["jsonrpc", "method"] },
  ),
  fc.record({ jsonrpc: fc.constant("2.0" as const), id, result: params }),
  fc.record(
    {
      jsonrpc: fc.constant("2.0" as const),
      id,
      error: fc.record(
        { code: fc.integer(), message: anyString, data: json },
        { requiredKeys: ["code", "message"] },
      ),
    },
    { requiredKeys: ["jsonrpc", "error"] },
  ),
);

/** Only the errors the codec documents: a JSON-RPC error -32700/-32600, or `MESSAGE_TOO_LARGE`. */
function expectDocumentedError(error: unknown): void {
  if (error instanceof McpkitError) {
    expect(error.code).toBe("MESSAGE_TOO_LARGE");
    return;
  }
  expect(error).toBeInstanceOf(JsonRpcError);
  expect([-32700, -32600]).toContain((error as JsonRpcError).code);
}

describe("codec properties", () => {
  it("utf8Length is the byte length TextEncoder produces, for any string (lone surrogates count as U+FFFD)", () => {
    fc.assert(
      fc.property(anyString, fc.nat(64), (text, limit) => {
        expect(utf8Length(text)).toBe(bytesOf(text));
        expect(exceedsUtf8(text, limit)).toBe(bytesOf(text) > limit);
      }),
      runs(0x0c0dec01, 1_000),
    );
  });

  it("decode(encode(message)) is the message, for every kind of message and any JSON inside", () => {
    fc.assert(
      fc.property(message, (original) => {
        expect(decodeMessage(encodeMessage(original))).toEqual(original);
      }),
      runs(0x0c0dec02, 200),
    );
  });

  it("encode and decode refuse exactly the messages over maxBytes UTF-8 bytes, with MESSAGE_TOO_LARGE", () => {
    fc.assert(
      fc.property(message, fc.double({ min: 0, max: 2, noNaN: true }), (original, scale) => {
        const size = bytesOf(JSON.stringify(original));
        const limit = Math.floor(size * scale);
        const over = size > limit;
        const encode = () => encodeMessage(original, limit);
        const decode = () => decodeMessage(JSON.stringify(original), limit);
        for (const run of [encode, decode]) {
          if (over) expect(run).toThrow(expect.objectContaining({ code: "MESSAGE_TOO_LARGE" }));
          else expect(run).not.toThrow();
        }
      }),
      runs(0x0c0dec03, 200),
    );
  });

  it("decode of any text either returns a message or throws a documented error, and JSON is never -32700", () => {
    const text = fc.oneof(
      anyString,
      json.map((value) => JSON.stringify(value)),
      message.map((m) => JSON.stringify(m)),
      // A valid message cut short or with one character changed.
      fc
        .tuple(
          message.map((m) => JSON.stringify(m)),
          fc.nat(),
          edgeChar,
        )
        .map(([t, at, c]) => t.slice(0, at % (t.length + 1)) + c + t.slice((at % (t.length + 1)) + 1)),
    );
    fc.assert(
      fc.property(text, (input) => {
        let isJson = true;
        try {
          JSON.parse(input);
        } catch {
          isJson = false;
        }
        try {
          const decoded = decodeMessage(input);
          expect(decoded.jsonrpc).toBe("2.0");
          expect(decodeMessage(encodeMessage(decoded))).toEqual(decoded);
        } catch (error) {
          expectDocumentedError(error);
          if (isJson) expect((error as JsonRpcError).code).toBe(-32600);
          else expect((error as JsonRpcError).code).toBe(-32700);
        }
      }),
      runs(0x0c0dec04, 400),
    );
  });

  it("parseMessage sorts any object into a message or -32600, and requestIdOf never throws", () => {
    const anyId = fc.oneof(id, fc.constant(null), fc.double(), fc.boolean(), fc.object({ maxDepth: 1 }));
    const member = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
    const shape = fc
      .record({
        jsonrpc: member(fc.constantFrom<unknown>("2.0", "1.0", 2, null)),
        id: member(anyId),
        method: member(fc.oneof(anyString, fc.integer(), fc.constant(""))),
        params: member(fc.oneof(params, json)),
        result: member(fc.oneof(params, json)),
        error: member(
          fc.oneof(
            fc.record({
              code: fc.oneof(fc.integer(), fc.double()),
              message: fc.oneof(anyString, fc.integer()),
            }),
            json,
          ),
        ),
      })
      .map((record) => Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)));
    fc.assert(
      fc.property(fc.oneof(shape, json), (value) => {
        requestIdOf(value);
        try {
          const parsed = parseMessage(value);
          const kinds = ["method", "result", "error"].filter((key) => key in parsed);
          expect(kinds).toHaveLength(1);
          if ("id" in parsed) expect(["string", "number"]).toContain(typeof parsed.id);
        } catch (error) {
          expect(error).toBeInstanceOf(JsonRpcError);
          expect((error as JsonRpcError).code).toBe(-32600);
        }
      }),
      runs(0x0c0dec05, 300),
    );
  });
});
