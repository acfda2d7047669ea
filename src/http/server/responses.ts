import { exceedsUtf8 } from "../../jsonrpc/codec.js";
import { ErrorCode } from "../../jsonrpc/codes.js";
import type { JsonRpcErrorResponse, JsonRpcResponse, RequestId } from "../../jsonrpc/message.js";
import type { Answer } from "./answer.js";

/** The status, JSON-RPC code and message of a request the pipeline refuses before dispatch. */
export interface Refusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** Thrown inside the pipeline to answer with a JSON-RPC error before dispatch. */
export class HttpRefusal extends Error {
  constructor(
    readonly refusal: Refusal,
    /** A ready response to send instead (the `authenticate` hook refused with its own). */
    readonly response?: Answer,
  ) {
    super(refusal.message);
    this.name = "HttpRefusal";
  }
}

/** Builds a refusal; `data` is left out when `undefined`. */
export function refusal(status: number, code: number, message: string, data?: unknown): HttpRefusal {
  return new HttpRefusal(data === undefined ? { status, code, message } : { status, code, message, data });
}

/** `400 -32020`: a routing header is missing, undecodable or does not match the body. */
export function headerMismatch(message: string, header: string): HttpRefusal {
  return refusal(400, ErrorCode.HeaderMismatch, `Header mismatch: ${message}`, { header });
}

/** The JSON-RPC error response of a refusal, carrying the request's id when it had one. */
export function refusalMessage(
  refused: { code: number; message: string; data?: unknown },
  id: RequestId | undefined,
): JsonRpcErrorResponse {
  const error: JsonRpcErrorResponse["error"] = { code: refused.code, message: refused.message };
  if (refused.data !== undefined) error.data = refused.data;
  return id === undefined ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error };
}

/** A JSON body response. */
export function jsonResponse(status: number, body: string, headers: { [name: string]: string } = {}): Answer {
  return { status, headers: { "content-type": "application/json", ...headers }, body };
}

/** How much of its message a refusal too large to send keeps. */
const KEPT_MESSAGE = 1_024;

/**
 * A JSON-RPC error response for a refusal, within `maxBytes` (the handler's `maxResponseBytes`): a refusal that
 * repeats so much of the request (a huge id, method name or version) that it would pass the bound is sent
 * without its id and data, its message cut.
 */
export function refusalResponse(
  refused: Refusal,
  id: RequestId | undefined,
  maxBytes = Number.POSITIVE_INFINITY,
): Answer {
  let body = JSON.stringify(refusalMessage(refused, id));
  if (exceedsUtf8(body, maxBytes)) {
    const message = refused.message.slice(0, KEPT_MESSAGE);
    body = JSON.stringify(refusalMessage({ code: refused.code, message }, undefined));
  }
  return jsonResponse(refused.status, body);
}

/** A plain-text response (403s carry no JSON-RPC body). */
export function textResponse(status: number, text: string, headers: { [name: string]: string } = {}): Answer {
  return { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers }, body: text };
}

/** A response with no body (202 for an accepted notification, 200 for a session DELETE). */
export function emptyResponse(status: number, headers: { [name: string]: string } = {}): Answer {
  return { status, headers, body: null };
}

/** `405` naming the methods this endpoint accepts in the request's era. */
export function methodNotAllowed(allow: string): Answer {
  return textResponse(405, "Method Not Allowed", { allow });
}

const BAD_REQUEST_CODES: ReadonlySet<number> = new Set([
  ErrorCode.ParseError,
  ErrorCode.InvalidRequest,
  ErrorCode.InvalidParams,
  ErrorCode.HeaderMismatch,
  ErrorCode.MissingRequiredClientCapability,
  ErrorCode.UnsupportedProtocolVersion,
]);

/**
 * The HTTP status of a 2026-07-28 answer sent before any stream byte: 404 for `-32601`, 400 for the request
 * errors the spec ties to 400 (parse, invalid request or params, header mismatch, missing capability,
 * unsupported version), 200 for a result or any other error.
 */
export function modernStatus(response: JsonRpcResponse): number {
  if (!("error" in response)) return 200;
  if (response.error.code === ErrorCode.MethodNotFound) return 404;
  return BAD_REQUEST_CODES.has(response.error.code) ? 400 : 200;
}

/** 2025-11-25 answers from dispatch always travel with 200 (its clients read errors only from a 2xx body). */
export function legacyStatus(): number {
  return 200;
}

/**
 * `Retry-After` (whole seconds, rounded up) for an error whose `data.retryAfterMs` says when to try again (a
 * full admission queue: `handler capacity reached`), else nothing. The status stays what it was (200): the
 * official clients read a JSON-RPC error, its code and its `data` only from such an answer (a 503 reaches them as
 * a bare HTTP error, the code lost; see docs/http.md), and neither retries either way.
 */
export function retryAfterHeaders(response: JsonRpcResponse): { [name: string]: string } | undefined {
  if (!("error" in response) || typeof response.error.data !== "object" || response.error.data === null) {
    return undefined;
  }
  const ms = (response.error.data as { retryAfterMs?: unknown }).retryAfterMs;
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) return undefined;
  return { "retry-after": String(Math.ceil(ms / 1000)) };
}
