import {
  type AuthorizationServer,
  allowInsecureRequests,
  ClientSecretBasic,
  ClientSecretPost,
  customFetch,
  introspectionRequest,
  processIntrospectionResponse,
} from "oauth4webapi";
import { InvalidTokenError, VerifierUnavailableError } from "./errors.js";
import { checkIssuer } from "./metadata.js";
import { checkKeys, invalid, isLoopback } from "./resource.js";
import { type TokenVerifier, tokenFromClaims, type VerifiedToken } from "./token.js";

/** Options of {@link introspectionVerifier}. Unknown keys are rejected. */
export interface IntrospectionVerifierOptions {
  /** The introspection endpoint (RFC 7662). */
  endpoint: string;
  /** This resource server's client id at the authorization server. */
  clientId: string;
  /** Its client secret. */
  clientSecret: string;
  /** How the secret is sent (default `client_secret_basic`). */
  clientAuthentication?: "client_secret_basic" | "client_secret_post";
  /** When set, an answer whose `iss` differs is a refused token. */
  issuer?: string;
  /** How long an answer is reused (default 60,000 ms; never past the token's `exp`). 0 turns caching off. */
  cacheTtlMs?: number;
  /** Answers kept at most (default 10,000); the oldest is dropped past it. */
  maxCacheEntries?: number;
  /** The `fetch` used for the endpoint (default the global one). */
  fetch?: typeof fetch;
  /** Milliseconds since the epoch, for the cache (default `Date.now`). */
  now?: () => number;
}

const KEYS = [
  "endpoint",
  "clientId",
  "clientSecret",
  "clientAuthentication",
  "issuer",
  "cacheTtlMs",
  "maxCacheEntries",
  "fetch",
  "now",
] as const;

type Cached = { readonly until: number; readonly token: VerifiedToken | undefined };

/**
 * A {@link TokenVerifier} that asks the authorization server (RFC 7662 token introspection), authenticating as
 * a confidential client. `active: false`, a `token_type` other than an access token's, or a wrong `iss` is a
 * refused token; an endpoint that fails is an outage (500, logged). Answers, active or not, are cached by the
 * token's SHA-256 (never the token) for `cacheTtlMs`, and at most `maxCacheEntries` of them: a revoked token
 * may be accepted for up to `cacheTtlMs`.
 *
 * @example
 * const verify = introspectionVerifier({
 *   endpoint: "https://auth.example.com/token/introspection",
 *   clientId: "mcp-server",
 *   clientSecret: process.env.INTROSPECTION_SECRET!,
 * });
 */
export function introspectionVerifier(options: IntrospectionVerifierOptions): TokenVerifier {
  checkKeys("options", options, KEYS);
  const endpoint = checkIssuer("endpoint", options.endpoint);
  for (const key of ["clientId", "clientSecret"] as const) {
    if (typeof options[key] !== "string" || options[key] === "")
      throw invalid(key, "must be a non-empty string");
  }
  const method = options.clientAuthentication ?? "client_secret_basic";
  if (method !== "client_secret_basic" && method !== "client_secret_post") {
    throw invalid("clientAuthentication", "must be client_secret_basic or client_secret_post");
  }
  const issuer = options.issuer === undefined ? undefined : checkIssuer("issuer", options.issuer);
  const ttl = count("cacheTtlMs", options.cacheTtlMs, 60_000, 0);
  const max = count("maxCacheEntries", options.maxCacheEntries, 10_000, 1);
  for (const key of ["fetch", "now"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "function")
      throw invalid(key, "must be a function");
  }
  const now = options.now ?? Date.now;
  const userFetch = options.fetch ?? fetch;
  const fetcher = (url: string, init: unknown) => userFetch(url, init as RequestInit);
  const as: AuthorizationServer = Object.freeze({
    issuer: issuer ?? new URL(endpoint).origin,
    introspection_endpoint: endpoint,
  });
  const client = Object.freeze({ client_id: options.clientId });
  const auth =
    method === "client_secret_basic"
      ? ClientSecretBasic(options.clientSecret)
      : ClientSecretPost(options.clientSecret);
  const http = { [customFetch]: fetcher, [allowInsecureRequests]: isLoopback(new URL(endpoint).hostname) };
  const cache = new Map<string, Cached>();

  const ask = async (token: string): Promise<Cached> => {
    let claims: Record<string, unknown>;
    try {
      const response = await introspectionRequest(as, client, auth, token, http);
      claims = (await processIntrospectionResponse(as, client, response)) as Record<string, unknown>;
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      const detail =
        typeof status === "number" ? `HTTP ${status}` : error instanceof Error ? error.name : "error";
      throw new VerifierUnavailableError(`the introspection endpoint failed (${detail})`);
    }
    const active =
      claims.active === true &&
      accessTokenType(claims.token_type) &&
      (issuer === undefined || claims.iss === issuer);
    const verified = active ? tokenFromClaims(claims) : undefined;
    const expiry = verified?.expiresAt === undefined ? Number.POSITIVE_INFINITY : verified.expiresAt * 1000;
    return { until: Math.min(now() + ttl, expiry), token: verified };
  };

  return async (token) => {
    const key = ttl === 0 ? "" : await sha256(token);
    let entry = ttl === 0 ? undefined : cache.get(key);
    if (entry !== undefined && entry.until <= now()) {
      cache.delete(key);
      entry = undefined;
    }
    if (entry === undefined) {
      entry = await ask(token);
      if (ttl > 0 && entry.until > now()) {
        cache.delete(key);
        cache.set(key, entry);
        while (cache.size > max) cache.delete(cache.keys().next().value as string);
      }
    }
    if (entry.token === undefined) throw new InvalidTokenError("inactive");
    return entry.token;
  };
}

/** RFC 7662 leaves `token_type` optional; a refresh token (or any non-access type) is refused. */
function accessTokenType(type: unknown): boolean {
  return type === undefined || (typeof type === "string" && /^(bearer|access_token|dpop)$/i.test(type));
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function count(key: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min)
    throw invalid(key, `must be an integer of at least ${min}`);
  return value;
}
