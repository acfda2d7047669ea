import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError } from "../jsonrpc/errors.js";

/**
 * True when `error` is a server's "resource not found" answer to `resources/read`. 2026-07-28 servers send
 * -32602 (Invalid Params, SEP-2164); older servers send -32002. The client surfaces either as the
 * `JsonRpcError` it received; this helper accepts both.
 *
 * @example
 * try { await client.readResource("file:///missing"); } catch (e) {
 *   if (isResourceNotFound(e)) showEmpty();
 *   else throw e;
 * }
 */
export function isResourceNotFound(error: unknown): error is JsonRpcError {
  return (
    error instanceof JsonRpcError &&
    (error.code === ErrorCode.InvalidParams || error.code === ErrorCode.LegacyResourceNotFound)
  );
}
