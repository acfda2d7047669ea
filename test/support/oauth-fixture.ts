/**
 * A small OAuth world on 127.0.0.1 for the OAuth client's tests, on one `node:http` server: an MCP server
 * (mcpkit's own handler) behind a bearer check at `/mcp`, its Protected Resource Metadata, and two
 * authorization servers (`/as1`, `/as2`: path issuers) with metadata, DCR, an authorization endpoint that
 * redirects at once (no person), and a token endpoint (authorization code with PKCE S256, refresh with
 * rotation, client credentials). Knobs in `config` change behaviour per test; `log` records what arrived.
 *
 * @example
 * const world = await startOAuthWorld();
 * world.config.issMode = "wrong";
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { toNodeHandler } from "../../src/node/adapter.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";

export interface WorldConfig {
  /** The PRM `resource`; default `<base>/mcp`. */
  resource?: string;
  /** Which authorization servers the PRM lists. */
  authorizationServers: string[];
  prmScopes?: string[];
  /** The `scope` of the 401 challenge. */
  challengeScope?: string;
  /** Scopes each tool needs (403 insufficient_scope otherwise). */
  toolScopes: { [tool: string]: string[] };
  /** What `iss` the redirect carries. */
  issMode: "correct" | "missing" | "wrong" | "trailing-slash";
  advertiseIss: boolean;
  /** AS `scopes_supported`. */
  asScopes?: string[];
  s256: boolean;
  /** The issuer the metadata claims (default: the true one). */
  claimedIssuer?: string;
  /** Redirect with `error=access_denied` instead of a code. */
  deny: boolean;
  /** Access tokens live this long (seconds). */
  expiresIn: number;
  /** Issue refresh tokens. */
  refresh: boolean;
  /** Authorization methods of the token endpoint. */
  authMethods: string[];
  /** Scopes never granted, whatever is asked. */
  withhold: string[];
  /** Refuse registration with this status and JSON body. */
  refuseRegistration?: { status: number; body: { [key: string]: unknown } };
}

export interface TokenRecord {
  issuer: string;
  scopes: string[];
  resource: string;
  clientId: string;
}

export interface WorldLog {
  /** Every request, `METHOD path`. */
  requests: string[];
  registrations: { issuer: string; body: { [key: string]: unknown } }[];
  authorizations: { issuer: string; params: { [key: string]: string } }[];
  tokenRequests: { issuer: string; params: { [key: string]: string }; authorization: string | undefined }[];
  /** The `authorization` header of every MCP request. */
  mcpAuth: (string | undefined)[];
}

export interface OAuthWorld {
  readonly base: string;
  readonly mcpUrl: string;
  readonly issuer1: string;
  readonly issuer2: string;
  config: WorldConfig;
  log: WorldLog;
  tokens: Map<string, TokenRecord>;
  /** Stops accepting `token` (as if revoked or expired at the server). */
  revoke(token: string): void;
  /** Forgets every access and refresh token. */
  revokeAll(): void;
  close(): Promise<void>;
}

export async function startOAuthWorld(): Promise<OAuthWorld> {
  const mcp = new ServerBuilder({ serverInfo: { name: "oauth-world", version: "1.0.0" } })
    .tool({ name: "read", inputSchema: { type: "object" } }, () => ({
      content: [{ type: "text", text: "read" }],
    }))
    .tool({ name: "write", inputSchema: { type: "object" } }, () => ({
      content: [{ type: "text", text: "wrote" }],
    }))
    .build();
  const handler = createHttpHandler(mcp);
  const mcpListener = toNodeHandler(handler);
  const log: WorldLog = {
    requests: [],
    registrations: [],
    authorizations: [],
    tokenRequests: [],
    mcpAuth: [],
  };
  const tokens = new Map<string, TokenRecord>();
  const refreshTokens = new Map<string, TokenRecord>();
  const codes = new Map<string, TokenRecord & { challenge: string; redirectUri: string }>();
  let counter = 0;
  const world = { config: defaults(), log, tokens } as OAuthWorld & { config: WorldConfig };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", world.base);
    log.requests.push(`${req.method} ${url.pathname}`);
    const body = req.method === "POST" && url.pathname !== "/mcp" ? await readBody(req) : "";
    const c = world.config;
    if (url.pathname === "/mcp") return guardMcp(req, res);
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp") {
      return json(res, 200, {
        resource: c.resource ?? world.mcpUrl,
        authorization_servers: c.authorizationServers,
        ...(c.prmScopes === undefined ? {} : { scopes_supported: c.prmScopes }),
      });
    }
    for (const issuer of [world.issuer1, world.issuer2]) {
      const prefix = new URL(issuer).pathname;
      if (url.pathname === `/.well-known/oauth-authorization-server${prefix}`) {
        return json(res, 200, {
          issuer: c.claimedIssuer ?? issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          registration_endpoint: `${issuer}/register`,
          response_types_supported: ["code"],
          ...(c.s256 ? { code_challenge_methods_supported: ["S256"] } : {}),
          authorization_response_iss_parameter_supported: c.advertiseIss,
          token_endpoint_auth_methods_supported: c.authMethods,
          ...(c.asScopes === undefined ? {} : { scopes_supported: c.asScopes }),
        });
      }
      if (url.pathname === `${prefix}/register`) {
        const parsed = JSON.parse(body) as { [key: string]: unknown };
        log.registrations.push({ issuer, body: parsed });
        if (c.refuseRegistration !== undefined) {
          return json(res, c.refuseRegistration.status, c.refuseRegistration.body);
        }
        return json(res, 201, { client_id: `client-${++counter}-of-${prefix.slice(1)}`, ...parsed });
      }
      if (url.pathname === `${prefix}/authorize`) {
        const params = Object.fromEntries(url.searchParams);
        log.authorizations.push({ issuer, params });
        const target = new URL(params.redirect_uri ?? "http://127.0.0.1/none");
        if (params.state !== undefined) target.searchParams.set("state", params.state);
        if (c.deny) target.searchParams.set("error", "access_denied");
        else {
          const code = `code-${++counter}`;
          codes.set(code, {
            issuer,
            scopes: (params.scope ?? "").split(" ").filter((s) => s !== "" && !c.withhold.includes(s)),
            resource: params.resource ?? "",
            clientId: params.client_id ?? "",
            challenge: params.code_challenge ?? "",
            redirectUri: params.redirect_uri ?? "",
          });
          target.searchParams.set("code", code);
        }
        const iss = {
          correct: issuer,
          missing: undefined,
          wrong: "https://evil.example",
          "trailing-slash": `${issuer}/`,
        }[c.issMode];
        if (iss !== undefined) target.searchParams.set("iss", iss);
        res.writeHead(302, { location: target.href }).end();
        return;
      }
      if (url.pathname === `${prefix}/token`) {
        const params = Object.fromEntries(new URLSearchParams(body));
        log.tokenRequests.push({ issuer, params, authorization: req.headers.authorization });
        return token(res, issuer, params);
      }
    }
    res.writeHead(404).end();
  });

  function token(res: ServerResponse, issuer: string, params: { [key: string]: string }): void {
    const c = world.config;
    let record: TokenRecord | undefined;
    if (params.grant_type === "authorization_code") {
      const code = codes.get(params.code ?? "");
      codes.delete(params.code ?? "");
      const verified = createHash("sha256")
        .update(params.code_verifier ?? "")
        .digest("base64url");
      if (code === undefined || code.challenge !== verified || code.redirectUri !== params.redirect_uri) {
        json(res, 400, { error: "invalid_grant" });
        return;
      }
      record = code;
    } else if (params.grant_type === "refresh_token") {
      record = refreshTokens.get(params.refresh_token ?? "");
      refreshTokens.delete(params.refresh_token ?? "");
      if (record === undefined) {
        json(res, 400, { error: "invalid_grant" });
        return;
      }
    } else if (params.grant_type === "client_credentials") {
      record = {
        issuer,
        scopes: (params.scope ?? "").split(" ").filter(Boolean),
        resource: params.resource ?? "",
        clientId: "",
      };
    } else {
      json(res, 400, { error: "unsupported_grant_type" });
      return;
    }
    const access = `at-${++counter}-${randomBytes(4).toString("hex")}`;
    tokens.set(access, record);
    const out: { [key: string]: unknown } = {
      access_token: access,
      token_type: "Bearer",
      expires_in: c.expiresIn,
      scope: record.scopes.join(" "),
    };
    if (c.refresh && params.grant_type !== "client_credentials") {
      const rt = `rt-${++counter}`;
      refreshTokens.set(rt, record);
      out.refresh_token = rt;
    }
    json(res, 200, out);
  }

  async function guardMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const c = world.config;
    const auth = req.headers.authorization;
    log.mcpAuth.push(auth);
    const prm = `${world.base}/.well-known/oauth-protected-resource/mcp`;
    const record = auth?.startsWith("Bearer ") ? tokens.get(auth.slice(7)) : undefined;
    const issuerOk = record !== undefined && c.authorizationServers.includes(record.issuer);
    if (!issuerOk) {
      const scope = c.challengeScope === undefined ? "" : `, scope="${c.challengeScope}"`;
      res.writeHead(401, {
        "www-authenticate": `Basic realm="x", Bearer error="invalid_token", resource_metadata="${prm}"${scope}`,
      });
      res.end();
      return;
    }
    const raw = await readBody(req);
    const message = JSON.parse(raw) as { method?: string; params?: { name?: string } };
    const needed = message.method === "tools/call" ? (c.toolScopes[message.params?.name ?? ""] ?? []) : [];
    if (!needed.every((scope) => record.scopes.includes(scope))) {
      res.writeHead(403, {
        "www-authenticate": `Bearer error="insufficient_scope", scope="${needed.join(" ")}", resource_metadata="${prm}"`,
      });
      res.end();
      return;
    }
    // The body was read here: the handler takes it parsed, as behind a body-parsing framework.
    await mcpListener(req, res, message);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  Object.assign(world, {
    base,
    mcpUrl: `${base}/mcp`,
    issuer1: `${base}/as1`,
    issuer2: `${base}/as2`,
    revoke: (token: string) => tokens.delete(token),
    revokeAll: () => {
      tokens.clear();
      refreshTokens.clear();
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await handler.close();
    },
  });
  world.config.authorizationServers = [world.issuer1];
  return world;
}

function defaults(): WorldConfig {
  return {
    authorizationServers: [],
    toolScopes: {},
    issMode: "correct",
    advertiseIss: true,
    s256: true,
    deny: false,
    expiresIn: 3600,
    refresh: true,
    authMethods: ["none"],
    withhold: [],
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res
    .writeHead(status, { "content-type": "application/json", "cache-control": "no-store" })
    .end(JSON.stringify(body));
}

/** The "person": follows the authorization URL without a browser and hands back the redirect. */
export async function followRedirect(url: URL): Promise<string | undefined> {
  const response = await fetch(url, { redirect: "manual" });
  await response.body?.cancel();
  return response.headers.get("location") ?? undefined;
}
