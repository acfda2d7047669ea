/** Why a verifier refused an access token. Shown in logs and tests; the token itself is never kept. */
export type InvalidTokenReason =
  | "malformed"
  | "expired"
  | "not_yet_valid"
  | "audience"
  | "issuer"
  | "type"
  | "algorithm"
  | "signature"
  | "inactive"
  | "claims";

/**
 * A verifier's refusal of a token: the answer is 401 `error="invalid_token"`. Carries only a reason, never the
 * token or its claims.
 *
 * @example
 * const verify: TokenVerifier = async (token) => {
 *   const row = await db.tokens.get(await sha256(token));
 *   if (!row) throw new InvalidTokenError("inactive");
 *   return { scopes: row.scopes, audience: [row.resource], subject: row.user, claims: {} };
 * };
 */
export class InvalidTokenError extends Error {
  readonly reason: InvalidTokenReason;
  constructor(reason: InvalidTokenReason, message = `the access token was refused: ${reason}`) {
    super(message);
    this.name = "InvalidTokenError";
    this.reason = reason;
  }
}

/**
 * A verifier could not decide (the authorization server's JWKS, metadata or introspection endpoint failed). The
 * request is answered 500 and the error logged; its message names the endpoint and status, never a token.
 */
export class VerifierUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "VerifierUnavailableError";
  }
}
