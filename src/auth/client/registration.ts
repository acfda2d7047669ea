import {
  type AuthorizationServer,
  allowInsecureRequests,
  customFetch,
  dynamicClientRegistrationRequest,
} from "oauth4webapi";
import { authError } from "./errors.js";
import { type AuthHttp, libraryFetch, MAX_DOCUMENT_BYTES } from "./http.js";
import type { ClientRegistration } from "./store.js";

/** A client registered with an authorization server beforehand (by hand, or by the vendor). */
export interface PreRegisteredClient {
  /** The authorization server it belongs to; when set, it is used there only (and nowhere else). */
  issuer?: string;
  clientId: string;
  clientSecret?: string;
  /** Default: `client_secret_basic` with a secret, `none` without. */
  tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "none";
}

/** What registration needs to know about this client. */
export interface RegistrationContext {
  readonly http: AuthHttp;
  readonly redirectUri: string;
  readonly clientName: string;
  readonly applicationType: "native" | "web";
  readonly preRegistered: readonly PreRegisteredClient[];
  readonly clientIdMetadataUrl: string | undefined;
  /** Seconds since the epoch. */
  readonly nowSeconds: number;
}

/**
 * The client to use at `metadata.issuer`, in MCP's order: a pre-registered client for this issuer, then a
 * still-valid registration from the store, then a Client ID Metadata Document (when the server supports them
 * and one is configured), then Dynamic Client Registration. Throws `UNAUTHORIZED` (`no_registration`,
 * `preregistered_for_other_issuer`, `registration_failed`).
 */
export async function obtainClient(
  context: RegistrationContext,
  metadata: AuthorizationServer,
  stored: ClientRegistration | undefined,
): Promise<ClientRegistration> {
  const issuer = metadata.issuer;
  const pre =
    context.preRegistered.find((entry) => entry.issuer === issuer) ??
    context.preRegistered.find((entry) => entry.issuer === undefined);
  if (pre !== undefined) return preRegistration(pre);
  if (
    stored !== undefined &&
    stored.source !== "preregistered" &&
    !secretExpired(stored, context.nowSeconds)
  ) {
    return stored;
  }
  if (context.clientIdMetadataUrl !== undefined && metadata.client_id_metadata_document_supported === true) {
    return { client_id: context.clientIdMetadataUrl, token_endpoint_auth_method: "none", source: "cimd" };
  }
  if (metadata.registration_endpoint !== undefined) return register(context, metadata);
  if (context.preRegistered.length > 0) {
    throw authError(
      "preregistered_for_other_issuer",
      "the pre-registered client belongs to another authorization server",
      {
        issuer,
      },
    );
  }
  throw authError("no_registration", "the authorization server offers no way to register this client", {
    issuer,
  });
}

/** True when a registration's secret has expired (`client_secret_expires_at` passed; 0 never expires). */
export function secretExpired(client: ClientRegistration, nowSeconds: number): boolean {
  const at = client.client_secret_expires_at;
  return client.client_secret !== undefined && at !== undefined && at !== 0 && at <= nowSeconds;
}

function preRegistration(pre: PreRegisteredClient): ClientRegistration {
  const method =
    pre.tokenEndpointAuthMethod ?? (pre.clientSecret === undefined ? "none" : "client_secret_basic");
  return pre.clientSecret === undefined
    ? { client_id: pre.clientId, token_endpoint_auth_method: method, source: "preregistered" }
    : {
        client_id: pre.clientId,
        client_secret: pre.clientSecret,
        token_endpoint_auth_method: method,
        source: "preregistered",
      };
}

/** The token endpoint auth method to ask for: `none` when offered (a public client), else a secret method. */
function preferredAuthMethod(metadata: AuthorizationServer): string | undefined {
  const offered = metadata.token_endpoint_auth_methods_supported;
  if (!Array.isArray(offered)) return undefined;
  return ["none", "client_secret_basic", "client_secret_post"].find((method) => offered.includes(method));
}

async function register(
  context: RegistrationContext,
  metadata: AuthorizationServer,
): Promise<ClientRegistration> {
  const method = preferredAuthMethod(metadata);
  const body = {
    client_name: context.clientName,
    redirect_uris: [context.redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    application_type: context.applicationType,
    ...(method === undefined ? {} : { token_endpoint_auth_method: method }),
  };
  let response: Response;
  try {
    response = await dynamicClientRegistrationRequest(metadata, body, {
      [customFetch]: libraryFetch(context.http),
      [allowInsecureRequests]: true,
      signal: AbortSignal.timeout(context.http.timeoutMs),
    });
  } catch {
    throw authError("registration_failed", "the registration request failed", { issuer: metadata.issuer });
  }
  // Parsed here, not by the library: servers often omit client_secret_expires_at (RFC 7591 asks for it), and
  // some answer 200; both are accepted. A secret without expiry never expires. A 4xx body carries the OAuth
  // error (RFC 7591 section 3.2.2), of which only `error` and `error_description` are kept.
  const json = await registrationBody(response);
  if (response.status !== 200 && response.status !== 201) {
    throw registrationRefused(response.status, json, metadata.issuer);
  }
  if (typeof json.client_id !== "string" || json.client_id === "") {
    throw authError("registration_failed", `the registration endpoint answered no client_id`, {
      issuer: metadata.issuer,
      status: response.status,
    });
  }
  const secret = typeof json.client_secret === "string" ? json.client_secret : undefined;
  const expires =
    typeof json.client_secret_expires_at === "number" ? json.client_secret_expires_at : undefined;
  const registered =
    typeof json.token_endpoint_auth_method === "string" ? json.token_endpoint_auth_method : method;
  return {
    client_id: json.client_id,
    ...(secret === undefined ? {} : { client_secret: secret }),
    ...(expires === undefined ? {} : { client_secret_expires_at: expires }),
    ...(registered === undefined ? {} : { token_endpoint_auth_method: registered }),
    source: "dcr",
  };
}

/** The JSON object of a registration response (success, or a 4xx error), bounded; `{}` for anything else. */
async function registrationBody(response: Response): Promise<{ [key: string]: unknown }> {
  const status = response.status;
  const declared = Number(response.headers.get("content-length"));
  if (
    !(status === 200 || status === 201 || (status >= 400 && status < 500)) ||
    (Number.isFinite(declared) && declared > MAX_DOCUMENT_BYTES)
  ) {
    await response.body?.cancel().catch(() => {});
    return {};
  }
  const text = await response.text().catch(() => "");
  try {
    const parsed: unknown =
      text.length > 0 && text.length <= MAX_DOCUMENT_BYTES ? JSON.parse(text) : undefined;
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as { [key: string]: unknown })
      : {};
  } catch {
    return {};
  }
}

/** RFC 6749's characters for `error` and `error_description` (printable ASCII without `"` and `\`). */
const OAUTH_TEXT = /^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/;
const MAX_DESCRIPTION = 500;

/**
 * The `UNAUTHORIZED` `registration_failed` for a refused registration: the status, and the OAuth `error` and
 * `error_description` when they are well-formed (nothing else of the body, which may echo what was sent).
 */
function registrationRefused(status: number, json: { [key: string]: unknown }, issuer: string) {
  const error = typeof json.error === "string" && OAUTH_TEXT.test(json.error) ? json.error : undefined;
  const rawDescription = json.error_description;
  const description =
    typeof rawDescription === "string" && OAUTH_TEXT.test(rawDescription)
      ? rawDescription.slice(0, MAX_DESCRIPTION)
      : undefined;
  const message =
    error === undefined
      ? `the registration endpoint refused (HTTP ${status})`
      : `the registration endpoint refused (HTTP ${status}): ${error}`;
  return authError("registration_failed", message, {
    issuer,
    status,
    ...(error === undefined ? {} : { error }),
    ...(description === undefined ? {} : { error_description: description }),
  });
}
