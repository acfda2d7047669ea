import { describe, expect, it } from "vitest";
import {
  authorizationServerCandidates,
  discoverAuthorizationServer,
  discoverResourceMetadata,
  resourceMatches,
  resourceMetadataCandidates,
} from "./discovery.js";
import type { AuthHttp } from "./http.js";

/** A fetch that serves `documents` by URL (JSON unless a content type is given) and records what was asked. */
function stubHttp(documents: { [url: string]: unknown }, types: { [url: string]: string } = {}) {
  const asked: string[] = [];
  const http: AuthHttp = {
    allowHttp: false,
    timeoutMs: 1000,
    fetch: async (url) => {
      asked.push(url);
      if (!(url in documents)) return new Response("not found", { status: 404 });
      const body = documents[url];
      return new Response(typeof body === "string" ? body : JSON.stringify(body), {
        status: 200,
        headers: { "content-type": types[url] ?? "application/json" },
      });
    },
  };
  return { http, asked };
}

const AS = (issuer: string) => ({
  issuer,
  authorization_endpoint: `${issuer}/authorize`,
  token_endpoint: `${issuer}/token`,
  code_challenge_methods_supported: ["S256"],
});

describe("resource metadata discovery", () => {
  it("tries the header URL, then the path form, then the root form", () => {
    expect(resourceMetadataCandidates(new URL("https://m.example/a/mcp"), "https://m.example/prm")).toEqual([
      "https://m.example/prm",
      "https://m.example/.well-known/oauth-protected-resource/a/mcp",
      "https://m.example/.well-known/oauth-protected-resource",
    ]);
    expect(resourceMetadataCandidates(new URL("https://m.example/"), undefined)).toEqual([
      "https://m.example/.well-known/oauth-protected-resource",
    ]);
  });

  it("skips unusable documents (HTML, no authorization_servers) and keeps resource exactly as spelled", async () => {
    const { http, asked } = stubHttp(
      {
        "https://m.example/.well-known/oauth-protected-resource/mcp": "<html>",
        "https://m.example/.well-known/oauth-protected-resource": {
          resource: "https://m.example",
          authorization_servers: ["https://as.example"],
        },
      },
      { "https://m.example/.well-known/oauth-protected-resource/mcp": "text/html" },
    );
    const found = await discoverResourceMetadata(http, new URL("https://m.example/mcp"), undefined);
    expect(found?.resource).toBe("https://m.example");
    expect(asked).toHaveLength(2);
  });

  it("refuses a resource of another origin or a non-prefix path; undefined when nothing answers", async () => {
    expect(resourceMatches("https://m.example/mcp", new URL("https://m.example/mcp"))).toBe(true);
    expect(resourceMatches("https://m.example/", new URL("https://m.example/mcp"))).toBe(true);
    expect(resourceMatches("https://m.example/mc", new URL("https://m.example/mcp"))).toBe(false);
    expect(resourceMatches("https://evil.example/mcp", new URL("https://m.example/mcp"))).toBe(false);
    expect(resourceMatches("https://m.example/mcp#x", new URL("https://m.example/mcp"))).toBe(false);
    const { http } = stubHttp({
      "https://m.example/.well-known/oauth-protected-resource/mcp": {
        resource: "https://evil.example/mcp",
        authorization_servers: ["https://as.example"],
      },
    });
    await expect(
      discoverResourceMetadata(http, new URL("https://m.example/mcp"), undefined),
    ).rejects.toMatchObject({
      code: "UNAUTHORIZED",
      details: { reason: "resource_mismatch" },
    });
    expect(
      await discoverResourceMetadata(stubHttp({}).http, new URL("https://m.example/mcp"), undefined),
    ).toBe(undefined);
  });

  it("refuses a plain-http resource_metadata URL to a non-loopback host", async () => {
    await expect(
      discoverResourceMetadata(stubHttp({}).http, new URL("https://m.example/mcp"), "http://m.example/prm"),
    ).rejects.toMatchObject({ details: { reason: "insecure_endpoint" } });
  });
});

describe("authorization server metadata discovery", () => {
  it("uses MCP's order: three path-aware candidates for a path issuer (no root), two for a root one", () => {
    expect(authorizationServerCandidates("https://as.example/tenant1")).toEqual([
      "https://as.example/.well-known/oauth-authorization-server/tenant1",
      "https://as.example/.well-known/openid-configuration/tenant1",
      "https://as.example/tenant1/.well-known/openid-configuration",
    ]);
    expect(authorizationServerCandidates("https://as.example")).toEqual([
      "https://as.example/.well-known/oauth-authorization-server",
      "https://as.example/.well-known/openid-configuration",
    ]);
  });

  it("walks to the third candidate past a 404 and an HTML page, and accepts an OIDC document without OIDC-only fields", async () => {
    const issuer = "https://as.example/tenant1";
    const { http, asked } = stubHttp(
      {
        "https://as.example/.well-known/openid-configuration/tenant1": "<html>",
        "https://as.example/tenant1/.well-known/openid-configuration": AS(issuer),
        "https://as.example/.well-known/oauth-authorization-server": AS("https://as.example"),
      },
      { "https://as.example/.well-known/openid-configuration/tenant1": "text/html" },
    );
    expect((await discoverAuthorizationServer(http, issuer)).issuer).toBe(issuer);
    expect(asked).not.toContain("https://as.example/.well-known/oauth-authorization-server");
  });

  it("never uses metadata whose issuer differs, even by a trailing slash", async () => {
    const issuer = "https://as.example";
    const { http } = stubHttp({
      "https://as.example/.well-known/oauth-authorization-server": AS(`${issuer}/`),
    });
    await expect(discoverAuthorizationServer(http, issuer)).rejects.toMatchObject({
      details: { reason: "issuer_mismatch" },
    });
    await expect(discoverAuthorizationServer(stubHttp({}).http, issuer)).rejects.toMatchObject({
      details: { reason: "no_authorization_server_metadata" },
    });
  });

  it("refuses metadata with a plain-http endpoint to a non-loopback host", async () => {
    const issuer = "https://as.example";
    const bad = { ...AS(issuer), token_endpoint: "http://as.example/token" };
    const { http } = stubHttp({ "https://as.example/.well-known/oauth-authorization-server": bad });
    await expect(discoverAuthorizationServer(http, issuer)).rejects.toMatchObject({
      details: { reason: "insecure_endpoint" },
    });
  });
});
