import { optionError, positiveInteger } from "../../jsonrpc/config-check.js";
import { McpkitError } from "../../jsonrpc/errors.js";
import { presetPolicy } from "../../jsonrpc/preset-policy.js";
import { HTTP_MESSAGE_BYTES } from "../../protocol/limits.js";

/**
 * The bounds and trust settings of a Streamable HTTP client connection. Build one with {@link httpClientPolicy};
 * every field is checked and unknown keys are rejected.
 */
export interface HttpClientSecurityPolicy {
  /**
   * Largest request body (one JSON-RPC message) in bytes; a larger one fails before anything is sent (default
   * 8,000,000, a default server's `maxBodyBytes`).
   */
  readonly maxRequestBytes: number;
  /**
   * Largest response body in bytes as it arrives (a JSON body, or a whole POST SSE stream), counted before
   * decoding; a declared `Content-Length` over it is refused without reading (default 8,000,000: whatever a
   * default server sends, whose `maxResponseBytes` is the same).
   */
  readonly maxResponseBytes: number;
  /** Largest response body after any content decoding the platform did, counted as the bytes stream in (8,000,000). */
  readonly maxDecodedResponseBytes: number;
  /** Largest SSE event in bytes (its lines up to the blank line), counted before decoding (default 8,000,000). */
  readonly maxSseEventBytes: number;
  /** HTTP requests in flight at once; more wait for a slot within their own deadline. */
  readonly maxConcurrentRequests: number;
  /** Plain `http` to hosts that are not loopback (default false: `https` only, except loopback). */
  readonly allowNonLoopbackHttp: boolean;
  /**
   * Longest wait for the response head of a request the server answers at once: GET, DELETE, and POSTs of
   * notifications and responses (default 5,000 ms). Never longer than `requestTimeoutMs`.
   */
  readonly connectTimeoutMs: number;
  /**
   * Longest silence while an answer is expected: before a request POST's response head, and between the bytes
   * of its body (SSE keepalives count) (default 30,000 ms).
   */
  readonly receiveTimeoutMs: number;
  /**
   * Longest wait for a request POST's response head, and for a JSON answer, head to last byte (default 60,000
   * ms). It never ends a stream: an SSE answer runs past it while its bytes keep coming (`receiveTimeoutMs`),
   * bounded by the caller's deadline (the client's `requestTimeoutMs` or the call's `timeoutMs`); a listen
   * stream follows `streamIdleTimeoutMs`.
   */
  readonly requestTimeoutMs: number;
  /**
   * Longest silence on a long-lived stream once its head arrived: a 2026-07-28 `subscriptions/listen` and the
   * 2025-11-25 session's GET stream. Any byte resets it, keepalive comments included (default `Infinity`: none,
   * since a server that sends no keepalives may be quiet for hours). Set it to a few times the server's
   * keepalive interval (mcpkit's: 15 s) to notice a connection that died silently; the stream then ends with a
   * `TIMEOUT` and is opened again (a subscription re-listens, see `ListenOptions.relisten`).
   */
  readonly streamIdleTimeoutMs: number;
  /** Tools whose `x-mcp-header` annotations are remembered (least recently used first out; default 1,024). */
  readonly maxToolSchemas: number;
}

const DEFAULT_POLICY: HttpClientSecurityPolicy = Object.freeze({
  // What a default HTTP server accepts and sends (its maxBodyBytes and maxResponseBytes): the defaults agree.
  maxRequestBytes: HTTP_MESSAGE_BYTES,
  maxResponseBytes: HTTP_MESSAGE_BYTES,
  maxDecodedResponseBytes: HTTP_MESSAGE_BYTES,
  maxSseEventBytes: HTTP_MESSAGE_BYTES,
  maxConcurrentRequests: 64,
  allowNonLoopbackHttp: false,
  connectTimeoutMs: 5_000,
  receiveTimeoutMs: 30_000,
  requestTimeoutMs: 60_000,
  streamIdleTimeoutMs: Number.POSITIVE_INFINITY,
  maxToolSchemas: 1_024,
});

/** The named starting points of {@link httpClientPolicy}. `gateway` has the same values as `default`. */
export const HTTP_CLIENT_PRESETS: { readonly [name in "default" | "gateway"]: HttpClientSecurityPolicy } =
  Object.freeze({
    default: DEFAULT_POLICY,
    gateway: Object.freeze({ ...DEFAULT_POLICY }),
  });

/** Input of {@link httpClientPolicy}: a preset name and overrides. */
export type HttpClientPolicyInput = Partial<HttpClientSecurityPolicy> & { preset?: "default" | "gateway" };

const COUNT_KEYS = [
  "maxRequestBytes",
  "maxResponseBytes",
  "maxDecodedResponseBytes",
  "maxSseEventBytes",
  "maxConcurrentRequests",
  "maxToolSchemas",
] as const;
const TIMEOUT_KEYS = [
  "connectTimeoutMs",
  "receiveTimeoutMs",
  "requestTimeoutMs",
  "streamIdleTimeoutMs",
] as const;

/**
 * Builds a checked, frozen HTTP client policy from a preset (`default` unless named) and overrides. Throws
 * `McpkitError` `INVALID_CONFIG` naming the key at fault.
 *
 * @example
 * const policy = httpClientPolicy({ preset: "gateway", maxResponseBytes: 4_000_000 });
 */
export function httpClientPolicy(input: HttpClientPolicyInput = {}): HttpClientSecurityPolicy {
  const policy = presetPolicy(input, HTTP_CLIENT_PRESETS, PREFIX);
  for (const key of COUNT_KEYS) positiveInteger(policy[key], undefined, key, invalid);
  for (const key of TIMEOUT_KEYS) {
    const value = policy[key];
    if (typeof value !== "number" || Number.isNaN(value) || value <= 0) {
      throw invalid(key, "must be a positive number of milliseconds");
    }
  }
  if (typeof policy.allowNonLoopbackHttp !== "boolean")
    throw invalid("allowNonLoopbackHttp", "must be a boolean");
  return Object.freeze(policy);
}

/** Why an endpoint URL was refused (`details.reason` of the `INVALID_CONFIG` error). */
export type EndpointUrlProblem =
  | "invalid_url"
  | "insecure_scheme"
  | "missing_host"
  | "userinfo"
  | "fragment"
  | "non_loopback_http";

/**
 * Checks an MCP endpoint URL against the policy: `http` or `https`, a host, no userinfo, no fragment, and plain
 * `http` only to a loopback host unless `allowNonLoopbackHttp`. Throws `McpkitError` `INVALID_CONFIG` with
 * `details.reason`; the message never repeats the URL (it may carry secrets).
 */
export function checkEndpointUrl(url: string | URL, policy: HttpClientSecurityPolicy): URL {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    throw urlProblem("invalid_url", "the endpoint is not a valid absolute URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw urlProblem("insecure_scheme", "the endpoint scheme must be http or https");
  }
  if (parsed.hostname === "") throw urlProblem("missing_host", "the endpoint URL has no host");
  if (parsed.username !== "" || parsed.password !== "") {
    throw urlProblem("userinfo", "the endpoint URL must not carry userinfo; pass credentials through auth");
  }
  if (parsed.hash !== "" || String(url).includes("#")) {
    throw urlProblem("fragment", "the endpoint URL must not carry a fragment");
  }
  if (parsed.protocol === "http:" && !policy.allowNonLoopbackHttp && !isLoopbackHost(parsed.hostname)) {
    throw urlProblem("non_loopback_http", "plain http is allowed only to loopback hosts; use https");
  }
  return parsed;
}

/** True for `localhost`, `*.localhost`, 127.0.0.0/8 and ::1 (as a URL spells them: `[::1]`). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (host === "[::1]" || host === "::1") return true;
  const octets = host.split(".");
  return (
    octets.length === 4 && octets[0] === "127" && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255)
  );
}

/** The URL as errors and logs may show it: scheme, host, port and path; never userinfo or the query. */
export function redactUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

function urlProblem(reason: EndpointUrlProblem, message: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", message, { details: { key: "url", reason } });
}

/** The prefix of every error of the HTTP client policy. */
const PREFIX = "HTTP client policy ";

function invalid(key: string, problem: string): McpkitError {
  return optionError(key, problem, PREFIX);
}
