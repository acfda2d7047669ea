import {
  type AuthorizationServer,
  type ClientAuth,
  type CryptoKey,
  modifyAssertion,
  None,
  PrivateKeyJwt,
} from "oauth4webapi";
import { fromBase64 } from "../../jsonrpc/base64.js";
import { authError } from "./errors.js";
import { checkEndpoint } from "./http.js";
import type { ClientRegistration, StoredTokens } from "./store.js";
import { clientSecretBasic, grantTokens, type TokenContext } from "./tokens.js";

/**
 * A grant without a person (machine-to-machine), instead of the authorization code flow:
 * - `client_credentials` with `client_secret_basic` (`clientSecret`) or `private_key_jwt` (`privateKey`: a
 *   PKCS#8 PEM or a `CryptoKey`; the assertion's `aud` is the issuer unless `audience` says otherwise);
 * - `jwt_bearer`: RFC 7523 with a workload identity token from `assertion()` (workload identity federation);
 *   a refusal is final (no retry, no other grant);
 * - `enterprise`: enterprise-managed authorization: an RFC 8693 exchange of the person's ID token at the
 *   identity provider for an ID-JAG, presented to the MCP authorization server as an RFC 7523 JWT bearer.
 */
export type MachineGrant =
  | {
      type: "client_credentials";
      clientId: string;
      clientSecret?: string;
      privateKey?: string | CryptoKey;
      /** Default `ES256`. */
      algorithm?: "ES256" | "RS256" | "PS256";
      audience?: string;
    }
  | {
      type: "jwt_bearer";
      clientId: string;
      /** The workload's JWT, fetched for each token request (it may be short-lived). */
      assertion: () => string | Promise<string>;
    }
  | {
      type: "enterprise";
      clientId: string;
      clientSecret?: string;
      idpTokenEndpoint: string;
      idpClientId: string;
      idpClientSecret?: string;
      /** The person's ID token from the identity provider, exchanged for an ID-JAG. */
      idToken: () => string | Promise<string>;
    };

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";

/** The registration and client authentication a machine grant uses. */
export async function machineClient(
  grant: MachineGrant,
  as: AuthorizationServer,
): Promise<{ client: ClientRegistration; auth: ClientAuth }> {
  const secret = grant.type === "jwt_bearer" ? undefined : grant.clientSecret;
  const client: ClientRegistration = { client_id: grant.clientId, source: "preregistered" };
  if (grant.type === "client_credentials" && grant.privateKey !== undefined) {
    const key = await privateKeyOf(grant.privateKey, grant.algorithm ?? "ES256");
    const audience = grant.audience ?? as.issuer;
    const auth = PrivateKeyJwt(key, {
      [modifyAssertion]: (_header: unknown, payload: { aud?: unknown }) => {
        payload.aud = audience;
      },
    });
    return { client: { ...client, token_endpoint_auth_method: "private_key_jwt" }, auth };
  }
  if (secret !== undefined)
    return { client: { ...client, client_secret: secret }, auth: clientSecretBasic(secret) };
  return { client, auth: None() };
}

/** Runs a machine grant at the MCP authorization server. */
export async function machineTokens(
  grant: MachineGrant,
  context: TokenContext,
  resource: string,
  scopes: readonly string[],
): Promise<StoredTokens> {
  const scope = scopes.length > 0 ? scopes.join(" ") : undefined;
  const withScope = (params: { [key: string]: string }) =>
    scope === undefined ? params : { ...params, scope };
  if (grant.type === "client_credentials") {
    return grantTokens(context, "client_credentials", withScope({ resource }), scope);
  }
  if (grant.type === "jwt_bearer") {
    return grantTokens(
      context,
      JWT_BEARER,
      withScope({ assertion: await grant.assertion(), resource }),
      scope,
    );
  }
  const idJag = await exchangeAtIdp(grant, context, resource, scope);
  return grantTokens(context, JWT_BEARER, withScope({ assertion: idJag, resource }), scope);
}

/** RFC 8693 at the identity provider: the person's ID token for an ID-JAG aimed at the MCP authorization server. */
async function exchangeAtIdp(
  grant: Extract<MachineGrant, { type: "enterprise" }>,
  context: TokenContext,
  resource: string,
  scope: string | undefined,
): Promise<string> {
  const endpoint = checkEndpoint(
    grant.idpTokenEndpoint,
    "identity provider token endpoint",
    context.http,
  ).href;
  const idp: AuthorizationServer = { issuer: new URL(endpoint).origin, token_endpoint: endpoint };
  const client: ClientRegistration = {
    client_id: grant.idpClientId,
    ...(grant.idpClientSecret === undefined ? {} : { client_secret: grant.idpClientSecret }),
    source: "preregistered",
  };
  const auth = grant.idpClientSecret === undefined ? None() : clientSecretBasic(grant.idpClientSecret);
  const params: { [key: string]: string } = {
    requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
    subject_token: await grant.idToken(),
    subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
    audience: context.as.issuer,
    resource,
    ...(scope === undefined ? {} : { scope }),
  };
  const { dpop: _, ...plain } = context;
  const tokens = await grantTokens({ ...plain, as: idp, client, auth }, TOKEN_EXCHANGE, params, scope);
  return tokens.access_token;
}

async function privateKeyOf(
  key: string | CryptoKey,
  algorithm: "ES256" | "RS256" | "PS256",
): Promise<CryptoKey> {
  if (typeof key !== "string") return key;
  const body = key.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, "").replace(/\s+/g, "");
  const der = fromBase64(body);
  if (der === undefined) throw authError("token_request_failed", "privateKey is not a PKCS#8 PEM key");
  const params =
    algorithm === "ES256"
      ? { name: "ECDSA", namedCurve: "P-256" }
      : { name: algorithm === "RS256" ? "RSASSA-PKCS1-v1_5" : "RSA-PSS", hash: "SHA-256" };
  try {
    return await crypto.subtle.importKey("pkcs8", der, params, false, ["sign"]);
  } catch {
    throw authError("token_request_failed", `privateKey could not be imported for ${algorithm}`);
  }
}
