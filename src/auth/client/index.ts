/** The OAuth 2.1 client for MCP servers (`mcpkit/auth`). */
export type { PendingAuthorization } from "./authorization-code.js";
export {
  authorizationServerCandidates,
  discoverAuthorizationServer,
  discoverResourceMetadata,
  type ResourceMetadata,
  resourceMatches,
  resourceMetadataCandidates,
} from "./discovery.js";
export { type AuthFailureReason, authError, isAuthFailure } from "./errors.js";
export type { MachineGrant } from "./grants.js";
export type { AuthHttp } from "./http.js";
export { type AuthorizeResult, OAuthClient } from "./oauth-client.js";
export type {
  AuthorizationUrlContext,
  AuthorizationUrlHook,
  OAuthClientLogger,
  OAuthClientOptions,
} from "./options.js";
export type { PreRegisteredClient } from "./registration.js";
export { initialScopes, splitScopes, unionScopes } from "./scopes.js";
export {
  type ClientRegistration,
  type CredentialKey,
  type CredentialStore,
  credentialKeyString,
  MemoryCredentialStore,
  type StoredCredentials,
  type StoredTokens,
} from "./store.js";
export { type AuthChallengeParams, challengeOf, parseWwwAuthenticate } from "./www-authenticate.js";
