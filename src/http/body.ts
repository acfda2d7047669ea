import { parseMessage } from "../jsonrpc/codec.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError } from "../jsonrpc/errors.js";
import type { JsonRpcMessage, RequestId } from "../jsonrpc/message.js";
import { isObject } from "../jsonrpc/message.js";
import { refusal } from "./responses.js";

/**
 * Reads a request body, counting bytes as they stream in: a declared `Content-Length` over `maxBytes` is
 * refused before reading, a stream that grows past it is cancelled at that chunk. Either way: `413 -32600`.
 */
export async function readBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  const tooLarge = () =>
    refusal(413, ErrorCode.InvalidRequest, "Request body too large", { limit: maxBytes });
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) {
    await request.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const body = request.body;
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

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
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
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
