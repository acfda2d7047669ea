// `mcpkit inspect --login` driven in headless Chromium: an mcpkit server behind requireBearer, jwtVerifier and its
// Protected Resource Metadata, and a real authorization server (oidc-provider, as in the auth tests). The page
// shows the authorization URL as a link; the user follows it in a second tab through the authorization
// server's login and consent to the CLI's loopback redirect; the page then shows the server and calls a tool.
// No token reaches the page: not its storage, not its cookies, not what the inspector's API and events give it.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerToken, jwtVerifier, protectedResourceMetadata, requireBearer } from "../../src/auth/index.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { toNodeHandler } from "../../src/node/adapter.js";
import { ServerBuilder } from "../../src/server/index.js";
import { chromiumPath, type Headless, launchChromium } from "../support/chromium.js";
import { type AuthServer, startAuthServer } from "../support/oidc-provider.js";
import { op, type RunningInspector, startInspector } from "./inspector.js";

/** Every string in the credentials file stored under a key naming a token (access, refresh). */
function secretsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) secretsIn(item, out);
  else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (/token/i.test(key) && !/type/i.test(key) && typeof item === "string" && item.length >= 16) {
        out.push(item);
      }
      secretsIn(item, out);
    }
  }
  return out;
}

describe.skipIf(chromiumPath === undefined)("mcpkit inspect --login in Chromium", () => {
  let context: BrowserContext;
  let browser: Headless | undefined;
  let as: AuthServer;
  let mcp: NodeServer;
  let resource: string;
  let dir: string;
  let inspector: RunningInspector | undefined;

  beforeAll(async () => {
    browser = await launchChromium("mcpkit-inspect-login-", { width: 1180, height: 720 });
    context = browser.context;
    dir = await mkdtemp(join(tmpdir(), "mcpkit-inspect-login-"));
    mcp = createServer();
    await new Promise<void>((resolve) => mcp.listen(0, "127.0.0.1", resolve));
    resource = `http://127.0.0.1:${(mcp.address() as AddressInfo).port}/mcp`;
    as = await startAuthServer({ resource, scopes: ["mcp:read"] });
    const server = new ServerBuilder({
      serverInfo: { name: "protected", version: "1.0.0" },
      logger: { warn: () => {}, error: () => {} },
    })
      .tool({ name: "whoami", inputSchema: { type: "object" } }, (_args, ctx) => {
        const token = bearerToken(ctx.identity);
        return { content: [{ type: "text", text: `${token?.subject} via ${token?.clientId}` }] };
      })
      .build();
    const prm = protectedResourceMetadata({
      resource,
      authorizationServers: [as.issuer],
      scopesSupported: ["mcp:read"],
    });
    const handler = createHttpHandler(server, {
      authenticate: requireBearer({
        resource,
        verify: jwtVerifier({ issuer: as.issuer }),
        requiredScopes: ["mcp:read"],
      }),
    });
    const listener = toNodeHandler((request) => prm.handle(request) ?? handler(request));
    mcp.on("request", (req, res) => void listener(req, res));
  }, 60_000);

  afterAll(async () => {
    if (inspector !== undefined) expect(await inspector.stop()).toBe(0);
    await browser?.close();
    mcp?.closeAllConnections();
    await new Promise<void>((resolve) => (mcp ? mcp.close(() => resolve()) : resolve()));
    await as?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("logs in through the link on the page, then calls a tool; no token reaches the page", async () => {
    const credentials = join(dir, "credentials.json");
    inspector = await startInspector(["--login", "--credentials", credentials, resource]);
    const running = inspector;
    const fromInspector: string[] = [];
    context.on("response", async (response) => {
      if (new URL(response.url()).origin !== running.origin) return;
      const cookie = (await response.allHeaders())["set-cookie"];
      if (cookie !== undefined) fromInspector.push(`${response.url()}: ${cookie}`);
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(inspector.url);

    // The authorization URL, as a link to the authorization server (loopback http here), opening a new tab.
    const link = page.locator("#server-info .auth a");
    await link.waitFor({ timeout: 20_000 });
    const href = (await link.getAttribute("href")) ?? "";
    expect(href.startsWith(`${as.issuer}/`)).toBe(true);
    expect(new URL(href).searchParams.get("code_challenge_method")).toBe("S256");
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    expect(await page.locator("#conn-state").textContent()).not.toBe("connected");

    // The user clicks it: the authorization server logs them in, consents, and redirects to the CLI's listener.
    const [tab] = await Promise.all([context.waitForEvent("page"), link.click()]);
    await tab.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/.*[?&]code=/, { timeout: 20_000 });
    await page.locator("#conn-state", { hasText: /^connected$/ }).waitFor({ timeout: 20_000 });
    expect(await page.locator("#server-info").textContent()).toContain("protected 1.0.0");
    expect(as.grants.authorization_code).toBe(1);

    await page.getByLabel("filter tools").fill("whoami");
    await page.locator('[data-tool="whoami"]').click();
    await page.getByRole("button", { name: "Call", exact: true }).click();
    await expect.poll(() => page.locator(".call-out .text").first().textContent()).toMatch(/^alice via \S+$/);

    // The tokens are in the credentials file only.
    const secrets = secretsIn(JSON.parse(await readFile(credentials, "utf8")));
    expect(secrets.length).toBeGreaterThanOrEqual(1);
    const leaks = (where: string, text: string) => secrets.filter((s) => text.includes(s)).map(() => where);
    const storage = await page.evaluate(async () => {
      const g = globalThis as unknown as {
        localStorage: { length: number };
        sessionStorage: { length: number };
        indexedDB: { databases(): Promise<unknown[]> };
      };
      return {
        local: g.localStorage.length,
        session: g.sessionStorage.length,
        databases: (await g.indexedDB.databases()).length,
      };
    });
    expect(storage).toEqual({ local: 0, session: 0, databases: 0 });
    expect(fromInspector).toEqual([]);
    const cookies = JSON.stringify(await context.cookies(inspector.origin));
    const html = await page.content();
    const state = (await op(inspector, "state")).body;
    const events = await readEvents(inspector, "whoami");
    expect([
      ...leaks("cookies", cookies),
      ...leaks("html", html),
      ...leaks("state", state),
      ...leaks("events", events),
      ...leaks("stderr", inspector.stderr()),
    ]).toEqual([]);
    // The event stream did carry the session: the check above looked at the real thing.
    expect(events).toContain('"state":"connected"');
    expect(errors).toEqual([]);
    await tab.close();
  }, 90_000);
});

/** The inspector's event stream (its backlog), read until `until` shows up in it. */
async function readEvents(inspector: RunningInspector, until: string): Promise<string> {
  const abort = new AbortController();
  const response = await fetch(`${inspector.origin}/events?token=${inspector.token}`, {
    signal: abort.signal,
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes(until)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  abort.abort();
  return text;
}
