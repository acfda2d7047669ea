/**
 * `gateway.auth`: `mcpkit gateway` (the built CLI, a subprocess) as an OAuth resource server in front of its
 * upstreams. oidc-provider issues JWT access tokens for the gateway's URL; a client without one gets 401 and
 * the Protected Resource Metadata that names the issuer, and mcpkit's OAuthClient (client_credentials) finds
 * its way from there to a token and a call. The token's scopes drive `gateway.access`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { OAuthClient } from "../../src/auth/index.js";
import { Client } from "../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../src/http/index.js";
import type { CliProcess } from "../cli/built-cli.js";
import { freePort } from "../support/cluster-harness.js";
import { type AuthServer, startAuthServer } from "../support/oidc-provider.js";
import { fixtureUpstream, startGatewayCli } from "./support.js";

let as: AuthServer;
let dir = "";
let url = "";
let port = 0;
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mcpkit-gateway-front-"));
  port = await freePort();
  url = `http://127.0.0.1:${port}/mcp`;
  as = await startAuthServer({ resource: url, scopes: ["mcp:read", "search"] });
});

afterAll(async () => {
  await as?.close();
  rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

async function gateway(auth: { [key: string]: unknown }): Promise<CliProcess> {
  const file = join(dir, "gateway.json");
  const config = {
    gateway: {
      auth: { issuer: as.issuer, resource: url, ...auth },
      // Only a token with the `search` scope may use the upstream "search"; "notes" is for everyone signed in.
      access: [{ scopes: ["search"], upstreams: ["search", "notes"] }, { upstreams: ["notes"] }],
    },
    mcpServers: { notes: fixtureUpstream("notes"), search: fixtureUpstream("search") },
  };
  writeFileSync(file, JSON.stringify(config));
  const started = await startGatewayCli(["--config", file, "--no-watch", "--port", String(port)], closers);
  expect(started.url).toBe(url);
  return started.cli;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

/** A POST of a 2025-11-25 initialize, with `authorization` if given. */
function post(authorization?: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: INITIALIZE,
  });
}

/** A machine token straight from the issuer's token endpoint, for the gateway, with `scope`. */
async function tokenWith(scope: string): Promise<string> {
  const discovery = (await (await fetch(`${as.issuer}/.well-known/openid-configuration`)).json()) as {
    token_endpoint: string;
  };
  const { clientId, clientSecret } = as.machineClient;
  const response = await fetch(discovery.token_endpoint, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString("base64")}`,
    },
    body: new URLSearchParams({ grant_type: "client_credentials", scope, resource: url }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (body.access_token === undefined) throw new Error(`no token: ${JSON.stringify(body)}`);
  return body.access_token;
}

function machineClient(scopes: string[]): Client {
  const { clientId, clientSecret } = as.machineClient;
  const client = new Client({
    transport: new StreamableHttpClientTransport({
      url,
      authProvider: new OAuthClient({
        grant: { type: "client_credentials", clientId, clientSecret },
        scopes,
      }),
    }),
    clientInfo: { name: "front", version: "1" },
  });
  closers.push(() => client.close());
  return client;
}

describe("mcpkit gateway with gateway.auth", () => {
  it("refuses a request without a token: 401, a challenge naming the metadata, the metadata naming the issuer", async () => {
    await gateway({ requiredScopes: ["mcp:read"] });
    const refused = await post();
    expect(refused.status).toBe(401);
    const challenge = refused.headers.get("www-authenticate") ?? "";
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? "";
    expect(metadataUrl).toBe(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`);
    const metadata = (await (await fetch(metadataUrl)).json()) as { [key: string]: unknown };
    expect(metadata).toMatchObject({ resource: url, authorization_servers: [as.issuer] });
    expect(metadata.scopes_supported).toEqual(["mcp:read"]);
    // A forged token is refused the same way.
    const forged = await post("Bearer e30.e30.AAAA");
    expect(forged.status).toBe(401);
  });

  it("serves a client that got its token from the issuer the metadata names, its scopes deciding what it sees", async () => {
    await gateway({ requiredScopes: ["mcp:read"] });
    const reader = machineClient(["mcp:read"]);
    await reader.connect();
    expect((await reader.listTools()).tools.map((t) => t.name).filter((n) => n.endsWith("__echo"))).toEqual([
      "notes__echo",
    ]);
    const searcher = machineClient(["mcp:read", "search"]);
    await searcher.connect();
    const names = (await searcher.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["notes__echo", "search__echo"]));
    const result = await searcher.callTool("search__echo", { text: "behind the front" });
    expect(result.content).toEqual([{ type: "text", text: "search: behind the front" }]);
  });

  it("refuses a token without a required scope (403 insufficient_scope), and takes one that has them", async () => {
    await gateway({ requiredScopes: ["mcp:read", "search"] });
    const narrow = await post(`Bearer ${await tokenWith("mcp:read")}`);
    expect(narrow.status).toBe(403);
    expect(narrow.headers.get("www-authenticate")).toMatch(/error="insufficient_scope"/);
    const wide = await post(`Bearer ${await tokenWith("mcp:read search")}`);
    expect(wide.status).toBe(200);
  });
});
