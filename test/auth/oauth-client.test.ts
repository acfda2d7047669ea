/**
 * mcpkit's OAuth client (mcpkit/auth) on StreamableHttpClientTransport against a small OAuth world on 127.0.0.1
 * (test/support/oauth-fixture.ts): login on the first 401, refresh, step-up, migration, the redirect checks
 * (state, RFC 9207 iss) that must hold before a code is exchanged, headless login, and every refusal.
 */
import { afterEach, describe, expect, it } from "vitest";
import { OAuthClient, type OAuthClientOptions } from "../../src/auth/index.js";
import { Client } from "../../src/client/client.js";
import { MAX_AUTH_RETRIES } from "../../src/http/client/auth-provider.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { McpkitError } from "../../src/jsonrpc/errors.js";
import { followRedirect, type OAuthWorld, startOAuthWorld } from "../support/oauth-fixture.js";

const REDIRECT = "http://127.0.0.1:9/callback";
const worlds: OAuthWorld[] = [];
const clients: Client[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  for (const world of worlds.splice(0)) await world.close();
});

async function world(): Promise<OAuthWorld> {
  const started = await startOAuthWorld();
  worlds.push(started);
  return started;
}

function oauth(options: Partial<OAuthClientOptions> = {}): OAuthClient {
  return new OAuthClient({ redirectUri: REDIRECT, onAuthorizationUrl: followRedirect, ...options });
}

async function connected(w: OAuthWorld, provider: OAuthClient): Promise<Client> {
  const transport = new StreamableHttpClientTransport({ url: w.mcpUrl, authProvider: provider });
  const client = new Client({ transport, clientInfo: { name: "oauth-test", version: "1.0.0" } });
  clients.push(client);
  await client.connect();
  return client;
}

async function rejection(promise: Promise<unknown>): Promise<McpkitError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(McpkitError);
  return error as McpkitError;
}

describe("OAuthClient on the Streamable HTTP transport", () => {
  it("logs in on the first 401 and sends the token on every request, with resource byte-identical to PRM's", async () => {
    const w = await world();
    w.config.resource = w.base; // the root, without a trailing slash
    const client = await connected(w, oauth());
    await client.callTool("read", {});
    expect(w.log.registrations).toHaveLength(1);
    expect(w.log.registrations[0]?.body).toMatchObject({
      application_type: "native",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
    });
    expect(w.log.authorizations).toHaveLength(1);
    const auth = w.log.authorizations[0]?.params ?? {};
    expect(auth).toMatchObject({ code_challenge_method: "S256", resource: w.base, response_type: "code" });
    expect(auth.scope).toBeUndefined();
    expect(w.log.tokenRequests[0]?.params.resource).toBe(w.base);
    // Only the very first MCP request went without a token.
    expect(w.log.mcpAuth.slice(1).every((value) => value?.startsWith("Bearer at-"))).toBe(true);
    expect(w.log.mcpAuth[0]).toBeUndefined();
    // The root PRM was never needed: the header named the path form.
    expect(w.log.requests).not.toContain("GET /.well-known/oauth-protected-resource");
  });

  it("asks for the challenge's scope, else PRM scopes_supported, adding offline_access only when the AS lists it", async () => {
    const w = await world();
    w.config.prmScopes = ["mcp:read", "mcp:write"];
    w.config.asScopes = ["mcp:read", "offline_access"];
    await (await connected(w, oauth())).listTools();
    expect(w.log.authorizations[0]?.params.scope).toBe("mcp:read mcp:write offline_access");

    const v = await world();
    v.config.challengeScope = "mcp:read";
    v.config.prmScopes = ["mcp:other"];
    v.config.asScopes = ["mcp:read"];
    await (await connected(v, oauth())).listTools();
    expect(v.log.authorizations[0]?.params.scope).toBe("mcp:read");
  });

  it("steps up on 403 insufficient_scope with the union of the scopes, and stops when nothing new is asked", async () => {
    const w = await world();
    w.config.challengeScope = "mcp:read";
    w.config.toolScopes = { write: ["mcp:write"], admin: ["mcp:read"] };
    const client = await connected(w, oauth());
    await client.callTool("write", {});
    expect(w.log.authorizations.map((a) => a.params.scope)).toEqual(["mcp:read", "mcp:read mcp:write"]);
    // A scope the server never grants: one step-up asks for it, the refusal that follows stands.
    w.config.toolScopes = { read: ["mcp:never"] };
    w.config.withhold = ["mcp:never"];
    const error = await rejection(client.callTool("read", {}));
    expect(error.details).toMatchObject({ reason: "forbidden", status: 403 });
    expect(w.log.authorizations.map((a) => a.params.scope)).toEqual([
      "mcp:read",
      "mcp:read mcp:write",
      "mcp:read mcp:write mcp:never",
    ]);
  });

  it("refreshes once on a 401 for concurrent requests, then retries them", async () => {
    const w = await world();
    const client = await connected(w, oauth());
    await client.listTools();
    const [token] = [...w.tokens.keys()];
    w.revoke(token as string);
    await Promise.all([client.listTools(), client.callTool("read", {}), client.callTool("write", {})]);
    expect(w.log.tokenRequests.filter((t) => t.params.grant_type === "refresh_token")).toHaveLength(1);
    expect(w.log.authorizations).toHaveLength(1);
  });

  it("logs in again when the refresh token is refused (invalid_grant), keeping the registration", async () => {
    const w = await world();
    w.config.refresh = false;
    const client = await connected(w, oauth());
    await client.listTools();
    for (const token of [...w.tokens.keys()]) w.revoke(token);
    await client.listTools();
    expect(w.log.authorizations).toHaveLength(2);
    expect(w.log.registrations).toHaveLength(1);
  });

  it("refreshes an expired token before using it (the clock is the client's)", async () => {
    const w = await world();
    let now = 1_000_000;
    const client = await connected(w, oauth({ now: () => now }));
    await client.listTools();
    now += 3_600_000;
    await client.listTools();
    expect(w.log.tokenRequests.map((t) => t.params.grant_type)).toEqual([
      "authorization_code",
      "refresh_token",
    ]);
    expect(w.log.mcpAuth.filter((value) => value === undefined)).toHaveLength(1);
  });

  it("re-discovers after a 401 and registers anew when the server moved to another authorization server", async () => {
    const w = await world();
    const client = await connected(w, oauth());
    await client.listTools();
    w.config.authorizationServers = [w.issuer2];
    await client.listTools();
    expect(w.log.registrations.map((r) => r.issuer)).toEqual([w.issuer1, w.issuer2]);
    const firstClient = String(w.log.authorizations[0]?.params.client_id);
    const atAs2 = [
      ...w.log.authorizations.filter((a) => a.issuer === w.issuer2).map((a) => a.params.client_id),
      ...w.log.tokenRequests.filter((t) => t.issuer === w.issuer2).map((t) => t.params.client_id),
    ];
    expect(atAs2.length).toBeGreaterThan(0);
    expect(atAs2).not.toContain(firstClient);
  });
});

describe("OAuthClient refusals: nothing of a bad redirect or bad metadata is used", () => {
  it.each([
    ["wrong", true, "iss_mismatch"],
    ["trailing-slash", true, "iss_mismatch"],
    ["missing", true, "iss_missing"],
    ["wrong", false, "iss_mismatch"],
  ] as const)(
    "iss %s (advertised %s): %s, and the code is never exchanged",
    async (mode, advertised, problem) => {
      const w = await world();
      w.config.issMode = mode;
      w.config.advertiseIss = advertised;
      const error = await rejection(connected(w, oauth()));
      expect(error.code).toBe("UNAUTHORIZED");
      expect(error.details).toMatchObject({ reason: "authorization_response", problem });
      expect(w.log.authorizations).toHaveLength(1);
      expect(w.log.tokenRequests).toHaveLength(0);
    },
  );

  it("proceeds without iss when the server does not advertise it", async () => {
    const w = await world();
    w.config.issMode = "missing";
    w.config.advertiseIss = false;
    await (await connected(w, oauth())).listTools();
    expect(w.log.tokenRequests).toHaveLength(1);
  });

  it("refuses a redirect whose state differs, and never shows an unverified error", async () => {
    const w = await world();
    const tampered = oauth({
      onAuthorizationUrl: async (url) => {
        const location = new URL((await followRedirect(url)) as string);
        location.searchParams.set("state", "forged");
        return location;
      },
    });
    const error = await rejection(connected(w, tampered));
    expect(error.details).toMatchObject({ reason: "authorization_response", problem: "state_mismatch" });
    expect(w.log.tokenRequests).toHaveLength(0);
  });

  it("reports a denial as authorization_denied (after iss and state held)", async () => {
    const w = await world();
    w.config.deny = true;
    const error = await rejection(connected(w, oauth()));
    expect(error.details).toMatchObject({ reason: "authorization_denied", error: "access_denied" });
  });

  it("refuses metadata for another issuer before any registration or login", async () => {
    const w = await world();
    w.config.claimedIssuer = "https://attacker.example";
    const error = await rejection(connected(w, oauth()));
    expect(error.details).toMatchObject({ reason: "issuer_mismatch" });
    expect(w.log.registrations).toHaveLength(0);
    expect(w.log.authorizations).toHaveLength(0);
  });

  it("refuses a PRM whose resource is another server's", async () => {
    const w = await world();
    w.config.resource = "https://evil.example/mcp";
    const error = await rejection(connected(w, oauth()));
    expect(error.details).toMatchObject({ reason: "resource_mismatch" });
    expect(w.log.authorizations).toHaveLength(0);
  });

  it("refuses an authorization server without PKCE S256", async () => {
    const w = await world();
    w.config.s256 = false;
    const error = await rejection(connected(w, oauth()));
    expect(error.details).toMatchObject({ reason: "pkce_unsupported" });
    expect(w.log.authorizations).toHaveLength(0);
  });

  it("a refused registration keeps only a well-formed error and error_description, never an echoed secret", async () => {
    const w = await world();
    w.config.refuseRegistration = {
      status: 400,
      body: {
        error: "invalid_client_metadata",
        error_description: "x".repeat(600),
        client_secret: "echoed-secret-0123456789",
      },
    };
    const error = await rejection(connected(w, oauth()));
    expect(error.message).toContain("invalid_client_metadata");
    expect(error.details).toEqual({
      reason: "registration_failed",
      issuer: w.issuer1,
      status: 400,
      error: "invalid_client_metadata",
      error_description: "x".repeat(500),
    });
    expect(JSON.stringify(error.details)).not.toContain("echoed-secret");
    w.config.refuseRegistration = { status: 403, body: { error: 'bad "quoted"\nerror' } };
    const malformed = await rejection(connected(w, oauth()));
    expect(malformed.details).toEqual({ reason: "registration_failed", issuer: w.issuer1, status: 403 });
  });

  it("never puts a token, code or secret in its errors or logs", async () => {
    const w = await world();
    const lines: string[] = [];
    const logger = {
      warn: (m: string, d?: unknown) => lines.push(m + JSON.stringify(d)),
      debug: (m: string, d?: unknown) => lines.push(m + JSON.stringify(d)),
    };
    const client = await connected(w, oauth({ logger }));
    await client.listTools();
    for (const token of [...w.tokens.keys()]) w.revoke(token);
    await client.listTools();
    const seen = [...new Set(w.log.mcpAuth.filter((v) => v !== undefined).map((v) => String(v).slice(7)))];
    w.config.issMode = "wrong";
    w.revokeAll();
    const error = await rejection(client.listTools());
    const text = `${lines.join("\n")}${error.message}${JSON.stringify(error.details)}`;
    expect(seen.length).toBeGreaterThan(1);
    for (const token of seen) expect(text).not.toContain(token);
    expect(text).not.toMatch(/code-\d+|rt-\d+/);
  });
});

describe("OAuthClient headless login", () => {
  it("without a redirect hook, a request fails with interaction_required and the URL; after finishAuthorization the same client goes on", async () => {
    const w = await world();
    const provider = new OAuthClient({ redirectUri: REDIRECT });
    const login = async () => {
      const result = await provider.authorize(w.mcpUrl);
      if (result.status !== "interaction_required") throw new Error("expected a login URL");
      await provider.finishAuthorization((await followRedirect(new URL(result.authorizationUrl))) as string);
    };
    await login();
    const client = await connected(w, provider);
    await client.listTools();
    w.revokeAll();
    const error = await rejection(client.listTools());
    expect(error.details).toMatchObject({ reason: "interaction_required" });
    const url = new URL(String(error.details?.authorizationUrl));
    expect(url.searchParams.get("resource")).toBe(w.mcpUrl);
    await provider.finishAuthorization((await followRedirect(url)) as string);
    await client.listTools();
    expect(w.log.tokenRequests.map((t) => t.params.grant_type)).toEqual([
      "authorization_code",
      "refresh_token",
      "authorization_code",
    ]);
  });

  it("authorize() returns interaction_required with the URL, or the tokens", async () => {
    const w = await world();
    const headless = new OAuthClient({ redirectUri: REDIRECT });
    const first = await headless.authorize(w.mcpUrl);
    expect(first.status).toBe("interaction_required");
    const url = first.status === "interaction_required" ? first.authorizationUrl : "";
    await headless.finishAuthorization((await followRedirect(new URL(url))) as string);
    const second = await headless.authorize(w.mcpUrl);
    expect(second).toMatchObject({ status: "authorized" });
    expect(
      await rejection(headless.finishAuthorization("http://127.0.0.1:9/callback?code=x&state=nope")),
    ).toMatchObject({
      details: { reason: "authorization_response" },
    });
  });
});

describe("OAuthClient options and the transport seam", () => {
  it("rejects unknown keys, a non-loopback http redirect, and a missing redirect URI", () => {
    expect(() => new OAuthClient({ redirectUri: REDIRECT, nope: 1 } as never)).toThrow(
      "OAuthClient nope is not an option",
    );
    expect(() => new OAuthClient({ redirectUri: "http://app.example/cb" })).toThrow(/redirectUri/);
    expect(() => new OAuthClient({})).toThrow(/redirectUri is required/);
    expect(
      () => new OAuthClient({ redirectUri: REDIRECT, clientIdMetadataUrl: "https://app.example" }),
    ).toThrow(/clientIdMetadataUrl/);
    expect(() => new OAuthClient({ redirectUri: REDIRECT, timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  it("takes counts from 1 and a metadata TTL from 0 (never reused), naming the option past the limit", () => {
    const refusal = (options: Partial<OAuthClientOptions>) => {
      try {
        new OAuthClient({ redirectUri: REDIRECT, ...options });
      } catch (error) {
        return error;
      }
      return undefined;
    };
    expect(refusal({ metadataTtlMs: 0 })).toBeUndefined();
    expect(refusal({ metadataTtlMs: -1 })).toMatchObject({
      code: "INVALID_CONFIG",
      message: "OAuthClient metadataTtlMs must be a non-negative integer",
      details: { key: "metadataTtlMs" },
    });
    for (const key of ["timeoutMs", "maxAuthorizationsPerOperation"] as const) {
      expect(refusal({ [key]: 1 })).toBeUndefined();
      expect(refusal({ [key]: 0 })).toMatchObject({
        message: `OAuthClient ${key} must be a positive integer`,
        details: { key },
      });
    }
  });

  it("the transport takes either auth or authProvider, and an authProvider must have both methods", () => {
    const url = "http://127.0.0.1:9/mcp";
    expect(() => new StreamableHttpClientTransport({ url, auth: () => ({}), authProvider: oauth() })).toThrow(
      /auth cannot be used with authProvider/,
    );
    expect(
      () => new StreamableHttpClientTransport({ url, authProvider: { headers: () => ({}) } as never }),
    ).toThrow(/authProvider/);
  });

  it("retries one request at most MAX_AUTH_RETRIES times, and reports a failing provider by name only", async () => {
    const w = await world();
    let challenges = 0;
    const always = {
      headers: () => ({ authorization: "Bearer nonsense" }),
      onChallenge: () => {
        challenges++;
        return true;
      },
    };
    const transport = new StreamableHttpClientTransport({ url: w.mcpUrl, authProvider: always });
    const client = new Client({ transport, clientInfo: { name: "loop", version: "1.0.0" } });
    clients.push(client);
    expect((await rejection(client.connect())).details).toMatchObject({
      reason: "unauthorized",
      status: 401,
    });
    expect(w.log.mcpAuth).toHaveLength(MAX_AUTH_RETRIES + 1);
    expect(challenges).toBe(MAX_AUTH_RETRIES);

    const failing = {
      headers: () => undefined,
      onChallenge: () => {
        throw new Error("secret-value leaked?");
      },
    };
    const other = new StreamableHttpClientTransport({ url: w.mcpUrl, authProvider: failing });
    const second = new Client({ transport: other, clientInfo: { name: "fail", version: "1.0.0" } });
    clients.push(second);
    const error = await rejection(second.connect());
    expect(error.details).toMatchObject({ reason: "auth_provider_failed" });
    expect(`${error.message}${JSON.stringify(error.details)}`).not.toContain("secret-value");
  });
});
