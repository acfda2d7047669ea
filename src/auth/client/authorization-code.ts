import {
  AuthorizationResponseError,
  type AuthorizationServer,
  calculatePKCECodeChallenge,
  generateRandomCodeVerifier,
  generateRandomState,
  validateAuthResponse,
} from "oauth4webapi";
import { requireS256 } from "./discovery.js";
import { authError } from "./errors.js";
import type { ClientRegistration, CredentialKey } from "./store.js";
import { libClient } from "./tokens.js";

/** An authorization request sent to a person, waiting for its redirect. */
export interface PendingAuthorization {
  readonly key: CredentialKey;
  /** The validated metadata of the authorization server; its `issuer` is what `iss` must equal. */
  readonly as: AuthorizationServer;
  readonly client: ClientRegistration;
  readonly resource: string;
  readonly scopes: readonly string[];
  readonly redirectUri: string;
  readonly state: string;
  readonly verifier: string;
  readonly url: URL;
}

/**
 * Builds an authorization request (PKCE S256, a fresh `state`, `resource` exactly as the metadata spells it,
 * `scope` when there is one). Throws `UNAUTHORIZED` `pkce_unsupported` when the server does not list S256.
 */
export async function startAuthorization(
  as: AuthorizationServer,
  client: ClientRegistration,
  key: CredentialKey,
  scopes: readonly string[],
  redirectUri: string,
): Promise<PendingAuthorization> {
  requireS256(as);
  if (as.authorization_endpoint === undefined) {
    throw authError(
      "no_authorization_server_metadata",
      "the authorization server has no authorization_endpoint",
      {
        issuer: as.issuer,
      },
    );
  }
  const verifier = generateRandomCodeVerifier();
  const state = generateRandomState();
  const url = new URL(as.authorization_endpoint);
  const params = url.searchParams;
  params.set("response_type", "code");
  params.set("client_id", client.client_id);
  params.set("redirect_uri", redirectUri);
  params.set("code_challenge", await calculatePKCECodeChallenge(verifier));
  params.set("code_challenge_method", "S256");
  params.set("state", state);
  params.set("resource", key.resource);
  if (scopes.length > 0) params.set("scope", scopes.join(" "));
  return { key, as, client, resource: key.resource, scopes, redirectUri, state, verifier, url };
}

/** The query of a redirect, whatever form the hook handed back. */
export function callbackParams(callback: string | URL | URLSearchParams): URLSearchParams {
  if (callback instanceof URLSearchParams) return new URLSearchParams(callback);
  if (callback instanceof URL) return new URLSearchParams(callback.search);
  const text = callback.trim();
  const query = text.includes("?") ? text.slice(text.indexOf("?") + 1) : text;
  return new URLSearchParams(query.split("#")[0]);
}

/**
 * Validates a redirect before its code goes anywhere (RFC 9207 and MCP's table): `iss` must equal the recorded
 * issuer, compared as strings after form-decoding only (no case folding, no trailing-slash or port
 * normalization), and is required when the server advertises `authorization_response_iss_parameter_supported`;
 * `state` must equal the one sent. An error response is acted on only after both checks. Returns the validated
 * parameters; throws `UNAUTHORIZED` `authorization_response` or `authorization_denied`.
 */
export function validateCallback(pending: PendingAuthorization, params: URLSearchParams): URLSearchParams {
  const iss = params.get("iss");
  const issuer = pending.as.issuer;
  let problem: string | undefined;
  if (iss === null && pending.as.authorization_response_iss_parameter_supported === true)
    problem = "iss_missing";
  else if (iss !== null && iss !== issuer) problem = "iss_mismatch";
  else if (params.get("state") === null) problem = "state_missing";
  else if (params.get("state") !== pending.state) problem = "state_mismatch";
  if (problem !== undefined) {
    // Nothing of the response (error, error_description) is shown: it may come from an attacker.
    throw authError(
      "authorization_response",
      `the authorization response was refused (${problem}); the code was not used`,
      {
        problem,
        issuer,
      },
    );
  }
  try {
    return validateAuthResponse(pending.as, libClient(pending.client), params, pending.state);
  } catch (error) {
    if (error instanceof AuthorizationResponseError) {
      throw authError("authorization_denied", `the authorization server answered ${error.error}`, {
        error: error.error,
        issuer,
      });
    }
    throw authError(
      "authorization_response",
      "the authorization response was refused; the code was not used",
      {
        problem: "invalid",
        issuer,
      },
    );
  }
}
