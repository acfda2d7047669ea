import { JsonRpcError, McpkitError } from "../client/index.js";

/**
 * The exit statuses of the `mcpkit` command. Scripts can tell a tool that reported an error apart from a
 * server that refused the request and from a server that could not be reached.
 */
export const ExitCode = {
  /** The command did what was asked. */
  OK: 0,
  /** `call`: the tool ran and reported an error (`isError: true`). */
  TOOL_ERROR: 1,
  /** Bad command line: unknown flag or command, bad arguments, a target that cannot be used. */
  USAGE: 2,
  /** The server answered with a JSON-RPC error, or broke the protocol (bad answer, no common version). */
  PROTOCOL: 3,
  /** The server could not be reached or the connection was lost: network, timeout, process exit. */
  CONNECTION: 4,
  /** A bug in mcpkit itself. */
  INTERNAL: 70,
  /** Interrupted (Ctrl-C) while a command other than `listen` was running. */
  INTERRUPTED: 130,
} as const;

export type ExitStatus = (typeof ExitCode)[keyof typeof ExitCode];

/** A command-line mistake: reported with the usage hint, exit status 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

// UNAUTHORIZED: the OAuth login of `--login` failed or was refused (no connection without it).
const CONNECTION_CODES = new Set([
  "TRANSPORT",
  "TIMEOUT",
  "CLOSED",
  "MESSAGE_TOO_LARGE",
  "ABORTED",
  "UNAUTHORIZED",
]);
const PROTOCOL_CODES = new Set([
  "PROTOCOL",
  "VERSION_NEGOTIATION",
  "UNSUPPORTED",
  "LIMIT_EXCEEDED",
  "INPUT_REQUIRED",
  "CALLBACK_FAILED",
  "CAPACITY",
]);

/** What a failure means for the user: its exit status and one line saying what went wrong. */
export interface Failure {
  status: ExitStatus;
  kind: "usage" | "protocol" | "connection" | "internal";
  message: string;
  /** Machine fields for `--json` (never header values: errors from the transports carry none). */
  fields: { [key: string]: unknown };
}

/**
 * Classifies an error thrown while running a command.
 *
 * @example
 * const { status, message } = classifyError(error); // e.g. 4, "connection failed: TRANSPORT (network, ECONNREFUSED): ..."
 */
export function classifyError(error: unknown): Failure {
  if (error instanceof UsageError) {
    return { status: ExitCode.USAGE, kind: "usage", message: error.message, fields: {} };
  }
  if (error instanceof JsonRpcError) {
    const data = error.hasData ? ` ${preview(error.data)}` : "";
    return {
      status: ExitCode.PROTOCOL,
      kind: "protocol",
      message: `the server answered ${error.code} ${error.message}${data}`,
      fields: { code: error.code, message: error.message, ...(error.hasData ? { data: error.data } : {}) },
    };
  }
  if (error instanceof McpkitError) {
    const why = reasonOf(error);
    const fields = { code: error.code, message: error.message, ...(why.length > 0 ? { reason: why } : {}) };
    const label = `${error.code}${why.length > 0 ? ` (${why.join(", ")})` : ""}`;
    if (error.code === "INVALID_CONFIG") {
      return { status: ExitCode.USAGE, kind: "usage", message: `${label}: ${error.message}`, fields };
    }
    if (CONNECTION_CODES.has(error.code)) {
      const message = `connection failed: ${label}: ${error.message}`;
      return { status: ExitCode.CONNECTION, kind: "connection", message, fields };
    }
    if (PROTOCOL_CODES.has(error.code)) {
      return { status: ExitCode.PROTOCOL, kind: "protocol", message: `${label}: ${error.message}`, fields };
    }
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { status: ExitCode.INTERNAL, kind: "internal", message: `internal error: ${message}`, fields: {} };
}

/** The short, non-secret parts of an error's details: its reason and a system error code. */
function reasonOf(error: McpkitError): string[] {
  const details = error.details ?? {};
  const parts: string[] = [];
  for (const key of ["reason", "code", "status", "timeout", "name"]) {
    const value = details[key];
    if (typeof value === "string" || typeof value === "number") parts.push(String(value));
  }
  return parts;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
