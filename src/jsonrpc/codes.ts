/**
 * JSON-RPC error codes used by MCP. The spec reserves -32020..-32099; -32000..-32019 are implementation
 * defined.
 */
export const ErrorCode = {
  /** Invalid JSON was received. */
  ParseError: -32700,
  /** The JSON sent is not a valid request object. */
  InvalidRequest: -32600,
  /** The method does not exist or is not available in this era. */
  MethodNotFound: -32601,
  /** Invalid method parameters, including missing 2026 request `_meta` and a missing resource (SEP-2164). */
  InvalidParams: -32602,
  /** Internal error, including handler timeout and capacity. */
  InternalError: -32603,
  /** Legacy (2025-11-25 HTTP) session not found. */
  SessionNotFound: -32000,
  /** Resource not found, as sent by servers before 2026-07-28. Accept it; never send it. */
  LegacyResourceNotFound: -32002,
  /** An HTTP routing header does not match the body (2026-07-28). */
  HeaderMismatch: -32020,
  /** A request needs a client capability its metadata did not declare (2026-07-28). */
  MissingRequiredClientCapability: -32021,
  /** The requested protocol version is not supported; `data.supported` lists the ones that are. */
  UnsupportedProtocolVersion: -32022,
} as const;

/** The name of an {@link ErrorCode} entry, such as `"InvalidParams"`. */
export type ErrorCodeName = keyof typeof ErrorCode;
