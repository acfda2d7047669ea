import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import type { AbortLike } from "../../jsonrpc/lazy-abort.js";
import type { JsonRpcErrorResponse, JsonRpcResultResponse, RequestId } from "../../jsonrpc/message.js";
import { type Era, LEGACY_VERSION } from "../../protocol/versions.js";
import { clusterUnavailableRpc, isClusterUnavailable, isResourceNotFoundError } from "./errors.js";
import type { ServerLogger } from "./options.js";

/** A JSON-RPC result response. */
export function resultResponse(id: RequestId, result: { [key: string]: unknown }): JsonRpcResultResponse {
  return { jsonrpc: "2.0", id, result };
}

/**
 * The error response for anything a request's handling threw. A `JsonRpcError` is sent as it is (a missing
 * resource gets its era's code); a cluster that could not be reached is `-32603` "Cluster unavailable"
 * (`data.reason` `cluster_unavailable`, one warning logged); anything else is a bug whose details stay in the
 * log: the peer sees `-32603` "Internal error". Without `logger` nothing is logged (see {@link isOwnAbort}).
 */
export function errorResponse(
  id: RequestId | undefined,
  error: unknown,
  era: Era | undefined,
  logger: ServerLogger | undefined,
): JsonRpcErrorResponse {
  let wire: JsonRpcError;
  if (error instanceof JsonRpcError) {
    wire =
      era === LEGACY_VERSION && isResourceNotFoundError(error)
        ? new JsonRpcError(ErrorCode.LegacyResourceNotFound, error.message, error.data)
        : error;
  } else if (isClusterUnavailable(error)) {
    logger?.warn("a request failed: the cluster is unavailable", { error: error.message });
    wire = clusterUnavailableRpc();
  } else {
    logger?.error("request handler failed", error);
    wire = new JsonRpcError(ErrorCode.InternalError, "Internal error");
  }
  const response: JsonRpcErrorResponse = { jsonrpc: "2.0", error: wire.toJSON() };
  if (id !== undefined) response.id = id;
  return response;
}

/**
 * True when a request failed with its own abort reason: its client cancelled it (or went away) while it waited
 * for a handler slot, or its handler gave the reason back. That is the cancellation working, not a handler
 * failure to log; the answer is dropped anyway.
 */
export function isOwnAbort(error: unknown, signal: AbortLike | undefined): boolean {
  return signal?.aborted === true && error === signal.reason;
}
