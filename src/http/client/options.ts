import type { Clock } from "../../jsonrpc/clock.js";
import type { TransportLogger } from "../../transports/transport.js";
import type { HttpAuthProvider } from "./auth-provider.js";
import type { HeaderRecord, HttpClient } from "./exchange.js";
import type { FetchLike } from "./fetch.js";
import type { AuthHook } from "./headers.js";
import type { HttpClientPolicyInput } from "./policy.js";

/**
 * Options of {@link StreamableHttpClientTransport}. Unknown keys and bad values are rejected with `McpkitError`
 * `INVALID_CONFIG`.
 */
export interface StreamableHttpClientOptions {
  /** The MCP endpoint, e.g. `https://mcp.example.com/mcp`. Checked against the policy's URL rules. */
  url: string | URL;
  /** The security policy: a preset (`default`, `gateway`) and overrides. See {@link httpClientPolicy}. */
  policy?: HttpClientPolicyInput;
  /** Extra headers on every request. A name the transport owns (MCP headers, `Accept`, ...) is an error. */
  headers?: HeaderRecord;
  /** Supplies headers per request (e.g. a bearer token); its output is never logged or put in errors. */
  auth?: AuthHook;
  /**
   * Supplies credentials per request and recovers from 401 / 403 (refresh, login, step-up), e.g. `OAuthClient`
   * from `mcpkit/auth`. Not with `auth`.
   */
  authProvider?: HttpAuthProvider;
  /** The `fetch` to use (default: the platform's). Not with `http`. */
  fetch?: FetchLike;
  /**
   * The HTTP stack to use instead of `fetch`, e.g. `nodeHttp()` from `mcpkit/node` (the fast path on Node). It
   * belongs to this transport: `close()` releases it.
   */
  http?: HttpClient;
  /** Where dropped tools and survived failures are reported (default: the client's logger, else `console`). */
  logger?: TransportLogger;
  /**
   * Rate limit of this transport's own `logger` (or of `console`), as the client's `logIntervalMs`: default
   * 60,000 ms, 0 logs every line. A logger the client passes is limited by the client already.
   */
  logIntervalMs?: number;
  /** The clock of the transport's timeouts (default: the runtime's timers). Tests pass a manual one. */
  clock?: Clock;
}

export const KNOWN_KEYS: ReadonlySet<string> = new Set([
  "url",
  "policy",
  "headers",
  "auth",
  "authProvider",
  "fetch",
  "http",
  "logger",
  "logIntervalMs",
  "clock",
]);
