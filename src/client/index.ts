/**
 * `mcpkit/client`: the MCP client engine for both wire eras (2026-07-28 stateless, 2025-11-25 stateful).
 */

/** The errors client operations reject with. */
export { JsonRpcError, McpkitError, type McpkitErrorCode } from "../jsonrpc/errors.js";
/** The client and its helpers. */
export { Client, type ListParams } from "./client.js";
export { isResourceNotFound } from "./not-found.js";
/** Options, per-call options and what `connect()` returns. */
export type {
  ClientLogger,
  ClientOptions,
  ConnectionInfo,
  ListAllOptions,
  RequestOptions,
  ServerNotification,
  WithCacheHints,
} from "./types.js";
