import { parseMessage } from "../../jsonrpc/codec.js";
import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import type { JsonRpcMessage, RequestId } from "../../jsonrpc/message.js";
import { isObject } from "../../jsonrpc/message.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A decoded body: the message, or the refusal to send, with the request id when one could be read. */
export type Decoded =
  | { readonly ok: true; readonly message: JsonRpcMessage }
  | { readonly ok: false; readonly error: JsonRpcError; readonly id: RequestId | undefined };

/**
 * Decodes one JSON-RPC message: bad UTF-8 or JSON is `-32700`; a batch, a non-object or a malformed message is
 * `-32600` (the id is kept when the body had a usable one, so the error can carry it).
 */
export function decodeBody(bytes: Uint8Array): Decoded {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch {
    return { ok: false, error: new JsonRpcError(ErrorCode.ParseError, "Parse error"), id: undefined };
  }
  if (Array.isArray(value)) {
    const error = new JsonRpcError(ErrorCode.InvalidRequest, "Invalid Request: batches are not supported");
    return { ok: false, error, id: undefined };
  }
  try {
    return { ok: true, message: parseMessage(value) };
  } catch (error) {
    const id = isObject(value) ? value.id : undefined;
    const usable = typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
    return {
      ok: false,
      error:
        error instanceof JsonRpcError ? error : new JsonRpcError(ErrorCode.InvalidRequest, "Invalid Request"),
      id: usable ? (id as RequestId) : undefined,
    };
  }
}
