/**
 * mcpkit/auth/node: the file-backed credential store (mode 0600, whole-file atomic writes, serialized) and the
 * loopback redirect listener; and the machine grants (client_credentials with client_secret_basic and
 * private_key_jwt) against the loopback OAuth world.
 */
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { credentialKeyString, MemoryCredentialStore, OAuthClient } from "../../src/auth/index.js";
import { FileCredentialStore, startLoopbackRedirect } from "../../src/auth-node/index.js";
import { Client } from "../../src/client/client.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { type OAuthWorld, startOAuthWorld } from "../support/oauth-fixture.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function world(): Promise<OAuthWorld> {
  const started = await startOAuthWorld();
  cleanups.push(() => started.close());
  return started;
}

async function listWith(w: OAuthWorld, provider: OAuthClient): Promise<void> {
  const transport = new StreamableHttpClientTransport({ url: w.mcpUrl, authProvider: provider });
  const client = new Client({ transport, clientInfo: { name: "auth-node", version: "1.0.0" } });
  cleanups.push(() => client.close());
  await client.connect();
  await client.listTools();
}

describe("FileCredentialStore", () => {
  it("round-trips per (resource, issuer), writes mode 0600, and serializes concurrent writes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpkit-auth-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "nested", "oauth.json");
    const store = new FileCredentialStore(path);
    const a = { resource: "https://mcp.example/mcp", issuer: "https://as1.example" };
    const b = { resource: "https://mcp.example/mcp", issuer: "https://as2.example" };
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.set(i % 2 === 0 ? a : b, { requestedScopes: [`s${i}`] })),
    );
    expect(await store.get(a)).toEqual({ requestedScopes: ["s8"] });
    expect(await new FileCredentialStore(path).get(b)).toEqual({ requestedScopes: ["s9"] });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await store.delete(a);
    expect(await store.get(a)).toBeUndefined();
    expect(Object.keys(JSON.parse(readFileSync(path, "utf8")))).toHaveLength(1);
    expect(await new FileCredentialStore(join(dir, "missing.json")).get(a)).toBeUndefined();
  });

  it("keeps what it read until the file changes, and sees another process's write", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpkit-auth-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "oauth.json");
    const key = { resource: "https://mcp.example/mcp", issuer: "https://as1.example" };
    const entry = (scope: string) =>
      `${JSON.stringify({ [credentialKeyString(key)]: { requestedScopes: [scope] } })}\n`;
    writeFileSync(path, entry("s1"));
    const store = new FileCredentialStore(path);
    const first = await store.get(key);
    expect(first).toEqual({ requestedScopes: ["s1"] });
    // What a caller does to an answer never reaches the entries kept.
    (first?.requestedScopes as string[] | undefined)?.push("changed by the caller");
    expect(await store.get(key)).toEqual({ requestedScopes: ["s1"] });
    // Written in place, same size, its modification time put back: the change time still tells.
    const { atime, mtime } = statSync(path);
    writeFileSync(path, entry("s2"));
    utimesSync(path, atime, mtime);
    expect(await store.get(key)).toEqual({ requestedScopes: ["s2"] });
    // Another process replaces the file (as set() does): seen at once.
    writeFileSync(`${path}.other`, entry("s3"));
    renameSync(`${path}.other`, path);
    expect(await store.get(key)).toEqual({ requestedScopes: ["s3"] });
    rmSync(path);
    expect(await store.get(key)).toBeUndefined();
  });

  it("keeps a CLI logged in across runs: a second OAuthClient uses the stored token after one 401", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpkit-auth-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const w = await world();
    const loopback = await startLoopbackRedirect();
    cleanups.push(() => loopback.close());
    const run = () =>
      new OAuthClient({
        redirectUri: loopback.redirectUri,
        store: new FileCredentialStore(join(dir, "oauth.json")),
        onAuthorizationUrl: async (url) => {
          // The "browser": follows the authorization redirect to the loopback listener.
          const location = (await fetch(url, { redirect: "manual" })).headers.get("location") ?? "";
          await fetch(location);
          return loopback.next();
        },
      });
    await listWith(w, run());
    await listWith(w, run());
    expect(w.log.authorizations).toHaveLength(1);
    expect(w.log.tokenRequests).toHaveLength(1);
  });
});

describe("startLoopbackRedirect", () => {
  it("hands over redirects to its path only, in order", async () => {
    const loopback = await startLoopbackRedirect({ path: "/cb" });
    cleanups.push(() => loopback.close());
    expect(loopback.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/cb$/);
    expect((await fetch(loopback.redirectUri.replace("/cb", "/other"))).status).toBe(404);
    await fetch(`${loopback.redirectUri}?code=1&state=a`);
    const first = await loopback.next();
    expect(first.searchParams.get("state")).toBe("a");
    const waiting = loopback.next();
    await fetch(`${loopback.redirectUri}?code=2&state=b`);
    expect((await waiting).searchParams.get("code")).toBe("2");
  });

  it("rejects next() when no redirect arrives in time", async () => {
    const loopback = await startLoopbackRedirect({ timeoutMs: 20 });
    cleanups.push(() => loopback.close());
    await expect(loopback.next()).rejects.toThrow(/no redirect/);
  });
});

describe("machine grants", () => {
  it("client_credentials with client_secret_basic: form-encoded id and secret, resource sent", async () => {
    const w = await world();
    w.config.authMethods = ["client_secret_basic"];
    await listWith(
      w,
      new OAuthClient({ grant: { type: "client_credentials", clientId: "svc-1", clientSecret: "s e-c" } }),
    );
    const request = w.log.tokenRequests[0];
    expect(request?.params).toMatchObject({ grant_type: "client_credentials", resource: w.mcpUrl });
    expect(Buffer.from(String(request?.authorization).slice(6), "base64").toString()).toBe("svc-1:s+e-c");
    expect(w.log.authorizations).toHaveLength(0);
  });

  it("client_credentials: an expired token is replaced by a new grant, in a running client and from a store", async () => {
    const w = await world();
    w.config.authMethods = ["client_secret_basic"];
    let now = 1_000_000;
    const store = new MemoryCredentialStore();
    const grant = { type: "client_credentials" as const, clientId: "svc-3", clientSecret: "secret-3" };
    const transport = new StreamableHttpClientTransport({
      url: w.mcpUrl,
      authProvider: new OAuthClient({ grant, store, now: () => now }),
    });
    const client = new Client({ transport, clientInfo: { name: "auth-node", version: "1.0.0" } });
    cleanups.push(() => client.close());
    await client.connect();
    await client.listTools();
    now += 3_600_000;
    await client.listTools();
    // A new client (a restart) with the expired token in its store: a new grant, not a refusal.
    now += 3_600_000;
    await listWith(w, new OAuthClient({ grant, store, now: () => now }));
    expect(w.log.tokenRequests.map((t) => t.params.grant_type)).toEqual([
      "client_credentials",
      "client_credentials",
      "client_credentials",
    ]);
  });

  it("asks for the configured scopes instead of the challenge's or the metadata's", async () => {
    const w = await world();
    w.config.prmScopes = ["mcp:read", "mcp:write"];
    w.config.challengeScope = "mcp:write";
    const grant = { type: "client_credentials" as const, clientId: "svc-4", clientSecret: "secret-4" };
    await listWith(w, new OAuthClient({ grant, scopes: ["mcp:read"] }));
    expect(w.log.tokenRequests[0]?.params.scope).toBe("mcp:read");
    expect(() => new OAuthClient({ grant, scopes: ["a b"] })).toThrow(/OAuthClient scopes/);
  });

  it("client_credentials with private_key_jwt: an ES256 assertion with iss = sub = client id and aud = issuer", async () => {
    const w = await world();
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    await listWith(
      w,
      new OAuthClient({ grant: { type: "client_credentials", clientId: "svc-2", privateKey: pem } }),
    );
    const params = w.log.tokenRequests[0]?.params ?? {};
    expect(params.client_assertion_type).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    const [header, payload] = String(params.client_assertion)
      .split(".")
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, "base64url").toString()));
    expect(header).toMatchObject({ alg: "ES256" });
    expect(payload).toMatchObject({ iss: "svc-2", sub: "svc-2", aud: w.issuer1 });
  });
});
