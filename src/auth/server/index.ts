/**
 * The resource-server side of MCP authorization: Protected Resource Metadata (RFC 9728), a bearer-token
 * `authenticate` hook for `createHttpHandler` with exact 401/403 challenges and per-tool scopes, and two token
 * verifiers (JWT access tokens, RFC 9068; token introspection, RFC 7662).
 */

export {
  type BearerIdentity,
  type BearerRefusal,
  bearerToken,
  MAX_TOKEN_LENGTH,
  type RequireBearerOptions,
  requireBearer,
  type ToolScopes,
} from "./bearer.js";
export { type BearerChallenge, bearerChallenge, challengeResponse } from "./challenge.js";
export { InvalidTokenError, type InvalidTokenReason, VerifierUnavailableError } from "./errors.js";
export { type IntrospectionVerifierOptions, introspectionVerifier } from "./introspection.js";
export { DISCOVERY_RETRY_MS, type JwtVerifierOptions, jwtVerifier } from "./jwt.js";
export {
  type ProtectedResource,
  type ProtectedResourceOptions,
  protectedResourceMetadata,
} from "./metadata.js";
export type { TokenVerifier, VerifiedToken, VerifyContext } from "./token.js";
