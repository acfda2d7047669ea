import type { GatewayAuth } from "../gateway/index.js";
import type { HttpHandlerOptions } from "../http/index.js";

/** What `gateway.auth` puts in front of `mcpkit gateway`'s endpoint. */
export interface GatewayFront {
  /** mcpkit/auth's `requireBearer`: a JWT access token of the issuer, for this resource, on every request. */
  readonly authenticate: NonNullable<HttpHandlerOptions["authenticate"]>;
  /** Answers the Protected Resource Metadata's well-known paths; `undefined` for any other request. */
  handle(request: Request): Response | undefined;
  /** The paths `handle` answers. */
  readonly paths: readonly string[];
}

/**
 * The resource server of `gateway.auth`: tokens checked with mcpkit/auth's `jwtVerifier` (signature against the
 * issuer's keys, audience the gateway's `resource`, expiry), `requireBearer` answering 401 with a challenge that
 * names the metadata, which names the issuer, so a client discovers where to get a token. mcpkit/auth loads only
 * for a config that has `gateway.auth`.
 */
export async function gatewayFront(auth: GatewayAuth): Promise<GatewayFront> {
  const { jwtVerifier, protectedResourceMetadata, requireBearer } = await import("../auth/index.js");
  const scopes = auth.scopesSupported ?? auth.requiredScopes;
  const metadata = protectedResourceMetadata({
    resource: auth.resource,
    authorizationServers: [auth.issuer],
    ...(scopes === undefined ? {} : { scopesSupported: scopes }),
  });
  const verify = jwtVerifier({
    issuer: auth.issuer,
    ...(auth.jwksUri === undefined ? {} : { jwksUri: auth.jwksUri }),
  });
  const authenticate = requireBearer({
    verify,
    resource: auth.resource,
    resourceMetadataUrl: metadata.metadataUrl,
    ...(auth.requiredScopes === undefined ? {} : { requiredScopes: auth.requiredScopes }),
  });
  return { authenticate, handle: (request) => metadata.handle(request), paths: metadata.paths };
}
