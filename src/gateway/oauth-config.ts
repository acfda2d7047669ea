import { checkOptions, nonNegativeInteger, optionError } from "../jsonrpc/config-check.js";

/**
 * How the gateway gets tokens for one HTTP upstream (its `oauth` key). Secrets are never in the config: only the
 * name of the environment variable that holds one.
 */
export interface UpstreamOAuth {
  /**
   * `client_credentials`: the gateway's own machine grant; `authorization_code`: a person logs in once with
   * `mcpkit gateway login` (PKCE, a loopback redirect) and the gateway uses and refreshes the stored tokens.
   */
  readonly grant: "client_credentials" | "authorization_code";
  /** The pre-registered client; optional for a login (Dynamic Client Registration then). */
  readonly clientId: string | undefined;
  /** The environment variable holding the client secret (`clientSecretEnv`, or `clientSecret: "${NAME}"`). */
  readonly clientSecretEnv: string | undefined;
  /** Scopes to ask for instead of MCP's selection (the challenge's, else the resource's `scopes_supported`). */
  readonly scopes: readonly string[] | undefined;
  /** A login's redirect port on 127.0.0.1 (0: any free one; fix it for a client registered with a port). */
  readonly redirectPort: number;
}

const OAUTH_KEYS = ["grant", "clientId", "clientSecret", "clientSecretEnv", "scopes", "redirectPort"];
const GRANTS = ["client_credentials", "authorization_code"];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ENV_REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
// RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\`.
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * Checks an HTTP upstream's `oauth` key (`key` is its path, `mcpServers.search.oauth`); `headers` are the entry's
 * static headers, which may not carry an `Authorization` of their own besides it.
 */
export function parseUpstreamOAuth(
  value: unknown,
  key: string,
  headers: { readonly [name: string]: string },
): UpstreamOAuth {
  const input = checkOptions(value as { [key: string]: unknown }, OAUTH_KEYS, key);
  const headersKey = key.replace(/\.oauth$/, ".headers");
  const fixed = Object.keys(headers).find((name) => name.toLowerCase() === "authorization");
  if (fixed !== undefined) {
    throw optionError(`${headersKey}.${fixed}`, "cannot be set with oauth (the OAuth client sets it)");
  }
  const grant = input.grant;
  if (typeof grant !== "string" || !GRANTS.includes(grant)) {
    throw optionError(`${key}.grant`, `must be ${GRANTS.map((g) => `"${g}"`).join(" or ")}`);
  }
  const clientId = input.clientId;
  if (clientId !== undefined && (typeof clientId !== "string" || clientId === "")) {
    throw optionError(`${key}.clientId`, "must be a non-empty string");
  }
  const clientSecretEnv = secretEnvOf(input.clientSecret, input.clientSecretEnv, key);
  if (grant === "client_credentials") {
    if (clientId === undefined) throw optionError(`${key}.clientId`, "is required for client_credentials");
    if (clientSecretEnv === undefined) {
      throw optionError(
        `${key}.clientSecretEnv`,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own "${NAME}" syntax
        'is required for client_credentials (or clientSecret: "${NAME}"): the variable holding the secret',
      );
    }
  } else if (clientSecretEnv !== undefined && clientId === undefined) {
    throw optionError(`${key}.clientId`, "is required with a client secret (a pre-registered client)");
  }
  if (input.redirectPort !== undefined && grant !== "authorization_code") {
    throw optionError(`${key}.redirectPort`, "applies to authorization_code only");
  }
  const redirectPort = nonNegativeInteger(input.redirectPort, 0, `${key}.redirectPort`);
  if (redirectPort > 65_535) throw optionError(`${key}.redirectPort`, "must be 0 to 65535");
  return Object.freeze({
    grant: grant as UpstreamOAuth["grant"],
    clientId: clientId as string | undefined,
    clientSecretEnv,
    scopes: scopesOf(input.scopes, `${key}.scopes`),
    redirectPort,
  });
}

/** `gateway.tokenStore`: the directory of the per-upstream token files, if the config names one. */
export function parseTokenStore(value: unknown): string | undefined {
  const input = checkOptions(value as { [key: string]: unknown } | undefined, ["dir"], "gateway.tokenStore");
  if (input.dir === undefined) return undefined;
  if (typeof input.dir !== "string" || input.dir === "") {
    throw optionError("gateway.tokenStore.dir", "must be a non-empty string (a directory)");
  }
  return input.dir;
}

/**
 * `gateway.auth`: the OAuth resource server `mcpkit gateway` puts in front of its HTTP endpoint (mcpkit/auth's
 * `requireBearer` with a `jwtVerifier` of the issuer, and Protected Resource Metadata naming it). A program puts
 * its own `authenticate` in front instead.
 */
export interface GatewayAuth {
  /** The authorization server whose JWT access tokens it accepts (`https`, or `http` on loopback). */
  readonly issuer: string;
  /** The gateway's own URL as clients reach it: the tokens' audience and the metadata's `resource`. */
  readonly resource: string;
  /** The issuer's JWKS, when its metadata does not say (default: discovered). */
  readonly jwksUri: string | undefined;
  /** Scopes every token must carry (default none). */
  readonly requiredScopes: readonly string[] | undefined;
  /** Scopes the metadata advertises (default `requiredScopes`). */
  readonly scopesSupported: readonly string[] | undefined;
}

const AUTH_KEYS = ["issuer", "resource", "jwksUri", "requiredScopes", "scopesSupported"];

/** Checks `gateway.auth`; `undefined` when absent. */
export function parseGatewayAuth(value: unknown): GatewayAuth | undefined {
  if (value === undefined) return undefined;
  const input = checkOptions(value as { [key: string]: unknown }, AUTH_KEYS, "gateway.auth");
  return Object.freeze({
    issuer: urlAt(input.issuer, "gateway.auth.issuer"),
    resource: urlAt(input.resource, "gateway.auth.resource"),
    jwksUri: input.jwksUri === undefined ? undefined : urlAt(input.jwksUri, "gateway.auth.jwksUri"),
    requiredScopes: scopesOf(input.requiredScopes, "gateway.auth.requiredScopes"),
    scopesSupported: scopesOf(input.scopesSupported, "gateway.auth.scopesSupported"),
  });
}

/** An `https` URL, or `http` on a loopback host. */
function urlAt(value: unknown, key: string): string {
  if (typeof value !== "string" || !URL.canParse(value)) throw optionError(key, "must be a URL");
  const url = new URL(value);
  const loopback = ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw optionError(key, "must be an https URL (http only on a loopback host)");
  }
  return value;
}

/** The variable holding the secret: `clientSecretEnv: "NAME"` or `clientSecret: "${NAME}"`, never a literal. */
function secretEnvOf(secret: unknown, env: unknown, key: string): string | undefined {
  if (secret !== undefined && env !== undefined) {
    throw optionError(`${key}.clientSecretEnv`, "and clientSecret say the same thing: give one, not both");
  }
  if (env !== undefined) {
    if (typeof env !== "string" || !ENV_NAME.test(env)) {
      throw optionError(`${key}.clientSecretEnv`, "must be an environment variable name (A-Z a-z 0-9 _)");
    }
    return env;
  }
  if (secret === undefined) return undefined;
  const reference = typeof secret === "string" ? ENV_REFERENCE.exec(secret)?.[1] : undefined;
  if (reference === undefined) {
    // The value is not repeated: it may be the secret itself.
    throw optionError(
      `${key}.clientSecret`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own "${NAME}" syntax
      'must not be written in the file: use "${NAME}" or clientSecretEnv to read it from the environment',
    );
  }
  return reference;
}

function scopesOf(value: unknown, key: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw optionError(key, "must be an array of scopes");
  value.forEach((scope, index) => {
    if (typeof scope !== "string" || !SCOPE_TOKEN.test(scope)) {
      throw optionError(
        `${key}[${index}]`,
        "must be a scope (printable ASCII, no space, quote or backslash)",
      );
    }
  });
  return Object.freeze([...(value as string[])]);
}
