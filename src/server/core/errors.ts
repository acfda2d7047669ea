import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";

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
