/** What a verifier learned from a valid access token. Never the token itself. */
export interface VerifiedToken {
  /** Granted scopes. */
  readonly scopes: readonly string[];
  /** Audiences (`aud`); `requireBearer` refuses a token whose audiences do not name its `resource`. */
  readonly audience: readonly string[];
  /** The resource owner (`sub`). */
  readonly subject?: string;
  /** The client the token was issued to (`client_id`). */
  readonly clientId?: string;
  /** The issuer (`iss`). */
  readonly issuer?: string;
  /** Expiry, in seconds since the epoch (`exp`). */
  readonly expiresAt?: number;
  /** Every claim the verifier saw (JWT payload or introspection response). */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** What a verifier is told besides the token: the HTTP request (for DPoP proofs) and the expected audience. */
export interface VerifyContext {
  readonly request: Request;
  /** The canonical resource the token must be issued for. */
  readonly resource: string;
}

/**
 * Checks an access token. Resolves with what it grants; throws {@link InvalidTokenError} for a token that is not
 * valid (401), anything else when it cannot decide (500, logged). {@link jwtVerifier} and
 * {@link introspectionVerifier} are the two shipped ones.
 */
export type TokenVerifier = (token: string, context: VerifyContext) => Promise<VerifiedToken>;

/** The scopes of a `scope` claim (space-separated) or `scp` array. */
export function scopesOf(claims: Readonly<Record<string, unknown>>): string[] {
  if (typeof claims.scope === "string") return claims.scope.split(" ").filter((scope) => scope !== "");
  if (Array.isArray(claims.scp))
    return claims.scp.filter((scope): scope is string => typeof scope === "string");
  return [];
}

/** The audiences of an `aud` claim (a string or an array of strings). */
export function audiencesOf(aud: unknown): string[] {
  if (typeof aud === "string") return [aud];
  if (Array.isArray(aud)) return aud.filter((entry): entry is string => typeof entry === "string");
  return [];
}

/** A {@link VerifiedToken} from a claims set (JWT payload or introspection response). */
export function tokenFromClaims(claims: Readonly<Record<string, unknown>>): VerifiedToken {
  const token: {
    -readonly [K in keyof VerifiedToken]: VerifiedToken[K];
  } = { scopes: scopesOf(claims), audience: audiencesOf(claims.aud), claims: Object.freeze({ ...claims }) };
  if (typeof claims.sub === "string") token.subject = claims.sub;
  if (typeof claims.client_id === "string") token.clientId = claims.client_id;
  if (typeof claims.iss === "string") token.issuer = claims.iss;
  if (typeof claims.exp === "number") token.expiresAt = claims.exp;
  return Object.freeze(token);
}
