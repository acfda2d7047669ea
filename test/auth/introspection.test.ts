/**
 * introspectionVerifier (RFC 7662 on oauth4webapi) against a stub endpoint: client authentication, active and
 * inactive answers, a refresh token or a foreign issuer refused, the cache (keyed by the token's digest, bounded
 * by maxCacheEntries, expiring by cacheTtlMs and the token's exp), and an endpoint failure as an outage.
 */
import { describe, expect, it } from "vitest";
import { introspectionVerifier, VerifierUnavailableError } from "../../src/auth/index.js";

const ENDPOINT = "https://auth.example.com/introspect";
const RESOURCE = "https://mcp.example.com/mcp";
const context = { request: new Request(RESOURCE, { method: "POST" }), resource: RESOURCE };

function stub(answers: { [token: string]: object }, status = 200) {
  const calls: { token: string; authorization: string | null; body: string }[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
    const body = String(init?.body);
    const token = new URLSearchParams(body).get("token") ?? "";
    calls.push({ token, authorization: new Headers(init?.headers).get("authorization"), body });
    if (status !== 200) return new Response("boom", { status });
    return Response.json(answers[token] ?? { active: false });
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

const active = (extra: object = {}) => ({
  active: true,
  sub: "alice",
  client_id: "app",
  scope: "mcp:read",
  aud: RESOURCE,
  iss: "https://auth.example.com",
  exp: 2_000_000_000,
  ...extra,
});

function verifier(fetch: typeof globalThis.fetch, extra: object = {}, clock = { now: 1_000_000 }) {
  return introspectionVerifier({
    endpoint: ENDPOINT,
    clientId: "rs",
    clientSecret: "s3cret",
    issuer: "https://auth.example.com",
    fetch,
    now: () => clock.now,
    ...extra,
  });
}

describe("introspectionVerifier", () => {
  it("authenticates with client_secret_basic and maps the answer", async () => {
    const server = stub({ good: active() });
    const token = await verifier(server.fetch)("good", context);
    expect(token).toMatchObject({
      subject: "alice",
      clientId: "app",
      scopes: ["mcp:read"],
      audience: [RESOURCE],
    });
    expect(server.calls[0]?.authorization).toBe(`Basic ${btoa("rs:s3cret")}`);
  });

  it("can send the secret in the body (client_secret_post)", async () => {
    const server = stub({ good: active() });
    await verifier(server.fetch, { clientAuthentication: "client_secret_post" })("good", context);
    expect(server.calls[0]?.authorization).toBeNull();
    expect(new URLSearchParams(server.calls[0]?.body).get("client_secret")).toBe("s3cret");
  });

  it.each([
    ["inactive", { active: false }],
    ["a refresh token", active({ token_type: "refresh_token" })],
    ["from another issuer", active({ iss: "https://evil.example.com" })],
  ])("refuses a token that is %s", async (_name, answer) => {
    const verify = verifier(stub({ tok: answer }).fetch);
    await expect(verify("tok", context)).rejects.toMatchObject({ reason: "inactive" });
  });

  it("caches answers (active or not) for cacheTtlMs, never past exp", async () => {
    const clock = { now: 1_000_000 };
    const server = stub({ good: active(), short: active({ exp: 1_005 }) });
    const verify = verifier(server.fetch, { cacheTtlMs: 60_000 }, clock);
    await verify("good", context);
    await verify("good", context);
    await expect(verify("nope", context)).rejects.toMatchObject({ reason: "inactive" });
    await expect(verify("nope", context)).rejects.toMatchObject({ reason: "inactive" });
    expect(server.calls.map((call) => call.token)).toEqual(["good", "nope"]);
    clock.now += 60_000;
    await verify("good", context);
    expect(server.calls).toHaveLength(3);
    // A token expiring in 5 s is asked again after 5 s, not 60.
    await verify("short", context);
    clock.now += 5_000;
    await expect(verify("short", context)).resolves.toBeDefined();
    expect(server.calls.filter((call) => call.token === "short")).toHaveLength(2);
  });

  it("keeps at most maxCacheEntries answers, dropping the oldest", async () => {
    const server = stub({});
    const verify = verifier(server.fetch, { maxCacheEntries: 2 });
    for (const token of ["a", "b", "c", "c", "b", "a"]) await verify(token, context).catch(() => {});
    // c and b were cached; a was dropped when c came, so it is asked again.
    expect(server.calls.map((call) => call.token)).toEqual(["a", "b", "c", "a"]);
  });

  it("asks every time with cacheTtlMs 0", async () => {
    const server = stub({ good: active() });
    const verify = verifier(server.fetch, { cacheTtlMs: 0 });
    await verify("good", context);
    await verify("good", context);
    expect(server.calls).toHaveLength(2);
  });

  it("treats a failing endpoint as an outage whose message carries no token", async () => {
    const error = await verifier(stub({}, 500).fetch)("secret-token-value", context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VerifierUnavailableError);
    expect((error as Error).message).not.toContain("secret-token-value");
  });

  it.each([
    [{ endpoint: "http://auth.example.com/introspect" }, /https/],
    [{ clientSecret: "" }, /clientSecret/],
    [{ clientAuthentication: "private_key_jwt" }, /clientAuthentication/],
    [{ maxCacheEntries: 0 }, /maxCacheEntries/],
    [{ cacheTtlMs: -1 }, /cacheTtlMs/],
    [{ ttl: 1 }, /not an option/],
  ])("rejects options %j", (extra, message) => {
    expect(() =>
      introspectionVerifier({ endpoint: ENDPOINT, clientId: "rs", clientSecret: "s", ...extra } as never),
    ).toThrow(message);
  });
});
