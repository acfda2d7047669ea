/**
 * OAuth per upstream from the config file, end to end: the BUILT `mcpkit gateway` as a subprocess, a real
 * authorization server (oidc-provider on 127.0.0.1, test/support/oidc-provider.ts) and three real protected mcpkit
 * HTTP upstreams behind `requireBearer` + `jwtVerifier`. The config is the example of docs/gateway.md. Two
 * upstreams use client_credentials (secrets from the environment), one a login made once with
 * `mcpkit gateway login`; tokens land in one 0600 file per upstream, are reused across restarts, replaced when
 * refused or expired, refreshed (and rotated) for the login, and never printed.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  bearerToken,
  InvalidTokenError,
  jwtVerifier,
  protectedResourceMetadata,
  requireBearer,
  type TokenVerifier,
} from "../../src/auth/index.js";
import { Client } from "../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../src/http/index.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { toNodeHandler } from "../../src/node/adapter.js";
import { ServerBuilder } from "../../src/server/index.js";
import { type CliProcess, startCli, waitUntil } from "../cli/built-cli.js";
import { type AuthServer, HeadlessBrowser, startAuthServer } from "../support/oidc-provider.js";
import { repoRoot } from "../support/wire-schema.js";
import { eventually, startGatewayCli } from "./support.js";

const SCOPES = ["mcp:read", "mcp:write"];
const SECRETS = { SEARCH_CLIENT_SECRET: "", TICKETS_CLIENT_SECRET: "" };

interface Protected {
  url: string;
  /** Access tokens it refuses from now on (as if revoked). */
  refused: Set<string>;
  /** The tokens it accepted, in order. */
  accepted: string[];
  server: NodeServer;
}

let as: AuthServer;
const upstreams: { [name: string]: Protected } = {};
let dir = "";

async function listen(): Promise<{ server: NodeServer; url: string }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
}

/** A protected mcpkit upstream: `whoami` says who the token is for; `refused` tokens get 401. */
function protect(name: string, target: { server: NodeServer; url: string }): Protected {
  const refused = new Set<string>();
  const accepted: string[] = [];
  const jwt = jwtVerifier({ issuer: as.issuer });
  const verify: TokenVerifier = async (token, context) => {
    if (refused.has(token)) throw new InvalidTokenError("inactive");
    const info = await jwt(token, context);
    accepted.push(token);
    return info;
  };
  const server = new ServerBuilder({ serverInfo: { name, version: "1.0.0" } })
    .tool({ name: "whoami", inputSchema: { type: "object" } }, (_args, ctx) => {
      const token = bearerToken(ctx.identity);
      const text = `${name}: ${token?.subject} via ${token?.clientId} [${token?.scopes.join(" ")}]`;
      return { content: [{ type: "text", text }] };
    })
    .build();
  const prm = protectedResourceMetadata({
    resource: target.url,
    authorizationServers: [as.issuer],
    scopesSupported: SCOPES,
  });
  const handler = createHttpHandler(server, {
    authenticate: requireBearer({ resource: target.url, verify, requiredScopes: ["mcp:read"] }),
  });
  const listener = toNodeHandler((request) => prm.handle(request) ?? handler(request));
  target.server.on("request", (req, res) => void listener(req, res));
  return { url: target.url, refused, accepted, server: target.server };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mcpkit-gateway-oauth-"));
  const listening = { search: await listen(), tickets: await listen(), notes: await listen() };
  as = await startAuthServer({
    resource: listening.search.url,
    otherResources: [listening.tickets.url, listening.notes.url],
    scopes: SCOPES,
  });
  for (const [name, target] of Object.entries(listening)) upstreams[name] = protect(name, target);
  SECRETS.SEARCH_CLIENT_SECRET = as.machineClient.clientSecret;
  SECRETS.TICKETS_CLIENT_SECRET = as.machineClient.clientSecret;
});

afterAll(async () => {
  for (const upstream of Object.values(upstreams)) {
    upstream.server.closeAllConnections();
    await new Promise<void>((resolve) => upstream.server.close(() => resolve()));
  }
  await as?.close();
  rmSync(dir, { recursive: true, force: true });
});

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

/** The OAuth example of docs/gateway.md, pointed at this test's upstreams, client and token directory. */
function docsExample(tokens: string): { [key: string]: unknown } {
  const docs = readFileSync(join(repoRoot, "docs", "gateway.md"), "utf8");
  const block = /<!-- example: gateway-oauth -->\s*```json\n([\s\S]*?)```/.exec(docs)?.[1];
  if (block === undefined) throw new Error("docs/gateway.md has no gateway-oauth example");
  const text = block
    .replaceAll("https://search.example.com/mcp", upstreams.search?.url ?? "")
    .replaceAll("https://tickets.example.com/mcp", upstreams.tickets?.url ?? "")
    .replaceAll("https://notes.example.com/mcp", upstreams.notes?.url ?? "")
    .replaceAll('"mcp-gateway"', JSON.stringify(as.machineClient.clientId))
    .replaceAll("~/.config/mcpkit/gateway-tokens", tokens);
  const config = JSON.parse(text) as { gateway: { [key: string]: unknown } };
  // Retried at once after a login, not after the production backoff.
  config.gateway.restart = { initialDelayMs: 20, maxDelayMs: 100 };
  return config;
}

function writeConfig(name: string, config: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

const env = (extra: { [name: string]: string } = {}) => ({ PATH: process.env.PATH, ...SECRETS, ...extra });

async function gateway(file: string): Promise<{ cli: CliProcess; client: Client; stop(): Promise<number> }> {
  const { cli, url } = await startGatewayCli(["--config", file, "--no-watch"], closers, env());
  const stop = async () => {
    cli.child.kill("SIGTERM");
    return cli.exited;
  };
  const client = new Client({
    transport: new StreamableHttpClientTransport({ url }),
    clientInfo: { name: "t", version: "1" },
  });
  await client.connect();
  closers.push(() => client.close());
  return { cli, client, stop };
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";
const tokenFiles = (tokens: string) => readdirSync(tokens).filter((f) => f.endsWith(".json"));
const fileOf = (tokens: string, name: string) => {
  const found = tokenFiles(tokens).find((f) => f.startsWith(`${name}-`));
  if (found === undefined) throw new Error(`no token file for ${name} in ${tokenFiles(tokens)}`);
  return join(tokens, found);
};
type Stored = {
  [key: string]: { tokens?: { access_token: string; refresh_token?: string; expires_at?: number } };
};
const stored = (file: string) => Object.values(JSON.parse(readFileSync(file, "utf8")) as Stored)[0]?.tokens;

/** Makes the stored access token look expired (the clock moved on), as only the store's data can say. */
function expire(file: string): void {
  const entries = JSON.parse(readFileSync(file, "utf8")) as Stored;
  for (const entry of Object.values(entries)) if (entry.tokens) entry.tokens.expires_at = 1;
  writeFileSync(file, JSON.stringify(entries));
  chmodSync(file, 0o600);
}

/** Everything the gateway process printed must hold no secret and no token of the store. */
function expectNoSecretPrinted(cli: CliProcess, tokens: string): void {
  const printed = cli.stdout() + cli.stderr();
  expect(printed).not.toContain(as.machineClient.clientSecret);
  for (const file of tokenFiles(tokens)) {
    const held = stored(join(tokens, file));
    if (held?.access_token) expect(printed).not.toContain(held.access_token);
    if (held?.refresh_token) expect(printed).not.toContain(held.refresh_token);
  }
}

describe("mcpkit gateway: OAuth per upstream from the config", () => {
  it("client_credentials from the environment: one 0600 file per upstream, a refused or expired token replaced, a restart reusing the stored one", async () => {
    const tokens = join(dir, "machine-tokens");
    const config = docsExample(tokens);
    delete (config.mcpServers as { [name: string]: unknown }).notes;
    const file = writeConfig("machine.json", config);
    const before = as.grants.client_credentials ?? 0;
    const grants = () => (as.grants.client_credentials ?? 0) - before;

    const first = await gateway(file);
    expect(text(await first.client.callTool("search__whoami", {}))).toMatch(
      /^search: \S+ via machine-client \[mcp:read\]$/,
    );
    expect(text(await first.client.callTool("tickets__whoami", {}))).toMatch(
      /^tickets: \S+ via machine-client/,
    );
    expect(grants()).toBe(2);
    expect(tokenFiles(tokens)).toHaveLength(2);
    for (const name of ["search", "tickets"]) {
      expect(statSync(fileOf(tokens, name)).mode & 0o777).toBe(0o600);
    }
    expect(statSync(tokens).mode & 0o777).toBe(0o700);

    // The upstream refuses the token it was given: the OAuth client gets a new one, the call goes through.
    const search = upstreams.search as Protected;
    const old = stored(fileOf(tokens, "search"))?.access_token as string;
    search.refused.add(old);
    expect(text(await first.client.callTool("search__whoami", {}))).toMatch(/^search: /);
    expect(grants()).toBe(3);
    expect(stored(fileOf(tokens, "search"))?.access_token).not.toBe(old);

    // An expired token (no refresh token with a machine grant) is replaced by a new grant before use.
    expire(fileOf(tokens, "tickets"));
    expect(text(await first.client.callTool("tickets__whoami", {}))).toMatch(/^tickets: /);
    expect(grants()).toBe(4);
    expectNoSecretPrinted(first.cli, tokens);
    expect(await first.stop()).toBe(0);

    // A restart: the stored tokens are used, the authorization server sees no token request.
    const accepted = search.accepted.length;
    const second = await gateway(file);
    expect(text(await second.client.callTool("search__whoami", {}))).toMatch(/^search: /);
    expect(text(await second.client.callTool("tickets__whoami", {}))).toMatch(/^tickets: /);
    expect(grants()).toBe(4);
    const kept = stored(fileOf(tokens, "search"))?.access_token;
    const sent = search.accepted.slice(accepted);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((token) => token === kept)).toBe(true);
    expectNoSecretPrinted(second.cli, tokens);
  });

  it("a login upstream: withheld with an error naming the login command, then `mcpkit gateway login` stores tokens the running gateway uses and refreshes", async () => {
    const tokens = join(dir, "login-tokens");
    const file = writeConfig("login.json", docsExample(tokens));
    const { cli, client } = await gateway(file);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("search__whoami");
    expect(names).not.toContain("notes__whoami");
    const refusal = await client.callTool("notes__whoami", {}).then(
      () => "",
      (error: Error) => error.message,
    );
    expect(refusal).toContain('upstream "notes"');
    expect(refusal).toContain(`mcpkit gateway login --config ${file} notes`);
    // Nothing was registered or asked of the authorization server for it.
    expect(as.grants.authorization_code ?? 0).toBe(0);

    const login = startCli(["gateway", "login", "--config", file, "notes"], { env: env() });
    closers.push(async () => {
      login.child.kill("SIGTERM");
      await login.exited;
    });
    await waitUntil(
      () => /https?:\/\/\S+\/auth\S*/.test(login.stderr()),
      () => `no URL printed; stderr: ${login.stderr()}`,
    );
    const url = new URL(/(https?:\/\/\S+\/auth\S*)/.exec(login.stderr())?.[1] ?? "");
    const redirectUri = url.searchParams.get("redirect_uri") ?? "";
    expect(redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const params = await new HeadlessBrowser().authorize(url, redirectUri);
    await (await fetch(`${redirectUri}?${params}`)).body?.cancel();
    expect(await login.exited).toBe(0);
    expect(login.stderr()).toContain('logged in to "notes"');
    expect(as.grants.authorization_code).toBe(1);
    const notesFile = fileOf(tokens, "notes");
    expect(statSync(notesFile).mode & 0o777).toBe(0o600);

    // The running gateway retries the upstream and finds the login.
    await eventually(async () => (await client.listTools()).tools.some((t) => t.name === "notes__whoami"));
    expect(text(await client.callTool("notes__whoami", {}))).toMatch(/^notes: alice via \S+ \[mcp:read/);

    // Expired: refreshed with the stored refresh token, which rotates and is saved.
    const before = stored(notesFile);
    expire(notesFile);
    expect(text(await client.callTool("notes__whoami", {}))).toMatch(/^notes: alice/);
    expect(as.grants.refresh_token).toBe(1);
    const after = stored(notesFile);
    expect(after?.access_token).not.toBe(before?.access_token);
    expect(after?.refresh_token).toBeDefined();
    expect(after?.refresh_token).not.toBe(before?.refresh_token);
    expect(as.grants.authorization_code).toBe(1);
    expectNoSecretPrinted(cli, tokens);
    expectNoSecretPrinted(login, tokens);
  });

  it("refuses at load a secret written in the file or missing from the environment, naming the key", async () => {
    const tokens = join(dir, "refused-tokens");
    const inline = docsExample(tokens);
    const search = (inline.mcpServers as { search: { oauth: { clientSecret: string } } }).search;
    search.oauth.clientSecret = "hunter2-inline";
    const bad = startCli(["gateway", "--config", writeConfig("inline.json", inline)], { env: env() });
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toContain("mcpServers.search.oauth.clientSecret must not be written in the file");
    expect(bad.stderr()).not.toContain("hunter2-inline");

    const unset = startCli(["gateway", "--config", writeConfig("unset.json", docsExample(tokens))], {
      env: { PATH: process.env.PATH, SEARCH_CLIENT_SECRET: "x" },
    });
    expect(await unset.exited).toBe(2);
    expect(unset.stderr()).toContain("mcpServers.tickets.oauth.clientSecretEnv names TICKETS_CLIENT_SECRET");
  });
});
