/**
 * A real authorization server for the OAuth client's tests: `oidc-provider` (a certified OpenID provider) on
 * 127.0.0.1 with resource indicators, dynamic client registration, PKCE, RFC 9207 `iss` and refresh tokens, and
 * an interaction route that logs "alice" in and consents to what is asked (no person). Beside it, on its own
 * port, an mcpkit server behind a bearer check that looks the opaque access token up in the provider (audience
 * = the MCP resource, scopes per tool) and answers the MCP challenges: 401 with `resource_metadata`, 403
 * `insufficient_scope` with the scopes the call needs.
 *
 * @example
 * const world = await startOidcClientWorld({ scopes: ["mcp:read", "mcp:write"], toolScopes: { write: ["mcp:write"] } });
 */
import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { errors } from "oidc-provider";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { toNodeHandler } from "../../src/node/adapter.js";
import { ServerBuilder } from "../../src/server/builder.js";

export interface OidcClientWorldOptions {
  /** Scopes the resource accepts (its PRM `scopes_supported`). */
  scopes: readonly string[];
  /** Scopes every MCP request needs (the 401 challenge's `scope`). */
  requiredScopes?: readonly string[];
  /** Extra scopes per tool (403 insufficient_scope without them). */
  toolScopes?: { [tool: string]: readonly string[] };
}

export interface OidcClientWorld {
  readonly issuer: string;
  readonly mcpUrl: string;
  readonly provider: Provider;
  /** Token grants that succeeded, by `grant_type`. */
  readonly grants: { [type: string]: number };
  /** The `scope` of every authorization request that reached the provider, in order. */
  readonly authorizationScopes: string[];
  /** The `resource` of every authorization request, in order. */
  readonly authorizationResources: string[];
  /** Status of every MCP response the bearer check refused. */
  readonly refusals: number[];
  /** Revokes every access token the MCP server accepted so far (refresh tokens stay). */
  revokeAccessTokens(): Promise<void>;
  close(): Promise<void>;
}

/** Starts oidc-provider and a protected mcpkit server, each on a free loopback port. */
export async function startOidcClientWorld(options: OidcClientWorldOptions): Promise<OidcClientWorld> {
  const asHttp = await listen();
  const mcpHttp = await listen();
  const issuer = `http://127.0.0.1:${(asHttp.address() as AddressInfo).port}`;
  const mcpBase = `http://127.0.0.1:${(mcpHttp.address() as AddressInfo).port}`;
  const resource = `${mcpBase}/mcp`;
  // RS256 signs ID tokens (the registration default); access tokens are opaque.
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...key, kid: "rsa-1", use: "sig", alg: "RS256" }] },
    cookies: { keys: ["oidc-client-world-cookie-key"] },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    scopes: ["openid", "offline_access", ...options.scopes],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget();
          return {
            scope: options.scopes.join(" "),
            audience: resource,
            accessTokenFormat: "opaque",
            accessTokenTTL: 3600,
          };
        },
      },
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
  });
  const grants: { [type: string]: number } = {};
  provider.on("grant.success", (ctx) => {
    const type = String(ctx.oidc.params?.grant_type ?? "unknown");
    grants[type] = (grants[type] ?? 0) + 1;
  });
  const authorizationScopes: string[] = [];
  const authorizationResources: string[] = [];
  const accepted = new Set<string>(); // access tokens the bearer check let through
  provider.on("authorization.accepted", (ctx) => {
    authorizationScopes.push(String(ctx.oidc.params?.scope ?? ""));
    authorizationResources.push(String(ctx.oidc.params?.resource ?? ""));
  });
  const callback = provider.callback();
  asHttp.on("request", (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith("/interaction/")) {
      consent(provider, req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
      return;
    }
    void callback(req, res);
  });

  const server = new ServerBuilder({ serverInfo: { name: "oidc-protected", version: "1.0.0" } })
    .tool({ name: "read", inputSchema: { type: "object" } }, () => ({
      content: [{ type: "text", text: "read" }],
    }))
    .tool({ name: "write", inputSchema: { type: "object" } }, () => ({
      content: [{ type: "text", text: "written" }],
    }))
    .build();
  const handler = createHttpHandler(server);
  const mcpListener = toNodeHandler(handler);
  const prmUrl = `${mcpBase}/.well-known/oauth-protected-resource/mcp`;
  const required = options.requiredScopes ?? [];
  const refusals: number[] = [];
  mcpHttp.on("request", (req: IncomingMessage, res: ServerResponse) => {
    if (req.url === "/.well-known/oauth-protected-resource/mcp") {
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          resource,
          authorization_servers: [issuer],
          scopes_supported: options.scopes,
          bearer_methods_supported: ["header"],
        }),
      );
      return;
    }
    guard(req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
  });

  async function guard(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const header = req.headers.authorization;
    const value = header?.startsWith("Bearer ") ? header.slice(7) : undefined;
    const token = value === undefined ? undefined : await provider.AccessToken.find(value);
    const granted = token?.scope?.split(" ") ?? [];
    if (token === undefined || token.isExpired || token.aud !== resource) {
      refusals.push(401);
      const scope = required.length > 0 ? `, scope="${required.join(" ")}"` : "";
      res
        .writeHead(401, {
          "www-authenticate": `Bearer error="invalid_token", resource_metadata="${prmUrl}"${scope}`,
        })
        .end();
      return;
    }
    accepted.add(token.jti);
    const body = req.method === "POST" ? await readJson(req) : undefined;
    const tool = body?.method === "tools/call" ? (body.params?.name ?? "") : "";
    const needed = [...required, ...(options.toolScopes?.[tool] ?? [])];
    if (!needed.every((scope) => granted.includes(scope))) {
      refusals.push(403);
      res
        .writeHead(403, {
          "www-authenticate": `Bearer error="insufficient_scope", scope="${needed.join(" ")}", resource_metadata="${prmUrl}"`,
        })
        .end();
      return;
    }
    await mcpListener(req, res, body);
  }

  return {
    issuer,
    mcpUrl: resource,
    provider,
    grants,
    authorizationScopes,
    authorizationResources,
    refusals,
    revokeAccessTokens: async () => {
      for (const jti of accepted) await (await provider.AccessToken.find(jti))?.destroy();
      accepted.clear();
    },
    close: async () => {
      for (const http of [asHttp, mcpHttp]) {
        http.closeAllConnections();
        await new Promise<void>((resolve) => http.close(() => resolve()));
      }
      await handler.close();
    },
  };
}

function listen(): Promise<Server> {
  const http = createServer();
  return new Promise((resolve) => http.listen(0, "127.0.0.1", () => resolve(http)));
}

async function readJson(req: IncomingMessage): Promise<{ method?: string; params?: { name?: string } }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
    method?: string;
    params?: { name?: string };
  };
}

/** Logs "alice" in, then grants every scope and resource the request is missing. */
async function consent(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === "login") {
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: "alice" } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  const clientId = String(details.params.client_id);
  const grant =
    details.grantId === undefined
      ? new provider.Grant({ accountId: details.session?.accountId ?? "alice", clientId })
      : await provider.Grant.find(details.grantId);
  if (grant === undefined) throw new Error("grant not found");
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingResourceScopes?: { [indicator: string]: string[] };
  };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(" "));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/**
 * A user agent without a screen: follows the authorization URL's redirects, keeping cookies as a browser would,
 * until one leaves for `redirectUri`, and returns that URL (the redirect, with code, state and iss).
 */
export class CookieBrowser {
  private readonly cookies = new Map<string, string>();
  /** Every authorization URL opened, in order. */
  readonly opened: URL[] = [];

  get visits(): number {
    return this.opened.length;
  }

  constructor(private readonly redirectUri: string) {}

  /** For `onAuthorizationUrl`. */
  readonly open = async (authorizationUrl: URL): Promise<string> => {
    this.opened.push(authorizationUrl);
    let url = authorizationUrl.href;
    for (let hop = 0; hop < 20; hop++) {
      if (url.startsWith(this.redirectUri)) return url;
      const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
      const response = await fetch(url, { redirect: "manual", headers: { cookie } });
      for (const line of response.headers.getSetCookie()) {
        const [pair = ""] = line.split(";");
        const eq = pair.indexOf("=");
        const name = pair.slice(0, eq).trim();
        const value = pair.slice(eq + 1).trim();
        if (value === "" || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
        else this.cookies.set(name, value);
      }
      const location = response.headers.get("location");
      if (location === null)
        throw new Error(`authorization stopped at HTTP ${response.status}: ${await response.text()}`);
      await response.body?.cancel();
      url = new URL(location, url).href;
    }
    throw new Error("too many redirects");
  };
}
