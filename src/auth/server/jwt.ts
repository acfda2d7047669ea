import {
  type AuthorizationServer,
  allowInsecureRequests,
  customFetch,
  discoveryRequest,
  processDiscoveryResponse,
  validateJwtAccessToken,
} from "oauth4webapi";
import { VerifierUnavailableError } from "./errors.js";
import { checkIssuer } from "./metadata.js";
import { sortError } from "./oauth-errors.js";
import { checkKeys, invalid, isLoopback } from "./resource.js";
import { type TokenVerifier, tokenFromClaims } from "./token.js";

/** Options of {@link jwtVerifier}. Unknown keys are rejected. */
export interface JwtVerifierOptions {
  /** The authorization server's issuer identifier; tokens must carry it in `iss`, byte for byte. */
  issuer: string;
  /** Its JWKS URL (default: `jwks_uri` of its metadata, fetched once from the issuer's well-known URLs). */
  jwksUri?: string;
  /** Accepted `alg` values (default every asymmetric algorithm oauth4webapi supports; never `none` or HMAC). */
  algorithms?: readonly string[];
  /** The `fetch` used for metadata and JWKS (default the global one). */
  fetch?: typeof fetch;
}

/** How long a failed metadata discovery is remembered before the next request tries again. */
export const DISCOVERY_RETRY_MS = 10_000;

const KEYS = ["issuer", "jwksUri", "algorithms", "fetch"] as const;

/**
 * A {@link TokenVerifier} for JWT access tokens (RFC 9068), on oauth4webapi's `validateJwtAccessToken`: the
 * signature against the issuer's JWKS, `typ` `at+jwt`, `iss` equal to `issuer`, `aud` naming the resource,
 * `exp` (30 s tolerance), and the presence of `sub`, `client_id`, `iat` and `jti`. A DPoP-bound token (`cnf`)
 * is refused unless the request carries a valid proof. The JWKS is cached (at most 5 minutes) and fetched again
 * when a token names an unknown `kid` (key rotation), at most once a minute. `https` only, except for a
 * loopback issuer.
 *
 * @example
 * const verify = jwtVerifier({ issuer: "https://auth.example.com" });
 * const authenticate = requireBearer({ resource: "https://mcp.example.com/mcp", verify });
 */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  checkKeys("options", options, KEYS);
  const issuer = checkIssuer("issuer", options.issuer);
  if (options.jwksUri !== undefined) checkIssuer("jwksUri", options.jwksUri);
  if (options.fetch !== undefined && typeof options.fetch !== "function")
    throw invalid("fetch", "must be a function");
  const algorithms = options.algorithms === undefined ? undefined : [...options.algorithms];
  if (algorithms !== undefined) {
    if (
      algorithms.length === 0 ||
      !algorithms.every((alg) => typeof alg === "string" && /^(RS|PS|ES|Ed)/.test(alg))
    ) {
      throw invalid("algorithms", "must list asymmetric JWS algorithms (RS*, PS*, ES*, Ed*)");
    }
  }
  const loopback = isLoopback(new URL(issuer).hostname);
  const userFetch = options.fetch ?? fetch;
  const fetcher = (url: string, init: unknown) => userFetch(url, init as RequestInit);
  const http = { [customFetch]: fetcher, [allowInsecureRequests]: loopback };
  let server: AuthorizationServer | undefined =
    options.jwksUri === undefined ? undefined : Object.freeze({ issuer, jwks_uri: options.jwksUri });
  let discovery: { promise: Promise<AuthorizationServer>; failedAt?: number } | undefined;

  const serverMetadata = (): Promise<AuthorizationServer> => {
    if (server !== undefined) return Promise.resolve(server);
    if (discovery?.failedAt !== undefined && Date.now() - discovery.failedAt >= DISCOVERY_RETRY_MS) {
      discovery = undefined;
    }
    if (discovery === undefined) {
      const current: { promise: Promise<AuthorizationServer>; failedAt?: number } = {
        promise: discover(issuer, http).then(
          (found) => {
            server = found;
            return found;
          },
          (error: unknown) => {
            current.failedAt = Date.now();
            throw error;
          },
        ),
      };
      discovery = current;
    }
    return discovery.promise;
  };

  return async (token, { request, resource }) => {
    const as = await serverMetadata();
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    const dpop = request.headers.get("dpop");
    if (dpop !== null) headers.dpop = dpop;
    const synthetic = new Request(request.url, { method: request.method, headers });
    try {
      const claims = await validateJwtAccessToken(as, synthetic, resource, {
        ...http,
        ...(algorithms === undefined ? {} : { signingAlgorithms: algorithms }),
      });
      return tokenFromClaims(claims);
    } catch (error) {
      throw sortError(error, "the JWKS endpoint");
    }
  };
}

/** The issuer's metadata: RFC 8414 first, then OpenID Connect Discovery; `issuer` must match exactly. */
async function discover(
  issuer: string,
  http: {
    [customFetch]: (url: string, init: unknown) => Promise<Response>;
    [allowInsecureRequests]: boolean;
  },
): Promise<AuthorizationServer> {
  const problems: string[] = [];
  for (const algorithm of ["oauth2", "oidc"] as const) {
    try {
      const response = await discoveryRequest(new URL(issuer), { algorithm, ...http });
      const metadata = await processDiscoveryResponse(new URL(issuer), response);
      if (metadata.issuer !== issuer) throw new Error("issuer mismatch");
      if (typeof metadata.jwks_uri !== "string") throw new Error("no jwks_uri");
      return Object.freeze({ issuer, jwks_uri: metadata.jwks_uri });
    } catch (error) {
      problems.push(`${algorithm}: ${error instanceof Error ? error.message : "failed"}`);
    }
  }
  throw new VerifierUnavailableError(`no usable metadata for issuer ${issuer} (${problems.join("; ")})`);
}
