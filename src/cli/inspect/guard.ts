import { timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/** Why the inspector refused a request: the HTTP status and a short reason (never echoing what was sent). */
export interface Refusal {
  status: 400 | 403 | 404 | 405 | 413 | 415;
  reason: string;
}

/** What the guard needs to know of the inspector: its port and its token. */
export interface GuardConfig {
  port: number;
  token: string;
}

/** The names the page may be reached by: only the loopback address it is bound to, or `localhost`. */
export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/** The origins the page's own requests carry. */
export function allowedOrigins(port: number): string[] {
  return allowedHosts(port).map((host) => `http://${host}`);
}

/** Compares the presented token with the inspector's in constant time. */
export function tokenMatches(presented: string | undefined, token: string): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks one request against the inspector's rules, before anything else is read:
 *
 * - `Host` names the loopback listener (a DNS-rebinding name such as `evil.example:PORT` is refused);
 * - `Origin`, when present, is the page's own (another site, or a sandboxed view's `null`, is refused), and a
 *   `POST` must carry it (browsers always do on `fetch`);
 * - `Sec-Fetch-Site`, when present, is not `cross-site` or `same-site`;
 * - the token is presented (the `x-mcpkit-token` header or the `token` query parameter), unless `tokenFree`
 *   (a view's single-use URL, which is its own capability).
 *
 * @example
 * const refusal = checkRequest({ port, token }, req.method, req.headers, url);
 * if (refusal !== undefined) return refuse(res, refusal);
 */
export function checkRequest(
  config: GuardConfig,
  method: string | undefined,
  headers: IncomingHttpHeaders,
  url: URL,
  tokenFree = false,
): Refusal | undefined {
  const host = headers.host?.toLowerCase();
  if (host === undefined || !allowedHosts(config.port).includes(host)) {
    return { status: 403, reason: "the Host header does not name this inspector" };
  }
  const origin = headers.origin;
  if (origin !== undefined && !allowedOrigins(config.port).includes(origin)) {
    return { status: 403, reason: "requests from another origin are refused" };
  }
  const site = headers["sec-fetch-site"];
  if (site === "cross-site" || site === "same-site") {
    return { status: 403, reason: "cross-site requests are refused" };
  }
  if (method !== "GET" && method !== "POST") return { status: 405, reason: "only GET and POST" };
  if (method === "POST" && origin === undefined) {
    return { status: 403, reason: "a POST must carry the page's Origin" };
  }
  if (tokenFree) return undefined;
  const header = headers["x-mcpkit-token"];
  const presented = typeof header === "string" ? header : (url.searchParams.get("token") ?? undefined);
  if (!tokenMatches(presented, config.token)) {
    return { status: 403, reason: "the inspector's token is missing or wrong" };
  }
  return undefined;
}
