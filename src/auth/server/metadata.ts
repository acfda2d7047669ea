import { nonNegativeInteger } from "../../jsonrpc/config-check.js";
import { checkKeys, checkResource, checkScopes, invalid, isLoopback, metadataUrls } from "./resource.js";

/** Options of {@link protectedResourceMetadata}. Unknown keys are rejected. */
export interface ProtectedResourceOptions {
  /** The canonical URL of the MCP endpoint (`https://mcp.example.com/mcp`), served verbatim as `resource`. */
  resource: string;
  /** Issuer URLs of the authorization servers whose tokens this server accepts (at least one). */
  authorizationServers: readonly string[];
  /** Scopes a client may request (`scopes_supported`); leave out `offline_access` (SEP-2207). */
  scopesSupported?: readonly string[];
  /** A human-readable name (`resource_name`). */
  resourceName?: string;
  /** A page for developers (`resource_documentation`). */
  resourceDocumentation?: string;
  /** Seconds clients and caches may keep the document (`Cache-Control: max-age`, default 3,600). */
  maxAgeSeconds?: number;
}

/** A Protected Resource Metadata document and the handler that serves it at its well-known URLs. */
export interface ProtectedResource {
  /** The document (RFC 9728 §2). */
  readonly document: Readonly<Record<string, unknown>>;
  /** The URL advertised in `WWW-Authenticate: Bearer resource_metadata=...`: the path form. */
  readonly metadataUrl: string;
  /** The paths served: the path form (`/.well-known/oauth-protected-resource/mcp`) and the root form. */
  readonly paths: readonly string[];
  /**
   * Answers a request for the metadata: `GET`/`HEAD` 200 JSON, `OPTIONS` 204 (CORS preflight), other methods
   * 405. Returns `undefined` for any other path, so it can sit in front of another handler.
   */
  handle(request: Request): Response | undefined;
}

const KEYS = [
  "resource",
  "authorizationServers",
  "scopesSupported",
  "resourceName",
  "resourceDocumentation",
  "maxAgeSeconds",
] as const;

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "mcp-protocol-version",
} as const;

/**
 * Protected Resource Metadata (RFC 9728) for an MCP endpoint, served at the path-form well-known URL and at the
 * root form. The document is public, so every answer allows any origin (CORS). Throws `INVALID_CONFIG`.
 *
 * @example
 * const prm = protectedResourceMetadata({
 *   resource: "https://mcp.example.com/mcp",
 *   authorizationServers: ["https://auth.example.com"],
 *   scopesSupported: ["mcp:read", "mcp:write"],
 * });
 * const mcp = createHttpHandler(server, { authenticate: requireBearer({ metadata: prm, verify }) });
 * Bun.serve({ fetch: (request) => prm.handle(request) ?? mcp(request) });
 */
export function protectedResourceMetadata(options: ProtectedResourceOptions): ProtectedResource {
  checkKeys("options", options, KEYS);
  const resource = checkResource("resource", options.resource);
  const servers = options.authorizationServers;
  if (!Array.isArray(servers) || servers.length === 0) {
    throw invalid("authorizationServers", "must list at least one issuer URL");
  }
  for (const issuer of servers) checkIssuer("authorizationServers", issuer);
  const scopes = checkScopes("scopesSupported", options.scopesSupported);
  const maxAge = nonNegativeInteger(options.maxAgeSeconds, 3600, "maxAgeSeconds", "auth option ");
  const document: Record<string, unknown> = {
    resource: resource.resource,
    authorization_servers: [...servers],
    bearer_methods_supported: ["header"],
  };
  if (options.scopesSupported !== undefined) document.scopes_supported = [...scopes];
  for (const [key, name] of [
    ["resourceName", "resource_name"],
    ["resourceDocumentation", "resource_documentation"],
  ] as const) {
    const value = options[key];
    if (value === undefined) continue;
    if (typeof value !== "string" || value === "") throw invalid(key, "must be a non-empty string");
    document[name] = value;
  }
  const json = JSON.stringify(document);
  const urls = metadataUrls(resource);
  const paths = [...new Set([new URL(urls.pathForm).pathname, new URL(urls.root).pathname])];
  return Object.freeze({
    document: Object.freeze(document),
    metadataUrl: urls.pathForm,
    paths: Object.freeze(paths),
    handle(request: Request): Response | undefined {
      const { pathname } = new URL(request.url);
      if (!paths.includes(pathname)) return undefined;
      const method = request.method.toUpperCase();
      if (method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
      if (method !== "GET" && method !== "HEAD") {
        return new Response("Method Not Allowed", {
          status: 405,
          headers: { allow: "GET, HEAD, OPTIONS", ...CORS },
        });
      }
      return new Response(method === "HEAD" ? null : json, {
        status: 200,
        headers: {
          "content-type": "application/json",
          "cache-control": `public, max-age=${maxAge}`,
          ...CORS,
        },
      });
    },
  });
}

/** An issuer identifier (RFC 8414 §2): https (http on loopback), no query, no fragment. */
export function checkIssuer(key: string, issuer: unknown): string {
  if (typeof issuer !== "string") throw invalid(key, "must hold issuer URL strings");
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw invalid(key, `has an invalid issuer URL ${JSON.stringify(issuer)}`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url.hostname))) {
    throw invalid(key, "must hold https issuer URLs (http only on a loopback host)");
  }
  if (issuer.includes("?") || issuer.includes("#"))
    throw invalid(key, "must hold issuers without query or fragment");
  return issuer;
}
