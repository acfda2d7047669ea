import type { JsonRpcErrorObject } from "./message.js";

const JSON_RPC_ERROR = Symbol.for("mcpkit.JsonRpcError");
const MCPKIT_ERROR = Symbol.for("mcpkit.McpkitError");

/**
 * An error that travels on the wire as a JSON-RPC error object: a numeric `code`, a `message` and optional
 * `data`. Handlers throw it to answer with that exact error; clients receive it when the peer answered with an
 * error. `instanceof` works across duplicate copies of the package.
 *
 * @example
 * throw new JsonRpcError(ErrorCode.InvalidParams, "Unknown tool: nope");
 */
export class JsonRpcError extends Error {
  readonly code: number;
  /** `undefined` means absent; `null` is a present JSON null. */
  readonly data: unknown;
  readonly hasData: boolean;
  readonly [JSON_RPC_ERROR] = true;

  constructor(code: number, message: string, ...data: [] | [unknown]) {
    super(message);
    this.name = "JsonRpcError";
    this.code = code;
    this.hasData = data.length > 0;
    this.data = data[0];
  }

  /** The wire form: `{code, message, data?}`. */
  toJSON(): JsonRpcErrorObject {
    const out: JsonRpcErrorObject = { code: this.code, message: this.message };
    if (this.hasData) out.data = this.data;
    return out;
  }

  /** Builds the error from a received wire error object, keeping absent `data` absent. */
  static fromWire(error: JsonRpcErrorObject): JsonRpcError {
    return jsonRpcErrorFromWire(error);
  }

  /** Brand check, so `instanceof` holds for an instance from another copy of the package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && JSON_RPC_ERROR in value;
  }
}

// Outside the class body: a class that names itself inside its body gets renamed by the bundler
// (`class _JsonRpcError`), which would change `JsonRpcError.name`.
function jsonRpcErrorFromWire(error: JsonRpcErrorObject): JsonRpcError {
  return "data" in error
    ? new JsonRpcError(error.code, error.message, error.data)
    : new JsonRpcError(error.code, error.message);
}

/** Stable string codes of local (never on the wire) errors. */
export type McpkitErrorCode =
  /** An operation's deadline passed. */
  | "TIMEOUT"
  /** The caller's AbortSignal fired. */
  | "ABORTED"
  /** The connection or transport is closed (or closed while the operation was pending). */
  | "CLOSED"
  /** A bounded resource is full (pending requests, sessions, queues). */
  | "CAPACITY"
  /** A configuration object is invalid; `details` says which part. */
  | "INVALID_CONFIG"
  /** The peer broke the protocol (bad message shape, wrong era, unexpected response). */
  | "PROTOCOL"
  /** A message exceeds a configured byte limit. */
  | "MESSAGE_TOO_LARGE"
  /** A bounded helper stopped at a limit (pages, items, repeated cursor). */
  | "LIMIT_EXCEEDED"
  /** No protocol version could be agreed with the peer. */
  | "VERSION_NEGOTIATION"
  /** The operation is not available in the connection's era or with the peer's capabilities. */
  | "UNSUPPORTED"
  /** The transport failed (I/O error, cleanup failure). */
  | "TRANSPORT"
  /** A user callback (an input resolver or a server-request handler) threw or returned an invalid value. */
  | "CALLBACK_FAILED"
  /**
   * The server answered with a 2026 `input_required` result and the client has no resolver;
   * `details.result` is that result.
   */
  | "INPUT_REQUIRED"
  /**
   * A result broke what the peer declared: with `validateStructuredContent`, a tool's `structuredContent` that
   * does not match its `outputSchema`; `details.issues` names every failing path, `details.result` is the result.
   */
  | "INVALID_RESULT"
  /** A shared service (the cluster's bus or store, e.g. Redis) could not be reached; `details.reason` says which. */
  | "UNAVAILABLE"

  /**
   * Authorization failed or needs a person (`mcpkit/auth`): `details.reason` says why (`interaction_required`
   * with `details.authorizationUrl`, `issuer_mismatch`, `resource_mismatch`, ...). Never carries a token, code or
   * secret.
   */
  | "UNAUTHORIZED";

/**
 * A local error with a stable string `code`. Never sent on the wire. `details` carries structured facts (the
 * limit crossed, the config path at fault); `cause` the underlying error.
 *
 * @example
 * try { await client.callTool("slow", {}); } catch (e) {
 *   if (e instanceof McpkitError && e.code === "TIMEOUT") retryLater();
 * }
 */
export class McpkitError extends Error {
  readonly code: McpkitErrorCode;
  readonly details: { readonly [key: string]: unknown } | undefined;
  readonly [MCPKIT_ERROR] = true;

  constructor(
    code: McpkitErrorCode,
    message: string,
    options: { details?: { [key: string]: unknown }; cause?: unknown } = {},
  ) {
    super(message, "cause" in options ? { cause: options.cause } : undefined);
    this.name = "McpkitError";
    this.code = code;
    this.details = options.details;
  }

  /** Brand check, so `instanceof` holds for an instance from another copy of the package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && MCPKIT_ERROR in value;
  }
}

/** Normalizes anything thrown into an `Error` without losing an mcpkit error's identity. */
export function toError(value: unknown): Error {
  if (value instanceof Error) return value;
  return new Error(typeof value === "string" ? value : "non-error value thrown", { cause: value });
}
