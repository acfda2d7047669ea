import { McpkitError } from "../../jsonrpc/errors.js";
import { isReservedMcpHeader } from "../../protocol/routing-headers.js";
import type { HeaderRecord } from "./exchange.js";

/** What the auth hook is told about the request it supplies headers for. */
export interface AuthRequest {
  readonly method: "POST" | "GET" | "DELETE";
  /** The endpoint, without userinfo or query. */
  readonly url: string;
  /** The JSON-RPC method of a POST, when it carries a request or notification. */
  readonly mcpMethod?: string;
}

/**
 * Supplies request headers per HTTP request (e.g. `authorization: Bearer ...`). Its output is a secret: it never
 * appears in errors or logs (a failing hook is reported by name only), and it can never set a header the
 * transport owns.
 */
export type AuthHook = (request: AuthRequest) => HeaderRecord | undefined | Promise<HeaderRecord | undefined>;

/** Request headers only the transport may set, besides the MCP ones (lowercase). */
const TRANSPORT_HEADERS: ReadonlySet<string> = new Set([
  "accept",
  "accept-encoding",
  "content-type",
  "content-length",
  "host",
  "connection",
  "transfer-encoding",
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Checks caller-supplied headers: names are HTTP tokens, values carry no CR, LF or NUL, and no name collides
 * (case-insensitively) with a header the transport owns. Errors name the header, never its value.
 */
export function checkExtraHeaders(headers: unknown, source: string): HeaderRecord {
  if (headers === undefined) return {};
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) {
    throw new McpkitError("INVALID_CONFIG", `${source} must be an object of header names to string values`, {
      details: { key: source },
    });
  }
  const out: { [name: string]: string } = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) throw headerProblem(source, name, "is not a valid header name");
    if (isReservedMcpHeader(name) || TRANSPORT_HEADERS.has(name.toLowerCase())) {
      throw headerProblem(source, name, "collides with a header the MCP transport sets");
    }
    if (typeof value !== "string" || /[\r\n\0]/.test(value)) {
      throw headerProblem(source, name, "must be a string without CR, LF or NUL");
    }
    out[name] = value;
  }
  return out;
}

function headerProblem(source: string, name: string, problem: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", `${source}: header ${name} ${problem}`, {
    details: { key: source, header: name, reason: "header_collision" },
  });
}
