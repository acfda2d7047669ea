import { type AuthorizationServer, processDiscoveryResponse } from "oauth4webapi";
import { authError } from "./errors.js";
import { type AuthHttp, checkEndpoint, getDocument, jsonObjectOf } from "./http.js";

/** Protected Resource Metadata (RFC 9728) as the OAuth client uses it. */
export interface ResourceMetadata {
  /** `resource`, exactly as the document spells it: sent byte for byte as the `resource` parameter. */
  readonly resource: string;
  /** `authorization_servers`, in the document's order (at least one). */
  readonly authorizationServers: readonly string[];
  /** `scopes_supported`, when the document has it. */
  readonly scopesSupported?: readonly string[];
  /** The URL the document came from. */
  readonly url: string;
}

/**
 * Where Protected Resource Metadata is looked for, in order: the `resource_metadata` URL of the challenge, then
 * the path form (`/.well-known/oauth-protected-resource/<path>`), then the root form.
 */
export function resourceMetadataCandidates(serverUrl: URL, headerUrl: string | undefined): string[] {
  const out: string[] = [];
  if (headerUrl !== undefined) out.push(headerUrl);
  const path = serverUrl.pathname.replace(/\/$/, "");
  if (path !== "") out.push(`${serverUrl.origin}/.well-known/oauth-protected-resource${path}`);
  out.push(`${serverUrl.origin}/.well-known/oauth-protected-resource`);
  return out;
}

/**
 * True when `resource` may stand for `serverUrl` (RFC 9728 §3.3, as MCP clients apply it): same scheme, host
 * and port, no fragment, and a path that is the server's path or a whole-segment prefix of it.
 */
export function resourceMatches(resource: string, serverUrl: URL): boolean {
  let parsed: URL;
  try {
    parsed = new URL(resource);
  } catch {
    return false;
  }
  if (parsed.hash !== "" || resource.includes("#")) return false;
  if (parsed.protocol !== serverUrl.protocol || parsed.host !== serverUrl.host) return false;
  const prefix = parsed.pathname.replace(/\/$/, "");
  const path = serverUrl.pathname;
  return prefix === "" || path === prefix || path === `${prefix}/` || path.startsWith(`${prefix}/`);
}

/**
 * Fetches the server's Protected Resource Metadata: the first candidate that answers with a usable document
 * (200, JSON, `resource` and a non-empty `authorization_servers`) wins; anything else is skipped. A usable
 * document whose `resource` is not this server's throws `UNAUTHORIZED` `resource_mismatch`. Undefined when no
 * candidate has one.
 */
export async function discoverResourceMetadata(
  http: AuthHttp,
  serverUrl: URL,
  headerUrl: string | undefined,
): Promise<ResourceMetadata | undefined> {
  const header =
    headerUrl === undefined ? undefined : checkEndpoint(headerUrl, "resource_metadata URL", http).href;
  for (const url of resourceMetadataCandidates(serverUrl, header === undefined ? undefined : headerUrl)) {
    const body = jsonObjectOf(await getDocument(http, url));
    if (body === undefined) continue;
    const { resource, authorization_servers: servers, scopes_supported: scopes } = body;
    if (typeof resource !== "string" || !isStringList(servers) || servers.length === 0) continue;
    if (!resourceMatches(resource, serverUrl)) {
      throw authError(
        "resource_mismatch",
        "the Protected Resource Metadata names another resource than this server",
        {
          resource,
          server: `${serverUrl.origin}${serverUrl.pathname}`,
        },
      );
    }
    const found: ResourceMetadata = { resource, authorizationServers: servers, url };
    return isStringList(scopes) ? { ...found, scopesSupported: scopes } : found;
  }
  return undefined;
}

/**
 * Where an issuer's metadata is looked for, in the order MCP gives: for an issuer with a path, RFC 8414 path
 * insertion, then OIDC path insertion, then OIDC path appending (never the root documents); for one without,
 * the RFC 8414 document, then the OIDC one.
 */
export function authorizationServerCandidates(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, "");
  if (path === "") {
    return [
      `${url.origin}/.well-known/oauth-authorization-server`,
      `${url.origin}/.well-known/openid-configuration`,
    ];
  }
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * Fetches an authorization server's metadata: the first candidate with a usable document wins. A document is
 * usable when it is a 200 JSON object whose `issuer` is **identical** to `issuer` (no normalization: a trailing
 * slash or a case change is another issuer) and whose endpoints are https (or loopback http). A 4xx, an HTML
 * page or an OIDC document without OIDC-only fields is simply skipped. Throws `UNAUTHORIZED` `issuer_mismatch`
 * when only documents for another issuer answered, `no_authorization_server_metadata` when none did.
 */
export async function discoverAuthorizationServer(
  http: AuthHttp,
  issuer: string,
): Promise<AuthorizationServer> {
  const issuerUrl = checkEndpoint(issuer, "authorization server issuer", http);
  let mismatch = false;
  for (const url of authorizationServerCandidates(issuer)) {
    const document = await getDocument(http, url);
    const body = jsonObjectOf(document);
    if (body === undefined) continue;
    if (body.issuer !== issuer) {
      mismatch = true;
      continue;
    }
    let metadata: AuthorizationServer;
    try {
      // The library's own checks (a JSON object with a string issuer) on the document already read.
      const response = new Response(document.text, {
        status: 200,
        headers: { "content-type": "application/json" },
      });
      metadata = await processDiscoveryResponse(issuerUrl, response);
    } catch {
      continue;
    }
    for (const key of ["authorization_endpoint", "token_endpoint", "registration_endpoint"] as const) {
      if (metadata[key] !== undefined) checkEndpoint(metadata[key], key, http);
    }
    return metadata;
  }
  if (mismatch) {
    throw authError("issuer_mismatch", "the authorization server metadata is for another issuer: not used", {
      issuer,
    });
  }
  throw authError("no_authorization_server_metadata", "no usable authorization server metadata was found", {
    issuer,
  });
}

/** Throws `UNAUTHORIZED` `pkce_unsupported` unless the metadata lists `S256` in `code_challenge_methods_supported`. */
export function requireS256(metadata: AuthorizationServer): void {
  const methods = metadata.code_challenge_methods_supported;
  if (!Array.isArray(methods) || !methods.includes("S256")) {
    throw authError("pkce_unsupported", "the authorization server does not advertise PKCE with S256", {
      issuer: metadata.issuer,
    });
  }
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
