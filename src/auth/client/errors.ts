import { McpkitError } from "../../jsonrpc/errors.js";

/**
 * Why authorization stopped, as `details.reason` of an `McpkitError` `UNAUTHORIZED`:
 * - `interaction_required`: a person must open `details.authorizationUrl` (no redirect hook, or it returned
 *   nothing); call `finishAuthorization(callbackUrl)` afterwards;
 * - `resource_mismatch`: the Protected Resource Metadata names another resource than the server;
 * - `no_resource_metadata` / `no_authorization_server_metadata`: discovery found no usable document;
 * - `issuer_mismatch`: the metadata's `issuer` differs from the issuer it was fetched for (never used);
 * - `pkce_unsupported`: the authorization server does not advertise `S256`;
 * - `insecure_endpoint`: an endpoint is plain `http` to a non-loopback host;
 * - `authorization_response`: the redirect's `state` or `iss` is wrong or missing (the code was not sent);
 * - `authorization_denied`: the authorization server answered with an error;
 * - `registration_failed` / `no_registration`: the client could not get a `client_id` for this server (a refusal
 *   carries `details.status`, and `details.error` / `details.error_description` when the server sent them);
 * - `preregistered_for_other_issuer`: the configured client belongs to another authorization server;
 * - `token_request_failed`: the token endpoint refused (`details.error` is its OAuth error code);
 * - `budget_exhausted`: the authorization attempts allowed for one operation are used up.
 */
export type AuthFailureReason =
  | "interaction_required"
  | "resource_mismatch"
  | "no_resource_metadata"
  | "no_authorization_server_metadata"
  | "issuer_mismatch"
  | "pkce_unsupported"
  | "insecure_endpoint"
  | "authorization_response"
  | "authorization_denied"
  | "registration_failed"
  | "no_registration"
  | "preregistered_for_other_issuer"
  | "token_request_failed"
  | "budget_exhausted";

/** An `McpkitError` `UNAUTHORIZED` with `details.reason`; `details` never carry a token, code or secret. */
export function authError(
  reason: AuthFailureReason,
  message: string,
  details: { [key: string]: unknown } = {},
): McpkitError {
  return new McpkitError("UNAUTHORIZED", message, { details: { reason, ...details } });
}

/** True for an `UNAUTHORIZED` error of `reason`. */
export function isAuthFailure(error: unknown, reason?: AuthFailureReason): error is McpkitError {
  return (
    error instanceof McpkitError &&
    error.code === "UNAUTHORIZED" &&
    (reason === undefined || error.details?.reason === reason)
  );
}
