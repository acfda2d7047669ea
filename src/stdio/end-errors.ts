import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import type { StdioCleanupReport, StdioExit } from "./cleanup.js";

/** Most characters of an offending stdout line kept in a protocol error. */
const PREVIEW_CHARS = 64;

/** The protocol error of a stdout line that is not a JSON-RPC message. */
export function notJsonRpc(error: unknown, frame: string, index: number): McpkitError {
  const reason = error instanceof Error ? error.message : String(error);
  const preview = frame.length > PREVIEW_CHARS ? `${frame.slice(0, PREVIEW_CHARS)}…` : frame;
  return new McpkitError(
    "PROTOCOL",
    `the stdio server wrote a line that is not a JSON-RPC message (line ${index}: ${reason}): ${JSON.stringify(preview)}`,
    {
      details: {
        line: index,
        reason,
        ...(error instanceof JsonRpcError ? { jsonRpcCode: error.code } : {}),
        preview,
      },
      cause: error,
    },
  );
}

/**
 * The same error with the server's stderr tail appended to its message and in `details.stderrTail` (the error
 * itself when there is no tail), with the same `cause`.
 */
export function withStderrTail(error: McpkitError, quote: string, tail: string): McpkitError {
  if (quote === "") return error;
  return new McpkitError(error.code, `${error.message}${quote}`, {
    details: { ...error.details, stderrTail: tail },
    ...(error.cause !== undefined ? { cause: error.cause } : {}),
  });
}

export function exitDetails(exit: StdioExit | undefined): { exitCode: number | null; signal: string | null } {
  return { exitCode: exit?.code ?? null, signal: exit?.signal ?? null };
}

/** `process exited with code 1`, `process was killed by SIGKILL`. */
export function describeExit(exit: StdioExit | undefined): string {
  if (!exit) return "ended";
  if (exit.signal) return `process was killed by ${exit.signal}`;
  return `process exited with code ${exit.code}`;
}

export function describeFailure(report: StdioCleanupReport): string {
  const alive = report.survivors;
  const what =
    report.rootExit === undefined ? "the root process did not exit" : `${alive.length} process(es)`;
  return `stdio cleanup failed: ${what} still alive after SIGKILL (pids ${alive.join(", ")})`;
}
