import { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { HttpRefusal } from "../http/server/responses.js";
import { leftBody, parsedBytes } from "./parsed-body.js";

/** A request with `contentType`, its stream ended and read when `read` (as a body parser leaves it). */
function request(contentType: string | undefined, read: boolean, body?: unknown): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  if (contentType !== undefined) req.headers["content-type"] = contentType;
  if (body !== undefined) (req as { body?: unknown }).body = body;
  req.push("{}");
  req.push(null);
  if (read) req.read();
  return req;
}

const MESSAGE = { jsonrpc: "2.0", id: 1, method: "tools/list" };
const refusalOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof HttpRefusal ? error.refusal : error;
  }
  throw new Error("expected a refusal");
};

describe("leftBody", () => {
  it("reads the stream while nobody has, whatever req.body says", () => {
    expect(leftBody(request("application/json", false, { stale: true }), undefined)).toEqual({
      kind: "stream",
    });
  });

  it("takes a parsed JSON-RPC message, a Buffer or a string once the stream was read", () => {
    expect(leftBody(request("application/json", true, MESSAGE), undefined)).toEqual({
      kind: "json",
      value: MESSAGE,
    });
    expect(
      leftBody(request("application/vnd.x+json; charset=utf-8", true, [MESSAGE]), undefined),
    ).toMatchObject({
      kind: "json",
    });
    const bytes = Buffer.from("{}");
    expect(leftBody(request("text/plain", true, bytes), undefined)).toEqual({ kind: "bytes", bytes });
    expect(leftBody(request(undefined, true, "{}"), undefined)).toEqual({
      kind: "bytes",
      bytes: Buffer.from("{}"),
    });
  });

  it.each([
    ["no body at all", "application/json", undefined],
    ["{} from a parser that did not parse", "application/json", {}],
    ["a form parser's object", "application/json", { '{"jsonrpc":"2.0"}': "" }],
    ["an object for a non-JSON type", "application/x-www-form-urlencoded", { jsonrpc: "2.0" }],
    ["a number", "application/json", 42],
  ])("a read stream with %s is consumed", (_name, type, body) => {
    expect(leftBody(request(type, true, body), undefined)).toEqual({ kind: "consumed" });
  });

  it("an explicit parsed body wins, and a function (Express's next) is not one", () => {
    const req = request("application/json", false);
    expect(leftBody(req, { any: "value" })).toEqual({ kind: "json", value: { any: "value" } });
    expect(leftBody(req, () => {})).toEqual({ kind: "stream" });
  });
});

describe("parsedBytes", () => {
  it("encodes a JSON value again, as UTF-8", () => {
    const bytes = parsedBytes({ kind: "json", value: { text: "✓" } }, 100);
    expect(Buffer.from(bytes).toString("utf8")).toBe('{"text":"✓"}');
  });

  it("refuses past maxBytes with 413, counting UTF-8 bytes of the encoded form", () => {
    const value = { text: "✓".repeat(10) }; // 41 bytes encoded, 21 characters
    expect(parsedBytes({ kind: "json", value }, 41).byteLength).toBe(41);
    expect(refusalOf(() => parsedBytes({ kind: "json", value }, 40))).toMatchObject({
      status: 413,
      code: -32600,
      data: { limit: 40 },
    });
    expect(refusalOf(() => parsedBytes({ kind: "bytes", bytes: new Uint8Array(11) }, 10))).toMatchObject({
      status: 413,
    });
  });

  it("answers 500 -32603 with the advice for a consumed body or a value JSON cannot carry", () => {
    for (const left of [{ kind: "consumed" }, { kind: "json", value: () => {} }] as const) {
      expect(refusalOf(() => parsedBytes(left, 100))).toMatchObject({
        status: 500,
        code: -32603,
        message: expect.stringContaining("Mount the MCP handler before body-parsing middleware"),
        data: { reason: "body_consumed" },
      });
    }
  });
});
