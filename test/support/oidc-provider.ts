/**
 * A real authorization server for the auth tests (mcpkit's OAuth client and the official one, both against
 * mcpkit's resource-server helpers): `oidc-provider` (a certified OpenID provider) on
 * 127.0.0.1, with resource indicators (JWT access tokens, audience = the MCP resource), dynamic client
 * registration, refresh tokens, introspection, and an interaction route that logs the user in and consents to
 * whatever is asked, so a headless "browser" ({@link HeadlessBrowser}) can complete the authorization redirect.
 */
import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { errors } from "oidc-provider";

export interface AuthServer {
  readonly issuer: string;
  readonly provider: Provider;
  /** Confidential client allowed to introspect tokens. */
  readonly introspectionClient: { readonly clientId: string; readonly clientSecret: string };
  /** A confidential client whose client_credentials tokens are opaque (oidc-provider introspects only those). */
  readonly serviceClient: { readonly clientId: string; readonly clientSecret: string };
  /** A confidential client whose client_credentials tokens are JWTs (a gateway's machine identity). */
  readonly machineClient: { readonly clientId: string; readonly clientSecret: string };
  /** Grants issued, by type (`authorization_code`, `refresh_token`). */
  readonly grants: { [type: string]: number };
  /** Scope strings of every authorization request, in order. */
  readonly authorizationScopes: string[];
  /** The `resource` of every authorization request, in order. */
  readonly authorizationResources: string[];
  close(): Promise<void>;
}

export interface AuthServerOptions {
  /** The MCP resource (its JWT access tokens name it in `aud`). */
  resource: string;
  /** More MCP resources it issues tokens for (each its own audience), besides `resource`. */
  otherResources?: readonly string[];
  /** Scopes the resource accepts. */
  scopes: readonly string[];
  /** The user the interaction logs in (default "alice"). */
  accountId?: string;
}

/** Starts oidc-provider on a free loopback port. */
export async function startAuthServer(options: AuthServerOptions): Promise<AuthServer> {
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" });
  const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  const introspectionClient = {
    clientId: "mcp-resource-server",
    clientSecret: "introspection-secret-0123456789",
  };
  const serviceClient = { clientId: "service-client", clientSecret: "service-secret-0123456789" };
  const machineClient = { clientId: "machine-client", clientSecret: "machine-secret-0123456789" };
  const resources = [options.resource, ...(options.otherResources ?? [])];
  const provider = new Provider(issuer, {
    jwks: {
      keys: [
        { ...rsa, kid: "rsa-1", use: "sig", alg: "RS256" },
        { ...ec, kid: "ec-1", use: "sig", alg: "ES256" },
      ],
    },
    clients: [
      {
        client_id: introspectionClient.clientId,
        client_secret: introspectionClient.clientSecret,
        redirect_uris: [],
        response_types: [],
        grant_types: [],
      },
      {
        client_id: serviceClient.clientId,
        client_secret: serviceClient.clientSecret,
        redirect_uris: [],
        response_types: [],
        grant_types: ["client_credentials"],
        scope: options.scopes.join(" "),
      },
      {
        client_id: machineClient.clientId,
        client_secret: machineClient.clientSecret,
        redirect_uris: [],
        response_types: [],
        grant_types: ["client_credentials"],
        scope: options.scopes.join(" "),
      },
    ],
    cookies: { keys: ["oidc-provider-test-cookie-key"] },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    scopes: ["openid", "offline_access", ...options.scopes],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      introspection: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator, client) => {
          if (!resources.includes(indicator)) throw new errors.InvalidTarget();
          return {
            scope: options.scopes.join(" "),
            audience: indicator,
            accessTokenFormat: client.clientId === serviceClient.clientId ? "opaque" : "jwt",
            accessTokenTTL: 3600,
            jwt: { sign: { alg: "ES256" } },
          };
        },
      },
    },
    // A refresh token for every client registered with the refresh_token grant (no offline_access needed).
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
  provider.on("authorization.accepted", (ctx) => {
    authorizationScopes.push(String(ctx.oidc.params?.scope ?? ""));
    authorizationResources.push(String(ctx.oidc.params?.resource ?? ""));
  });
  const callback = provider.callback();
  const accountId = options.accountId ?? "alice";
  http.on("request", (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith("/interaction/")) {
      consent(provider, req, res, accountId).catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
      return;
    }
    if (req.method === "POST" && req.url === "/reg") {
      void registerWithoutScope(req, res, callback);
      return;
    }
    void callback(req, res);
  });
  return {
    issuer,
    provider,
    introspectionClient,
    serviceClient,
    machineClient,
    grants,
    authorizationScopes,
    authorizationResources,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/**
 * Dynamic registration without the `scope` member. Clients register with the scope of their first challenge,
 * and oidc-provider then refuses any wider scope to that client, which rules out step-up; this server lets a
 * registered client ask for any scope of the resource instead (oidc-provider takes an already parsed body).
 */
async function registerWithoutScope(
  req: IncomingMessage,
  res: ServerResponse,
  callback: (req: IncomingMessage, res: ServerResponse) => unknown,
) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as { [key: string]: unknown };
  delete body.scope;
  Object.assign(req, { body });
  await callback(req, res);
}

/** The interaction: log `accountId` in, then grant every scope and resource the request asks for. */
async function consent(provider: Provider, req: IncomingMessage, res: ServerResponse, accountId: string) {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === "login") {
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  const grant =
    details.grantId === undefined
      ? new provider.Grant({
          accountId: details.session?.accountId ?? accountId,
          clientId: String(details.params.client_id),
        })
      : await provider.Grant.find(details.grantId);
  if (grant === undefined) throw new Error("grant not found");
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: { [indicator: string]: string[] };
  };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(" "));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/**
 * A user agent without a screen: follows an authorization URL's redirects (keeping cookies, as a browser would)
 * until one goes to `redirectUri`, and returns that URL's query (code, state, iss).
 */
export class HeadlessBrowser {
  private readonly cookies = new Map<string, string>();
  visits = 0;

  async authorize(authorizationUrl: string | URL, redirectUri: string): Promise<URLSearchParams> {
    this.visits++;
    let url = String(authorizationUrl);
    for (let hop = 0; hop < 20; hop++) {
      if (url.startsWith(redirectUri)) return new URL(url).searchParams;
      const response = await fetch(url, {
        redirect: "manual",
        headers: { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ") },
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair = ""] = line.split(";");
        const eq = pair.indexOf("=");
        const name = pair.slice(0, eq).trim();
        const value = pair.slice(eq + 1).trim();
        if (/expires=Thu, 01 Jan 1970/i.test(line) || value === "") this.cookies.delete(name);
        else this.cookies.set(name, value);
      }
      const location = response.headers.get("location");
      if (location === null) {
        throw new Error(`authorization stopped at ${url}: HTTP ${response.status} ${await response.text()}`);
      }
      await response.arrayBuffer();
      url = new URL(location, url).href;
    }
    throw new Error("too many redirects");
  }
}
