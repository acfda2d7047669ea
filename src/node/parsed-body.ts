import type { IncomingMessage } from "node:http";
import { refusal } from "../http/server/responses.js";
import { bodyTooLarge } from "../http/server/view.js";
import { ErrorCode } from "../jsonrpc/codes.js";

/**
 * What is left of a request's body when the adapter gets the request: the stream itself (nobody read it), the
 * bytes a middleware parsed it into, or nothing usable (a middleware read the stream and kept nothing mcpkit
 * can use).
 */
export type LeftBody =
  | { readonly kind: "stream" }
  | { readonly kind: "bytes"; readonly bytes: Uint8Array }
  | { readonly kind: "json"; readonly value: unknown }
  | { readonly kind: "consumed" };

const STREAM: LeftBody = { kind: "stream" };
const CONSUMED: LeftBody = { kind: "consumed" };

/** The advice of the 500 answered for a body a middleware consumed. */
export const CONSUMED_BODY_MESSAGE =
  "Internal error: a middleware read the request body before the MCP handler and left no JSON body for it. " +
  "Mount the MCP handler before body-parsing middleware, or parse JSON bodies with express.json() " +
  "(its limit is 100kb unless set), or pass the parsed body as the listener's third argument.";

/**
 * Finds the body of `req`. A `parsed` value (the listener's third argument, as Fastify's `request.body`) wins;
 * a function there is Express's `next` and means nothing. Otherwise the stream is used while nobody has read
 * it, and once a middleware has, its `req.body`: a `Buffer` or string as the raw bytes, or a parsed JSON-RPC
 * message (a JSON Content-Type, and an object with `jsonrpc` or an array) to be encoded again.
 */
export function leftBody(req: IncomingMessage, parsed: unknown): LeftBody {
  if (parsed !== undefined && typeof parsed !== "function") return fromValue(parsed, true);
  if (!streamConsumed(req)) return STREAM;
  const body = (req as { body?: unknown }).body;
  // A parsed value stands for a JSON body only when the request said it sent JSON.
  if (!isJsonType(req.headers["content-type"]) && !(body instanceof Uint8Array) && typeof body !== "string") {
    return CONSUMED;
  }
  return fromValue(body, false);
}

/**
 * The bytes of a body a middleware parsed, checked against `maxBytes` (413) like a streamed one; the 500
 * refusal when nothing usable is left.
 */
export function parsedBytes(left: Exclude<LeftBody, { kind: "stream" }>, maxBytes: number): Uint8Array {
  if (left.kind === "consumed") throw consumedBody();
  let bytes: Uint8Array;
  if (left.kind === "bytes") {
    bytes = left.bytes;
  } else {
    let text: string | undefined;
    try {
      text = JSON.stringify(left.value);
    } catch {
      throw consumedBody();
    }
    // A value JSON cannot carry (a function, a symbol) is no body.
    if (text === undefined) throw consumedBody();
    // Checked before encoding too: a string's UTF-8 length is never less than its length in code units.
    if (text.length > maxBytes) throw bodyTooLarge(maxBytes, Buffer.byteLength(text));
    bytes = Buffer.from(text, "utf8");
  }
  if (bytes.byteLength > maxBytes) throw bodyTooLarge(maxBytes, bytes.byteLength);
  return bytes;
}

/** The 500 refusal of a body a middleware consumed: -32603 naming the cause and the fix. */
export function consumedBody() {
  return refusal(500, ErrorCode.InternalError, CONSUMED_BODY_MESSAGE, { reason: "body_consumed" });
}

/** True when someone has read the stream (some or all of it): waiting for its `end` could wait forever. */
function streamConsumed(req: IncomingMessage): boolean {
  return req.readableEnded || req.readableDidRead || req.destroyed;
}

function fromValue(value: unknown, vouched: boolean): LeftBody {
  if (value instanceof Uint8Array) return { kind: "bytes", bytes: value };
  if (typeof value === "string") return { kind: "bytes", bytes: Buffer.from(value, "utf8") };
  if (vouched || isMessageLike(value)) return { kind: "json", value };
  return CONSUMED;
}

/**
 * True for what a JSON parser makes of a JSON-RPC body: an object with a `jsonrpc` member, or an array (a batch,
 * refused later as such). Not `{}`, which body parsers leave for a type they did not parse, nor what a form
 * parser makes of JSON text (`{ '{"jsonrpc":...}': "" }`).
 */
function isMessageLike(value: unknown): boolean {
  if (Array.isArray(value)) return true;
  return typeof value === "object" && value !== null && Object.hasOwn(value, "jsonrpc");
}

/** `application/json` or any `+json` type, parameters aside. */
function isJsonType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const type = contentType.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || type.endsWith("+json");
}
