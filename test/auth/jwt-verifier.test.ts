/**
 * jwtVerifier (RFC 9068 on oauth4webapi) with tokens signed here and a JWKS served by a counting stub `fetch`:
 * a valid token passes; a malformed one, an expired one, a wrong audience, a wrong issuer, a wrong `typ`,
 * `alg: none`, a bad signature and missing claims are each refused with their reason; a new `kid` triggers one
 * JWKS refetch (key rotation), and a flood of unknown kids does not (bounded: once a minute); metadata discovery
 * finds `jwks_uri`, and an issuer mismatch or a failing JWKS endpoint is an outage, not a refusal.
 */
import type { webcrypto } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { InvalidTokenError, jwtVerifier, VerifierUnavailableError } from "../../src/auth/index.js";

const ISSUER = "https://auth.example.com";
const RESOURCE = "https://mcp.example.com/mcp";
const JWKS_URI = `${ISSUER}/jwks`;

const b64u = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const json64 = (value: unknown) => b64u(new TextEncoder().encode(JSON.stringify(value)));

interface Key {
  kid: string;
  pair: webcrypto.CryptoKeyPair;
  jwk: webcrypto.JsonWebKey;
}

async function newKey(kid: string): Promise<Key> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ])) as webcrypto.CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey("jwk", pair.publicKey);
  return { kid, pair, jwk: { ...jwk, kid, alg: "ES256", use: "sig" } as webcrypto.JsonWebKey };
}

function claims(extra: { [key: string]: unknown } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: ISSUER,
    aud: RESOURCE,
    sub: "alice",
    client_id: "app",
    iat: now,
    exp: now + 600,
    jti: crypto.randomUUID(),
    scope: "mcp:read mcp:write",
    ...extra,
  };
}

async function sign(key: Key, payload: object, header: { [key: string]: unknown } = {}): Promise<string> {
  const input = `${json64({ alg: "ES256", typ: "at+jwt", kid: key.kid, ...header })}.${json64(payload)}`;
  const signature = await crypto.subtle.sign(
    { name: "ECDSA", hash: "SHA-256" },
    key.pair.privateKey,
    new TextEncoder().encode(input),
  );
  return `${input}.${b64u(new Uint8Array(signature))}`;
}

/** A stub authorization server: JWKS (and metadata) from a mutable key list; counts fetches by path. */
function stubServer(keys: Key[], options: { jwksStatus?: number; metadataIssuer?: string } = {}) {
  const counts: { [path: string]: number } = {};
  const fetch = async (url: string | URL | Request) => {
    const path = new URL(String(url)).pathname;
    counts[path] = (counts[path] ?? 0) + 1;
    if (path === "/jwks") {
      if (options.jwksStatus !== undefined) return new Response("down", { status: options.jwksStatus });
      return Response.json({ keys: keys.map((key) => key.jwk) });
    }
    if (path === "/.well-known/oauth-authorization-server") {
      return Response.json({ issuer: options.metadataIssuer ?? ISSUER, jwks_uri: JWKS_URI });
    }
    return new Response("not found", { status: 404 });
  };
  return { fetch: fetch as typeof globalThis.fetch, counts };
}

const context = { request: new Request(RESOURCE, { method: "POST" }), resource: RESOURCE };

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidTokenError);
  return (error as InvalidTokenError).reason;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("jwtVerifier", () => {
  it("accepts a valid token and reports its claims", async () => {
    const key = await newKey("k1");
    const stub = stubServer([key]);
    const verify = jwtVerifier({ issuer: ISSUER, jwksUri: JWKS_URI, fetch: stub.fetch });
    const token = await verify(await sign(key, claims()), context);
    expect(token).toMatchObject({
      subject: "alice",
      clientId: "app",
      issuer: ISSUER,
      audience: [RESOURCE],
      scopes: ["mcp:read", "mcp:write"],
    });
    // Cached: a second token costs no JWKS fetch.
    await verify(await sign(key, claims()), context);
    expect(stub.counts["/jwks"]).toBe(1);
  });

  it.each([
    ["malformed", async () => "not-a-jwt", "malformed"],
    ["two parts", async () => "aaa.bbb", "malformed"],
    [
      "expired",
      async (key: Key) => sign(key, claims({ exp: Math.floor(Date.now() / 1000) - 3600 })),
      "expired",
    ],
    [
      "not yet valid",
      async (key: Key) => sign(key, claims({ nbf: Math.floor(Date.now() / 1000) + 3600 })),
      "not_yet_valid",
    ],
    [
      "wrong audience",
      async (key: Key) => sign(key, claims({ aud: "https://other.example.com/mcp" })),
      "audience",
    ],
    [
      "audience with a trailing slash",
      async (key: Key) => sign(key, claims({ aud: `${RESOURCE}/` })),
      "audience",
    ],
    ["wrong issuer", async (key: Key) => sign(key, claims({ iss: "https://evil.example.com" })), "issuer"],
    ["issuer with a trailing slash", async (key: Key) => sign(key, claims({ iss: `${ISSUER}/` })), "issuer"],
    ["typ JWT (an ID token)", async (key: Key) => sign(key, claims(), { typ: "JWT" }), "type"],
    ["no typ", async (key: Key) => sign(key, claims(), { typ: undefined }), "type"],
    ["no sub", async (key: Key) => sign(key, claims({ sub: undefined })), "claims"],
    ["no client_id", async (key: Key) => sign(key, claims({ client_id: undefined })), "claims"],
    ["alg none", async () => `${json64({ alg: "none", typ: "at+jwt" })}.${json64(claims())}.`, "algorithm"],
    [
      "HS256 (a symmetric alg)",
      async (key: Key) => {
        const [, payload, signature] = (await sign(key, claims())).split(".");
        return `${json64({ alg: "HS256", typ: "at+jwt", kid: "k1" })}.${payload}.${signature}`;
      },
      "algorithm",
    ],
    [
      "a forged signature",
      async () => {
        const other = await newKey("k1");
        return sign(other, claims());
      },
      "signature",
    ],
    [
      "a tampered payload",
      async (key: Key) => {
        const [header, , signature] = (await sign(key, claims())).split(".");
        return `${header}.${json64(claims({ scope: "admin" }))}.${signature}`;
      },
      "signature",
    ],
  ])("refuses %s", async (_name, make, reason) => {
    const key = await newKey("k1");
    const verify = jwtVerifier({ issuer: ISSUER, jwksUri: JWKS_URI, fetch: stubServer([key]).fetch });
    expect(await reasonOf(verify(await make(key), context))).toBe(reason);
  });

  it("refetches the JWKS once for a new kid (rotation), at most once a minute for unknown kids", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-12-01T00:00:00Z"));
    const old = await newKey("old");
    const keys = [old];
    const stub = stubServer(keys);
    const verify = jwtVerifier({ issuer: ISSUER, jwksUri: JWKS_URI, fetch: stub.fetch });
    await verify(await sign(old, claims()), context);
    expect(stub.counts["/jwks"]).toBe(1);
    // A token under an unknown kid within the first minute: refused without a refetch.
    const rotated = await newKey("new");
    keys.push(rotated);
    for (let i = 0; i < 20; i++) {
      expect(await reasonOf(verify(await sign(rotated, claims()), context))).toBe("signature");
    }
    expect(stub.counts["/jwks"]).toBe(1);
    // A minute later the new kid causes one refetch and passes; the old key still passes too.
    vi.setSystemTime(new Date("2026-12-01T00:01:01Z"));
    await verify(await sign(rotated, claims()), context);
    await verify(await sign(old, claims()), context);
    expect(stub.counts["/jwks"]).toBe(2);
    // A flood of made-up kids right after: no more fetches.
    const stranger = await newKey("stranger");
    for (let i = 0; i < 20; i++) {
      expect(await reasonOf(verify(await sign(stranger, claims()), context))).toBe("signature");
    }
    expect(stub.counts["/jwks"]).toBe(2);
  });

  it("finds jwks_uri in the issuer's metadata, fetched once", async () => {
    const key = await newKey("k1");
    const stub = stubServer([key]);
    const verify = jwtVerifier({ issuer: ISSUER, fetch: stub.fetch });
    await verify(await sign(key, claims()), context);
    await verify(await sign(key, claims()), context);
    expect(stub.counts["/.well-known/oauth-authorization-server"]).toBe(1);
  });

  it("treats metadata naming another issuer as an outage, never as a usable key set", async () => {
    const key = await newKey("k1");
    const stub = stubServer([key], { metadataIssuer: "https://evil.example.com" });
    const verify = jwtVerifier({ issuer: ISSUER, fetch: stub.fetch });
    await expect(verify(await sign(key, claims()), context)).rejects.toBeInstanceOf(VerifierUnavailableError);
    expect(stub.counts["/jwks"]).toBeUndefined();
  });

  it("treats a failing JWKS endpoint as an outage whose message carries no token", async () => {
    const key = await newKey("k1");
    const verify = jwtVerifier({
      issuer: ISSUER,
      jwksUri: JWKS_URI,
      fetch: stubServer([key], { jwksStatus: 503 }).fetch,
    });
    const token = await sign(key, claims());
    const error = await verify(token, context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VerifierUnavailableError);
    expect(String((error as Error).message)).not.toContain(token.split(".")[1]);
    expect((error as Error).cause).toBeUndefined();
  });

  it("rejects bad options", () => {
    expect(() => jwtVerifier({ issuer: "http://auth.example.com" })).toThrow(/https/);
    expect(() => jwtVerifier({ issuer: ISSUER, algorithms: ["HS256"] })).toThrow(/asymmetric/);
    expect(() => jwtVerifier({ issuer: ISSUER, audience: "x" } as never)).toThrow(/not an option/);
    expect(() => jwtVerifier({ issuer: ISSUER, jwksUri: "ftp://x" })).toThrow(/jwksUri/);
  });
});
