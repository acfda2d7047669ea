import { joinChunks } from "../../jsonrpc/codec.js";
import { ErrorCode } from "../../jsonrpc/codes.js";
import { limitDetails, limitMessage } from "../../jsonrpc/limit-error.js";
import { refusal } from "./responses.js";

/**
 * What the pipeline reads of one HTTP request. A Web `Request` is one source ({@link webView}); a runtime adapter
 * may give its native request directly (the Node adapter does), so that no `Request`, `Headers` or body stream
 * is built for a request that does not need one.
 */
export interface RequestView {
  /** The HTTP method, as received. */
  readonly method: string;
  /** The `Host` header (`null` when absent). */
  readonly host: string | null;
  /** `http` or `https`. */
  readonly scheme: string;
  /** A header's value (repeated headers joined with `, `), `null` when absent. `name` is lowercase. */
  header(name: string): string | null;
  /** The body, counted against `maxBytes` while it arrives; throws the 413 refusal past it. Read once. */
  body(maxBytes: number): Promise<Uint8Array>;
  /** Calls `callback` once if the client goes away before the answer is complete. */
  onGone(callback: () => void): void;
  /** The Web `Request` (for the `authenticate` hook), built on first use by views over other requests. */
  request(): Request;
  /** The peer's IP address, when the runtime told it (anonymous sessions are counted per address). */
  readonly remoteAddress?: string | undefined;
  /** True for a request another instance of the cluster forwarded here: it is never forwarded again. */
  readonly forwarded?: boolean;
}

/**
 * What a runtime knows of a request beyond the Web `Request`: the second argument of an {@link HttpHandler}.
 *
 * @example
 * Bun.serve({ fetch: (request, server) => handler(request, { remoteAddress: server.requestIP(request)?.address }) });
 */
export interface HttpRequestContext {
  /** The IP address of the peer that sent the request (the socket's, not a forwarded header's). */
  readonly remoteAddress?: string | undefined;
}

/** The internal entry of a handler, for runtime adapters that build a {@link RequestView} of their own. */
export const serveView: unique symbol = Symbol("mcpkit.serveView");

/** A view of a Web `Request`, with what the runtime told of it. */
export function webView(request: Request, context?: HttpRequestContext): RequestView {
  const url = new URL(request.url);
  const headers = request.headers;
  const remoteAddress = typeof context?.remoteAddress === "string" ? context.remoteAddress : undefined;
  return {
    remoteAddress,
    method: request.method,
    host: headers.get("host") ?? url.host,
    scheme: url.protocol.replace(/:$/, ""),
    header: (name) => headers.get(name),
    body: (maxBytes) => readBody(request, maxBytes),
    onGone(callback) {
      if (request.signal.aborted) callback();
      else request.signal.addEventListener("abort", callback, { once: true });
    },
    request: () => request,
  };
}

/**
 * The 413 refusal of a body past `maxBytes` (the handler's `maxBodyBytes`); `size` is the bytes seen: the
 * declared `Content-Length`, or what streamed in up to the chunk that crossed the limit (at least that much).
 */
export function bodyTooLarge(maxBytes: number, size: number) {
  const facts = { option: "maxBodyBytes", limit: maxBytes, size };
  return refusal(
    413,
    ErrorCode.InvalidRequest,
    limitMessage("Request body too large", facts),
    limitDetails(facts),
  );
}

/** True when a declared `Content-Length` is a number over `maxBytes`. */
export function declaredTooLarge(declared: string | null | undefined, maxBytes: number): boolean {
  if (declared === null || declared === undefined) return false;
  const text = declared.trim();
  return /^\d+$/.test(text) && Number(text) > maxBytes;
}

/**
 * Reads a request body, counting bytes as they stream in: a declared `Content-Length` over `maxBytes` is
 * refused before reading, a stream that grows past it is cancelled at that chunk. Either way: `413 -32600`.
 */
async function readBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (declaredTooLarge(request.headers.get("content-length"), maxBytes)) {
    await request.body?.cancel().catch(() => {});
    throw bodyTooLarge(maxBytes, Number(request.headers.get("content-length")));
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
      throw bodyTooLarge(maxBytes, total);
    }
    chunks.push(value);
  }
  return joinChunks(chunks, total);
}
