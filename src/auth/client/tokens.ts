import {
  type AuthorizationServer,
  allowInsecureRequests,
  authorizationCodeGrantRequest,
  type Client,
  type ClientAuth,
  ClientSecretPost,
  customFetch,
  type DPoPHandle,
  genericTokenEndpointRequest,
  isDPoPNonceError,
  None,
  processAuthorizationCodeResponse,
  processGenericTokenEndpointResponse,
  processRefreshTokenResponse,
  ResponseBodyError,
  refreshTokenGrantRequest,
  type TokenEndpointResponse,
} from "oauth4webapi";
import { toBase64 } from "../../jsonrpc/base64.js";
import { authError } from "./errors.js";
import { type AuthHttp, libraryFetch } from "./http.js";
import type { ClientRegistration, StoredTokens } from "./store.js";

/** What a token request needs besides its grant. */
export interface TokenContext {
  readonly http: AuthHttp;
  readonly as: AuthorizationServer;
  readonly client: ClientRegistration;
  /** Overrides the client authentication picked from the registration (e.g. `private_key_jwt`). */
  readonly auth?: ClientAuth;
  readonly dpop?: DPoPHandle;
  /** Milliseconds since the epoch. */
  readonly now: number;
}

/**
 * `client_secret_basic` (RFC 6749 §2.3.1): id and secret form-urlencoded (WHATWG `application/x-www-form-urlencoded`,
 * which keeps `-`, `.`, `_` and `*`), joined by `:`, base64. Hand-written: the library also percent-encodes
 * `-._!~*'()`, which servers that do not decode the Basic credentials reject (`pre%2Dregistered`).
 */
export function clientSecretBasic(secret: string): ClientAuth {
  return (_as, client, _body, headers) => {
    const credentials = `${formEncode(client.client_id)}:${formEncode(secret)}`;
    headers.set("authorization", `Basic ${toBase64(new TextEncoder().encode(credentials))}`);
  };
}

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/** The library's view of a registration. */
export function libClient(client: ClientRegistration): Client {
  return client.token_endpoint_auth_method === undefined
    ? { client_id: client.client_id }
    : { client_id: client.client_id, token_endpoint_auth_method: client.token_endpoint_auth_method };
}

/**
 * The client authentication at the token endpoint: the registration's method, else the first the server
 * offers of `client_secret_basic` / `client_secret_post` (with a secret) or `none`, else RFC 8414's default,
 * `client_secret_basic` (with a secret) or `none` (without).
 */
export function clientAuthOf(client: ClientRegistration, as: AuthorizationServer): ClientAuth {
  const secret = client.client_secret;
  let method = client.token_endpoint_auth_method;
  if (method === undefined) {
    const offered = as.token_endpoint_auth_methods_supported;
    const usable = secret === undefined ? ["none"] : ["client_secret_basic", "client_secret_post", "none"];
    method = Array.isArray(offered) ? usable.find((m) => offered.includes(m)) : undefined;
    method ??= secret === undefined ? "none" : "client_secret_basic";
  }
  if (method === "client_secret_basic" && secret !== undefined) return clientSecretBasic(secret);
  if (method === "client_secret_post" && secret !== undefined) return ClientSecretPost(secret);
  return None();
}

function libOptions(context: TokenContext, extra: { [key: string]: string }) {
  return {
    [customFetch]: libraryFetch(context.http),
    [allowInsecureRequests]: true,
    signal: () => AbortSignal.timeout(context.http.timeoutMs),
    additionalParameters: extra,
    ...(context.dpop === undefined ? {} : { DPoP: context.dpop }),
  };
}

/** Runs a token request, once more when a DPoP server asks for a nonce; maps refusals to `UNAUTHORIZED`. */
async function tokenRequest(
  context: TokenContext,
  run: () => Promise<TokenEndpointResponse>,
  requestedScope: string | undefined,
): Promise<StoredTokens> {
  let response: TokenEndpointResponse;
  try {
    response = await run().catch((error: unknown) => {
      if (context.dpop !== undefined && isDPoPNonceError(error)) return run();
      throw error;
    });
  } catch (error) {
    throw tokenFailure(error, context.as.issuer);
  }
  return storedTokens(response, requestedScope, context.now);
}

/** The `UNAUTHORIZED` `token_request_failed` for a failed token request: the OAuth error code only. */
export function tokenFailure(error: unknown, issuer: string) {
  if (error instanceof ResponseBodyError) {
    return authError("token_request_failed", `the token endpoint refused: ${error.error}`, {
      issuer,
      error: error.error,
      status: error.status,
    });
  }
  return authError("token_request_failed", "the token request failed", { issuer });
}

/** Exchanges a validated authorization response's code (with the PKCE verifier and `resource`). */
export function exchangeCode(
  context: TokenContext,
  callback: URLSearchParams,
  redirectUri: string,
  verifier: string,
  resource: string,
  requestedScope: string | undefined,
): Promise<StoredTokens> {
  const client = libClient(context.client);
  const auth = context.auth ?? clientAuthOf(context.client, context.as);
  return tokenRequest(
    context,
    async () => {
      const response = await authorizationCodeGrantRequest(
        context.as,
        client,
        auth,
        callback,
        redirectUri,
        verifier,
        libOptions(context, { resource }),
      );
      return processAuthorizationCodeResponse(context.as, client, response);
    },
    requestedScope,
  );
}

/** Refreshes with `refresh_token` (and `resource`); the old refresh token is kept when none is returned. */
export async function refreshTokens(
  context: TokenContext,
  refreshToken: string,
  resource: string,
  previous: StoredTokens,
): Promise<StoredTokens> {
  const client = libClient(context.client);
  const auth = context.auth ?? clientAuthOf(context.client, context.as);
  const fresh = await tokenRequest(
    context,
    async () => {
      const response = await refreshTokenGrantRequest(
        context.as,
        client,
        auth,
        refreshToken,
        libOptions(context, { resource }),
      );
      return processRefreshTokenResponse(context.as, client, response);
    },
    previous.scope,
  );
  return fresh.refresh_token === undefined ? { ...fresh, refresh_token: refreshToken } : fresh;
}

/** Any other grant (`client_credentials`, `jwt-bearer`, token exchange) with its parameters. */
export function grantTokens(
  context: TokenContext,
  grantType: string,
  parameters: { [key: string]: string },
  requestedScope: string | undefined,
): Promise<StoredTokens> {
  const client = libClient(context.client);
  const auth = context.auth ?? clientAuthOf(context.client, context.as);
  return tokenRequest(
    context,
    async () => {
      const { additionalParameters: _, ...options } = libOptions(context, {});
      const response = await genericTokenEndpointRequest(
        context.as,
        client,
        auth,
        grantType,
        parameters,
        options,
      );
      return processGenericTokenEndpointResponse(context.as, client, response, {
        recognizedTokenTypes: { n_a: () => {} },
      });
    },
    requestedScope,
  );
}

/** What is kept of a token response. */
export function storedTokens(
  response: TokenEndpointResponse,
  requestedScope: string | undefined,
  now: number,
): StoredTokens {
  const expiresIn = typeof response.expires_in === "number" ? response.expires_in : undefined;
  const scope = typeof response.scope === "string" ? response.scope : requestedScope;
  return {
    access_token: response.access_token,
    token_type: response.token_type,
    ...(response.refresh_token === undefined ? {} : { refresh_token: response.refresh_token }),
    ...(expiresIn === undefined ? {} : { expires_at: now + expiresIn * 1000 }),
    ...(scope === undefined ? {} : { scope }),
  };
}
