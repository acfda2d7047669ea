import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError, McpkitError } from "../../jsonrpc/errors.js";

const NOT_FOUND = Symbol.for("mcpkit.resourceNotFound");

/**
 * The error a `readResource` handler throws for a URI it does not have. mcpkit sends it with the code of the
 * client's era: `-32602` in 2026-07-28 (SEP-2164), `-32002` in 2025-11-25.
 *
 * @example
 * readResource: async ({ uri }) => {
 *   const found = store.get(uri);
 *   if (!found) throw resourceNotFound(uri);
 *   return { contents: [{ uri, text: found }] };
 * }
 */
export function resourceNotFound(uri: string): JsonRpcError {
  const error = new JsonRpcError(ErrorCode.InvalidParams, "Resource not found", { uri });
  Object.defineProperty(error, NOT_FOUND, { value: true });
  return error;
}

/** True for an error made by {@link resourceNotFound}. */
export function isResourceNotFoundError(error: unknown): error is JsonRpcError {
  return error instanceof JsonRpcError && NOT_FOUND in error;
}

/** `-32602` with a message that says what is wrong with the params. */
export function invalidParams(message: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${message}`);
}

/** `-32601` for a method the server does not serve in this era. */
export function methodNotFound(method: string, detail?: string): JsonRpcError {
  return detail === undefined
    ? new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`)
    : new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`, detail);
}

/** The message of a request that failed because a shared service (a cluster's bus or store) was unreachable. */
export const CLUSTER_UNAVAILABLE_MESSAGE = "Cluster unavailable";

/**
 * The error of a bus or store call that could not reach the shared service: `McpkitError` `UNAVAILABLE`,
 * `details.reason` `cluster_unavailable`.
 */
export function clusterUnavailable(operation: string, cause?: unknown): McpkitError {
  return new McpkitError("UNAVAILABLE", `${CLUSTER_UNAVAILABLE_MESSAGE}: ${operation} failed`, {
    details: { reason: "cluster_unavailable", operation },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The JSON-RPC form of a cluster failure, sent to the client: `-32603` with `data.reason`. */
export function clusterUnavailableRpc(): JsonRpcError {
  return new JsonRpcError(ErrorCode.InternalError, CLUSTER_UNAVAILABLE_MESSAGE, {
    reason: "cluster_unavailable",
  });
}

/**
 * True for an error saying a shared service could not be reached: `McpkitError` `UNAVAILABLE`, as
 * {@link clusterUnavailable} makes it (a custom bus or store may throw its own).
 */
export function isClusterUnavailable(error: unknown): error is McpkitError {
  return error instanceof McpkitError && error.code === "UNAVAILABLE";
}
