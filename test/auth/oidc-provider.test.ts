/**
 * mcpkit/auth end to end against real parts: oidc-provider on 127.0.0.1 (resource indicators with JWT access
 * tokens, dynamic client registration, PKCE, RFC 9207 `iss`, refresh) in front of an mcpkit server behind
 * `requireBearer`, `jwtVerifier` and `protectedResourceMetadata`, called by two clients in both eras: the
 * official v2 client with its OAuth provider, and mcpkit's own `OAuthClient`. Each discovers everything from the
 * 401 (Protected Resource Metadata, then the authorization server), registers, logs in through a headless
 * browser, calls a tool, refreshes when its access token is refused, and steps up when a tool answers 403
 * insufficient_scope. The token's claims reach the tool through the identity.
 */
import { createServer, type Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type OAuthClientProvider,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  Client as V2Client,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearerToken,
  introspectionVerifier,
  jwtVerifier,
  MemoryCredentialStore,
  OAuthClient,
  protectedResourceMetadata,
  requireBearer,
} from "../../src/auth/index.js";
import { Client } from "../../src/client/client.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { McpkitError } from "../../src/jsonrpc/errors.js";
import { toNodeHandler } from "../../src/node/adapter.js";
import { ServerBuilder } from "../../src/server/index.js";
import { type AuthServer, HeadlessBrowser, startAuthServer } from "../support/oidc-provider.js";

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const REDIRECT = "http://127.0.0.1:9/callback";

let as: AuthServer;
let mcp: NodeServer;
let resource: string;
const refusals: { status: number; reason: string }[] = [];

beforeAll(async () => {
  mcp = createServer();
  await new Promise<void>((resolve) => mcp.listen(0, "127.0.0.1", resolve));
  resource = `http://127.0.0.1:${(mcp.address() as AddressInfo).port}/mcp`;
  as = await startAuthServer({ resource, scopes: ["mcp:read", "mcp:write"] });
  const server = new ServerBuilder({ serverInfo: { name: "protected", version: "1.0.0" } })
    .tool({ name: "whoami", inputSchema: { type: "object" } }, (_args, ctx) => {
      const token = bearerToken(ctx.identity);
      return {
        content: [
          { type: "text", text: `${token?.subject} via ${token?.clientId} [${token?.scopes.join(" ")}]` },
        ],
      };
    })
    .tool({ name: "write_note", inputSchema: { type: "object" } }, () => ({
      content: [{ type: "text", text: "written" }],
    }))
    .build();
  const prm = protectedResourceMetadata({
    resource,
    authorizationServers: [as.issuer],
    scopesSupported: ["mcp:read", "mcp:write"],
  });
  const handler = createHttpHandler(server, {
    authenticate: requireBearer({
      resource,
      verify: jwtVerifier({ issuer: as.issuer }),
      requiredScopes: ["mcp:read"],
      toolScopes: { write_note: ["mcp:write"] },
      onRefusal: (refusal) => refusals.push({ status: refusal.status, reason: refusal.reason }),
    }),
  });
  const listener = toNodeHandler((request) => prm.handle(request) ?? handler(request));
  mcp.on("request", (req, res) => void listener(req, res));
});

afterAll(async () => {
  mcp.closeAllConnections();
  await new Promise<void>((resolve) => mcp.close(() => resolve()));
  await as?.close();
});

/** The official client's OAuth provider, in memory, with a headless browser for the redirect. */
class TestProvider implements OAuthClientProvider {
  client: StoredOAuthClientInformation | undefined;
  saved: StoredOAuthTokens | undefined;
  verifier = "";
  pendingCode: string | undefined;
  pendingIss: string | undefined;
  readonly browser = new HeadlessBrowser();
  readonly redirectUrl = REDIRECT;
  get clientMetadata() {
    return {
      client_name: "official-v2-client under test",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: "native",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    const query = await this.browser.authorize(url, REDIRECT);
    this.pendingCode = query.get("code") ?? undefined;
    this.pendingIss = query.get("iss") ?? undefined;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

function newClient(era: string) {
  return new V2Client(
    { name: "official-v2-client", version: "2.4.0" },
    era === MODERN ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
}

/** Runs `step`; when it needs a login, finishes it with the code the headless browser got, and runs it again. */
async function withLogin<T>(
  provider: TestProvider,
  transport: StreamableHTTPClientTransport,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || provider.pendingCode === undefined) throw error;
    const code = provider.pendingCode;
    provider.pendingCode = undefined;
    await transport.finishAuth(code, provider.pendingIss);
    return step();
  }
}

describe.each([MODERN, LEGACY])(
  "the official v2 client against requireBearer and oidc-provider (%s)",
  (era) => {
    it("logs in, calls a tool, refreshes a refused token, and steps up on insufficient_scope", async () => {
      const provider = new TestProvider();
      const grantsBefore = { ...as.grants };
      const firstTransport = new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider });
      const first = newClient(era);
      await expect(first.connect(firstTransport)).rejects.toBeInstanceOf(UnauthorizedError);
      expect(provider.pendingCode).toBeDefined();
      await firstTransport.finishAuth(provider.pendingCode as string, provider.pendingIss);
      provider.pendingCode = undefined;
      await first.close().catch(() => {});

      const transport = new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider });
      const client = newClient(era);
      await client.connect(transport);
      const who = await client.callTool({ name: "whoami", arguments: {} });
      expect(who.content).toEqual([
        { type: "text", text: `alice via ${provider.client?.client_id} [mcp:read]` },
      ]);
      // The client adds offline_access because the authorization server lists it (SEP-2207).
      expect(as.authorizationScopes.at(-1)?.split(" ")).toContain("mcp:read");

      // Refresh: the access token is refused (401 invalid_token); the client refreshes and retries.
      const refreshToken = provider.saved?.refresh_token;
      expect(refreshToken).toBeDefined();
      provider.saved = { ...(provider.saved as StoredOAuthTokens), access_token: "not-a-jwt" };
      const again = await client.callTool({ name: "whoami", arguments: {} });
      expect(again.isError).not.toBe(true);
      expect((as.grants.refresh_token ?? 0) - (grantsBefore.refresh_token ?? 0)).toBe(1);
      expect(provider.saved?.access_token).not.toBe("not-a-jwt");

      // Step-up: write_note needs mcp:write; the 403 names the operation's full scope set. A 2025-11-25
      // session stays open: it is bound to the token's principal and client, not to its scopes.
      const session = transport.sessionId;
      const written = await withLogin(provider, transport, () =>
        client.callTool({ name: "write_note", arguments: {} }),
      );
      expect(written.content).toEqual([{ type: "text", text: "written" }]);
      expect(as.authorizationScopes.at(-1)?.split(" ")).toEqual(
        expect.arrayContaining(["mcp:read", "mcp:write"]),
      );
      const after = await client.callTool({ name: "whoami", arguments: {} });
      expect((after.content as { text: string }[])[0]?.text).toMatch(/\[mcp:read mcp:write\]$/);
      expect(refusals.some((r) => r.status === 403 && r.reason === "insufficient_scope")).toBe(true);
      expect(transport.sessionId).toBe(session);
      if (era === LEGACY) expect(session).toBeDefined();
      await client.close();
    });
  },
);

describe.each([MODERN, LEGACY] as const)(
  "mcpkit's OAuthClient against requireBearer and oidc-provider (%s)",
  (era) => {
    it("logs in, calls a tool, refreshes once after a refused token, and steps up to mcp:write", async () => {
      const browser = new HeadlessBrowser();
      const opened: URL[] = [];
      const store = new MemoryCredentialStore();
      const oauth = new OAuthClient({
        redirectUri: REDIRECT,
        store,
        onAuthorizationUrl: (url) => {
          opened.push(url);
          return browser.authorize(url, REDIRECT);
        },
      });
      const transport = new StreamableHttpClientTransport({ url: resource, authProvider: oauth });
      const client = new Client({
        transport,
        clientInfo: { name: "mcpkit-oauth-client", version: "1.0.0" },
        protocolVersion: era,
      });
      const grantsBefore = { ...as.grants };
      const logins = as.authorizationScopes.length;
      try {
        await client.connect();
        expect(opened).toHaveLength(1);
        // The challenge's scope, plus offline_access because the provider lists it (the provider drops it without
        // prompt=consent, and issues a refresh token anyway: the client registered the refresh_token grant).
        expect(opened[0]?.searchParams.get("scope")).toBe("mcp:read offline_access");
        expect(opened[0]?.searchParams.get("code_challenge_method")).toBe("S256");
        expect(as.authorizationScopes.at(-1)).toBe("mcp:read");
        expect(as.authorizationResources.at(-1)).toBe(resource); // byte-identical to the metadata's
        const who = await client.callTool("whoami", {});
        const key = { resource, issuer: as.issuer };
        const clientId = store.get(key)?.client?.client_id;
        expect(who.content).toEqual([{ type: "text", text: `alice via ${clientId} [mcp:read]` }]);

        // Refresh: the stored access token is refused (401 invalid_token); exactly one refresh, then the retry.
        const saved = store.get(key);
        if (saved?.tokens === undefined) throw new Error("no tokens stored");
        store.set(key, { ...saved, tokens: { ...saved.tokens, access_token: "not-a-jwt" } });
        const refusedBefore = refusals.length;
        expect((await client.callTool("whoami", {})).isError).not.toBe(true);
        expect((as.grants.refresh_token ?? 0) - (grantsBefore.refresh_token ?? 0)).toBe(1);
        expect(refusals.slice(refusedBefore)).toEqual([{ status: 401, reason: "malformed" }]);
        expect(store.get(key)?.tokens?.access_token).not.toBe("not-a-jwt");
        expect(opened).toHaveLength(1); // refreshed, no new login

        // Step-up: write_note needs mcp:write; the client asks for the union of what it asked and what the 403 named.
        const stepBefore = refusals.length;
        const written = await client.callTool("write_note", {});
        expect(written.content).toEqual([{ type: "text", text: "written" }]);
        expect(refusals.slice(stepBefore)).toEqual([{ status: 403, reason: "insufficient_scope" }]);
        expect(opened).toHaveLength(2);
        expect(opened[1]?.searchParams.get("scope")?.split(" ").sort()).toEqual([
          "mcp:read",
          "mcp:write",
          "offline_access",
        ]);
        expect(as.authorizationScopes.at(-1)).toBe("mcp:read mcp:write");
        expect(as.authorizationScopes.length - logins).toBe(2);
        expect((as.grants.authorization_code ?? 0) - (grantsBefore.authorization_code ?? 0)).toBe(2);
        // The stepped-up token serves both tools without another challenge.
        const refused = refusals.length;
        const after = await client.callTool("whoami", {});
        expect((after.content as { text: string }[])[0]?.text).toMatch(/\[mcp:read mcp:write\]$/);
        await client.callTool("write_note", {});
        expect(refusals.length).toBe(refused);
      } finally {
        await client.close().catch(() => {});
      }
    });
  },
);

describe("mcpkit's OAuthClient when oidc-provider refuses the registration", () => {
  it("surfaces the OAuth error and its description in UNAUTHORIZED registration_failed", async () => {
    // The registration goes out with a redirect that oidc-provider refuses for a native client (http, not
    // loopback); mcpkit's own options would not allow it, so the test's fetch rewrites the request.
    const oauth = new OAuthClient({
      redirectUri: REDIRECT,
      fetch: (url, init) => {
        if (String(url) !== `${as.issuer}/reg` || typeof init?.body !== "string") return fetch(url, init);
        const body = { ...JSON.parse(init.body), redirect_uris: ["http://app.example/callback"] };
        return fetch(url, { ...init, body: JSON.stringify(body) });
      },
      onAuthorizationUrl: () => {
        throw new Error("no login may start without a registration");
      },
    });
    const transport = new StreamableHttpClientTransport({ url: resource, authProvider: oauth });
    const client = new Client({ transport, clientInfo: { name: "refused", version: "1.0.0" } });
    const error = await client.connect().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    await client.close().catch(() => {});
    expect(error).toBeInstanceOf(McpkitError);
    expect((error as McpkitError).code).toBe("UNAUTHORIZED");
    expect((error as McpkitError).message).toContain("invalid_redirect_uri");
    expect((error as McpkitError).details).toEqual({
      reason: "registration_failed",
      issuer: as.issuer,
      status: 400,
      error: "invalid_redirect_uri",
      error_description: expect.stringContaining("loopback") as unknown,
    });
  });
});

describe("introspection against oidc-provider", () => {
  it("serves a client_credentials (opaque) token through introspectionVerifier; a made-up one is inactive", async () => {
    const { clientId, clientSecret } = as.serviceClient;
    const grant = await fetch(`${as.issuer}/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${btoa(`${clientId}:${clientSecret}`)}`,
      },
      body: new URLSearchParams({ grant_type: "client_credentials", resource, scope: "mcp:read" }),
    });
    const { access_token: token } = (await grant.json()) as { access_token: string };
    expect(token.split(".")).toHaveLength(1);
    const verify = introspectionVerifier({
      endpoint: `${as.issuer}/token/introspection`,
      clientId: as.introspectionClient.clientId,
      clientSecret: as.introspectionClient.clientSecret,
      issuer: as.issuer,
    });
    const request = new Request(resource, { method: "POST" });
    const verified = await verify(token, { request, resource });
    expect(verified).toMatchObject({
      clientId,
      issuer: as.issuer,
      audience: [resource],
      scopes: ["mcp:read"],
    });
    await expect(verify("made-up-token", { request, resource })).rejects.toMatchObject({
      reason: "inactive",
    });
  });
});
