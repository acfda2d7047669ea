/**
 * mcpkit's OAuth client (mcpkit/auth) against a real authorization server: oidc-provider on 127.0.0.1 with
 * resource indicators, dynamic client registration, PKCE, RFC 9207 `iss` and refresh tokens, in front of an
 * mcpkit server behind a bearer check (test/support/oidc-client-world.ts). The client discovers everything from
 * the first 401, registers, logs in through a cookie-keeping headless browser, calls tools, refreshes when its
 * access token is revoked, and steps up on 403 insufficient_scope, in both eras.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryCredentialStore, OAuthClient } from "../../src/auth/index.js";
import { Client } from "../../src/client/client.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { CookieBrowser, type OidcClientWorld, startOidcClientWorld } from "../support/oidc-client-world.js";

const REDIRECT = "http://127.0.0.1:9/callback";
const ERAS = ["2025-11-25", "2026-07-28"] as const;

let world: OidcClientWorld;

beforeAll(async () => {
  world = await startOidcClientWorld({
    scopes: ["mcp:read", "mcp:write"],
    requiredScopes: ["mcp:read"],
    toolScopes: { write: ["mcp:write"] },
  });
});

afterAll(async () => {
  await world?.close();
});

describe.each(ERAS)("OAuthClient against oidc-provider (%s)", (era) => {
  it("logs in, calls a tool, refreshes after a revoked token and steps up to mcp:write", async () => {
    const browser = new CookieBrowser(REDIRECT);
    const store = new MemoryCredentialStore();
    const oauth = new OAuthClient({ redirectUri: REDIRECT, onAuthorizationUrl: browser.open, store });
    const transport = new StreamableHttpClientTransport({ url: world.mcpUrl, authProvider: oauth });
    const client = new Client({
      transport,
      clientInfo: { name: "oidc-test", version: "1.0.0" },
      protocolVersion: era,
    });
    const before = { ...world.grants };
    const logins = world.authorizationScopes.length;
    try {
      await client.connect();
      expect(browser.visits).toBe(1);
      // The challenge's scope, plus offline_access because the provider lists it (the provider drops it without
      // prompt=consent, and issues a refresh token anyway: the client registered the refresh_token grant).
      const first = browser.opened[0]?.searchParams;
      expect(first?.get("scope")).toBe("mcp:read offline_access");
      expect(first?.get("code_challenge_method")).toBe("S256");
      expect(world.authorizationScopes.at(-1)).toBe("mcp:read");
      expect(world.authorizationResources.at(-1)).toBe(world.mcpUrl); // byte-identical to PRM's
      expect((await client.callTool("read", {})).content).toEqual([{ type: "text", text: "read" }]);

      await world.revokeAccessTokens();
      const refusedBefore = world.refusals.length;
      expect((await client.callTool("read", {})).content).toEqual([{ type: "text", text: "read" }]);
      expect((world.grants.refresh_token ?? 0) - (before.refresh_token ?? 0)).toBe(1);
      expect(world.refusals.slice(refusedBefore)).toEqual([401]); // one 401, then a refresh and the retry
      expect(browser.visits).toBe(1); // refreshed, no new login

      expect((await client.callTool("write", {})).content).toEqual([{ type: "text", text: "written" }]);
      expect(browser.visits).toBe(2);
      // The union of what was asked before and what the 403 named.
      expect(browser.opened[1]?.searchParams.get("scope")?.split(" ").sort()).toEqual([
        "mcp:read",
        "mcp:write",
        "offline_access",
      ]);
      expect(world.authorizationScopes.at(-1)).toBe("mcp:read mcp:write");
      expect(world.authorizationScopes.length - logins).toBe(2);
      expect((world.grants.authorization_code ?? 0) - (before.authorization_code ?? 0)).toBe(2);
      // The stepped-up token serves both tools without another challenge.
      const refused = world.refusals.length;
      await client.callTool("read", {});
      await client.callTool("write", {});
      expect(world.refusals.length).toBe(refused);
    } finally {
      await client.close().catch(() => {});
    }
  });
});
