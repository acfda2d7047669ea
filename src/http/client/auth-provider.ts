import type { HeaderRecord } from "./exchange.js";
import type { AuthRequest } from "./headers.js";

/** A 401 or 403 the server answered, as an {@link HttpAuthProvider} sees it. */
export interface AuthChallenge {
  readonly status: 401 | 403;
  /** The refused request. */
  readonly request: AuthRequest;
  /** A response header (name in lowercase), e.g. `www-authenticate` or `dpop-nonce`. */
  header(name: string): string | undefined;
  /** The headers the provider supplied for the refused request (undefined: it supplied none). */
  readonly sent: HeaderRecord | undefined;
  /** 0 for the first refusal of this HTTP request, 1 when its first retry was refused too, and so on. */
  readonly attempt: number;
}

/**
 * Supplies credentials per HTTP request and recovers from 401 / 403 answers: the seam through which an OAuth
 * client (`OAuthClient` from `mcpkit/auth`) plugs into the Streamable HTTP client transport. Headers it supplies
 * are secrets: never logged, never in errors.
 *
 * On a 401 or 403 the transport calls `onChallenge`: `true` sends the same request again with fresh headers (at
 * most {@link MAX_AUTH_RETRIES} times per HTTP request), `false` fails it with `TRANSPORT` (`unauthorized` /
 * `forbidden`); an `McpkitError` it throws is the request's error.
 *
 * @example
 * const transport = new StreamableHttpClientTransport({ url, authProvider: new OAuthClient({ ... }) });
 */
export interface HttpAuthProvider {
  /** Headers for one request (e.g. `authorization: Bearer ...`); undefined sends none. */
  headers(request: AuthRequest): HeaderRecord | undefined | Promise<HeaderRecord | undefined>;
  /** Decides whether a refused request is sent again, after whatever recovery it needs (refresh, login). */
  onChallenge(challenge: AuthChallenge): boolean | Promise<boolean>;
}

/** Retries of one HTTP request after a 401 / 403, whatever the provider answers. */
export const MAX_AUTH_RETRIES = 3;

/** True when `value` has the two methods of an {@link HttpAuthProvider}. */
export function isAuthProvider(value: unknown): value is HttpAuthProvider {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as { headers?: unknown; onChallenge?: unknown };
  return typeof candidate.headers === "function" && typeof candidate.onChallenge === "function";
}
