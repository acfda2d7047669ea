/**
 * Where the server reports what it cannot send to a peer (handler crashes, dropped messages). Repeated lines of
 * one kind are rate-limited (see `logIntervalMs`).
 */
export interface ServerLogger {
  /** Something unexpected that the server survived. */
  warn(message: string, details?: unknown): void;
  /** A failure, such as a handler that threw something other than a `JsonRpcError`. */
  error(message: string, details?: unknown): void;
  /** Ordinary events worth a trace, such as a client that went away mid-upload; optional (dropped without). */
  debug?(message: string, details?: unknown): void;
}
