import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError } from "../jsonrpc/errors.js";
import type { JsonRpcErrorResponse, JsonRpcResultResponse, RequestId } from "../jsonrpc/message.js";
import { type Era, LEGACY_VERSION } from "../protocol/versions.js";
import { isResourceNotFoundError } from "./errors.js";
import type { ServerLogger } from "./options.js";

/** A JSON-RPC result response. */
export function resultResponse(id: RequestId, result: { [key: string]: unknown }): JsonRpcResultResponse {
  return { jsonrpc: "2.0", id, result };
}

/**
 * The error response for anything a request's handling threw. A `JsonRpcError` is sent as it is (a missing
 * resource gets its era's code); anything else is a bug whose details stay in the log: the peer sees `-32603`
 * "Internal error".
 */
export function errorResponse(
  id: RequestId | undefined,
  error: unknown,
  era: Era | undefined,
  logger: ServerLogger,
): JsonRpcErrorResponse {
  let wire: JsonRpcError;
  if (error instanceof JsonRpcError) {
    wire =
      era === LEGACY_VERSION && isResourceNotFoundError(error)
        ? new JsonRpcError(ErrorCode.LegacyResourceNotFound, error.message, error.data)
        : error;
  } else {
    logger.error("request handler failed", error);
    wire = new JsonRpcError(ErrorCode.InternalError, "Internal error");
  }
  const response: JsonRpcErrorResponse = { jsonrpc: "2.0", error: wire.toJSON() };
  if (id !== undefined) response.id = id;
  return response;
}
