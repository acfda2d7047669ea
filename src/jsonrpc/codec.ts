import { ErrorCode } from "./codes.js";
import { JsonRpcError, type McpkitError } from "./errors.js";
import { limitError } from "./limit-error.js";
import { isObject, type JsonRpcErrorResponse, type JsonRpcMessage, type RequestId } from "./message.js";

const encoder = new TextEncoder();

/** UTF-8 byte length of a string as `TextEncoder` encodes it (a lone surrogate as U+FFFD), without allocating. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3; // a lone surrogate encodes as U+FFFD, 3 bytes
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** True when `text` encodes to more than `limit` UTF-8 bytes. */
export function exceedsUtf8(text: string, limit: number): boolean {
  if (text.length > limit) return true;
  if (text.length * 3 <= limit) return false;
  return utf8Length(text) > limit;
}

/**
 * Checks that a parsed value is one JSON-RPC 2.0 message and returns it typed. Throws `JsonRpcError`
 * `-32600` naming what is wrong. Unknown members are kept.
 */
export function parseMessage(value: unknown): JsonRpcMessage {
  if (!isObject(value)) throw invalid("message is not a JSON object");
  if (value.jsonrpc !== "2.0") throw invalid('"jsonrpc" must be "2.0"');
  const hasId = "id" in value;
  if (hasId && !isValidId(value.id)) {
    if (!("error" in value && value.id === null)) throw invalid('"id" must be a string or an integer');
  }
  if ("method" in value) {
    if (typeof value.method !== "string" || value.method === "") throw invalid('"method" must be a string');
    if ("params" in value && !isObject(value.params)) throw invalid('"params" must be an object');
    if ("result" in value || "error" in value) throw invalid("a request cannot carry result or error");
    return value as unknown as JsonRpcMessage;
  }
  if ("result" in value) {
    if (!hasId) throw invalid('a response needs an "id"');
    if ("error" in value) throw invalid("a response cannot carry both result and error");
    if (!isObject(value.result)) throw invalid('"result" must be an object');
    return value as unknown as JsonRpcMessage;
  }
  if ("error" in value) {
    const error = value.error;
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== "string") {
      throw invalid('"error" must have an integer "code" and a string "message"');
    }
    if (value.id === null) {
      const { id: _dropped, ...rest } = value;
      return rest as unknown as JsonRpcMessage;
    }
    return value as unknown as JsonRpcMessage;
  }
  throw invalid("not a request, notification or response");
}

/**
 * Decodes one JSON-RPC message from text, bounded by `maxBytes` (UTF-8). Throws `McpkitError`
 * `MESSAGE_TOO_LARGE` over the limit (naming `option`, the caller's name for it), `JsonRpcError` `-32700` for bad
 * JSON and `-32600` for a bad shape.
 */
export function decodeMessage(
  text: string,
  maxBytes = Number.POSITIVE_INFINITY,
  option = "maxBytes",
): JsonRpcMessage {
  if (exceedsUtf8(text, maxBytes)) throw tooLargeMessage(text, maxBytes, option);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new JsonRpcError(ErrorCode.ParseError, "Parse error");
  }
  return parseMessage(value);
}

/**
 * Encodes a message to JSON text; with `maxBytes`, throws `MESSAGE_TOO_LARGE` (naming `option`, the caller's name
 * for the bound) before anything is sent.
 */
export function encodeMessage(
  message: JsonRpcMessage,
  maxBytes = Number.POSITIVE_INFINITY,
  option = "maxBytes",
): string {
  const text = JSON.stringify(message);
  if (exceedsUtf8(text, maxBytes)) throw tooLargeMessage(text, maxBytes, option);
  return text;
}

function tooLargeMessage(text: string, limit: number, option: string): McpkitError {
  return limitError("MESSAGE_TOO_LARGE", "message", { option, limit, size: utf8Length(text) });
}

/** Encodes a message to UTF-8 bytes. */
export function encodeMessageBytes(message: JsonRpcMessage): Uint8Array {
  return encoder.encode(JSON.stringify(message));
}

/**
 * The answer sent in place of a response that cannot be encoded as JSON (a `BigInt` or a cycle in a result):
 * `-32603` `Response could not be encoded` for the same id, so the peer is not left waiting for its deadline.
 */
export function unencodableResponse(id: RequestId | undefined): JsonRpcErrorResponse {
  const error = {
    code: ErrorCode.InternalError,
    message: "Response could not be encoded",
    data: { reason: "response_not_encodable" },
  };
  return id === undefined ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error };
}

/**
 * The id of a parsed value that is not a valid message but meant to be a request: a string or integer `id` on
 * an object with neither `result` nor `error` (a malformed response's id names a request of the other side,
 * which an error must not answer). `undefined` otherwise.
 */
export function requestIdOf(value: unknown): RequestId | undefined {
  if (!isObject(value) || "result" in value || "error" in value) return undefined;
  return isValidId(value.id) ? (value.id as RequestId) : undefined;
}

function isValidId(id: unknown): boolean {
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
}

function invalid(reason: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidRequest, `Invalid Request: ${reason}`);
}

/** The bytes of `chunks` in one array (the chunk itself when there is one). */
export function joinChunks(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
