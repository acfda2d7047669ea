/**
 * Protected Resource Metadata (RFC 9728): the document served verbatim at the path-form and root well-known
 * URLs, methods and CORS, `resource` never re-serialized, option refusals; and the challenge's quoting.
 */
import { describe, expect, it } from "vitest";
import { bearerChallenge, protectedResourceMetadata } from "../../src/auth/index.js";

const base = {
  resource: "https://mcp.example.com/mcp",
  authorizationServers: ["https://auth.example.com/tenant1"],
  scopesSupported: ["mcp:read", "mcp:write"],
};

describe("protectedResourceMetadata", () => {
  it("serves the document at the path form and the root form; other paths fall through", async () => {
    const prm = protectedResourceMetadata({ ...base, resourceName: "Notes" });
    expect(prm.metadataUrl).toBe("https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
    expect(prm.paths).toEqual([
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]);
    for (const path of prm.paths) {
      const response = prm.handle(new Request(`https://mcp.example.com${path}`));
      expect(response?.status).toBe(200);
      expect(response?.headers.get("access-control-allow-origin")).toBe("*");
      expect(await response?.json()).toEqual({
        resource: "https://mcp.example.com/mcp",
        authorization_servers: ["https://auth.example.com/tenant1"],
        bearer_methods_supported: ["header"],
        scopes_supported: ["mcp:read", "mcp:write"],
        resource_name: "Notes",
      });
    }
    expect(prm.handle(new Request("https://mcp.example.com/mcp"))).toBeUndefined();
    expect(
      prm.handle(new Request("https://mcp.example.com/.well-known/oauth-protected-resource/other")),
    ).toBeUndefined();
  });

  it("answers OPTIONS 204, HEAD without a body, POST 405", async () => {
    const prm = protectedResourceMetadata(base);
    const url = prm.metadataUrl;
    expect(prm.handle(new Request(url, { method: "OPTIONS" }))?.status).toBe(204);
    const head = prm.handle(new Request(url, { method: "HEAD" }));
    expect(head?.status).toBe(200);
    expect(await head?.text()).toBe("");
    const post = prm.handle(new Request(url, { method: "POST", body: "{}" }));
    expect(post?.status).toBe(405);
    expect(post?.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  it("keeps an origin-only resource byte for byte (no trailing slash added) and serves it at the root", async () => {
    const prm = protectedResourceMetadata({ ...base, resource: "http://localhost:3000" });
    expect(prm.paths).toEqual(["/.well-known/oauth-protected-resource"]);
    const body = (await prm
      .handle(new Request("http://localhost:3000/.well-known/oauth-protected-resource"))
      ?.json()) as {
      resource: string;
    };
    expect(body.resource).toBe("http://localhost:3000");
  });

  it.each([
    [{ ...base, authorizationServers: [] }, /at least one/],
    [{ ...base, authorizationServers: ["http://auth.example.com"] }, /https/],
    [{ ...base, authorizationServers: ["https://auth.example.com?x=1"] }, /query/],
    [{ ...base, resource: "https://mcp.example.com/mcp#x" }, /fragment/],
    [{ ...base, resource: "https://user:pw@mcp.example.com/mcp" }, /credentials/],
    [{ ...base, resource: "mcp" }, /absolute/],
    [{ ...base, scopesSupported: ['a"b'] }, /invalid scope/],
    [{ ...base, maxAgeSeconds: -1 }, /maxAgeSeconds/],
    [{ ...base, issuer: "x" }, /not an option/],
  ])("rejects options %#", (options, message) => {
    expect(() => protectedResourceMetadata(options as never)).toThrow(message);
  });
});

describe("bearerChallenge", () => {
  it("quotes and escapes parameter values, drops control characters, omits an empty scope", () => {
    expect(
      bearerChallenge({
        error: "invalid_token",
        errorDescription: 'say "hi" \\ bye\r\n',
        resourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
        scopes: [],
      }),
    ).toBe(
      'Bearer error="invalid_token", error_description="say \\"hi\\" \\\\ bye", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    );
  });
});
