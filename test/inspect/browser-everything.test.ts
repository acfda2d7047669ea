// `mcpkit inspect` in headless Chromium against @modelcontextprotocol/server-everything over stdio: a resource
// subscription and its live update. The installed server sends `notifications/resources/updated` for every URI
// a session subscribed to once its `toggle-subscriber-updates` tool is called (at once, then every 5 s), so the
// test subscribes, calls that tool, and waits for the update on the page: no waiting on the clock.
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, type Headless, launchChromium } from "../support/chromium.js";
import { repoRoot } from "../support/wire-schema.js";
import { type RunningInspector, startInspector } from "./inspector.js";

const everything = join(repoRoot, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const DOCUMENT = "demo://resource/static/document/architecture.md";

describe.skipIf(chromiumPath === undefined)("mcpkit inspect in Chromium: server-everything", () => {
  let context: BrowserContext;
  let browser: Headless | undefined;
  let inspector: RunningInspector | undefined;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium("mcpkit-inspect-everything-", { width: 1180, height: 720 });
    context = browser.context;
    inspector = await startInspector(["--", process.execPath, everything, "stdio"]);
    page = await context.newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(inspector.url);
    await page.locator("#conn-state", { hasText: /^connected$/ }).waitFor({ timeout: 20_000 });
  }, 60_000);

  afterAll(async () => {
    if (inspector !== undefined) expect(await inspector.stop()).toBe(0);
    await browser?.close();
  });

  const tab = (name: string) => page.locator(`nav button[data-tab="${name}"]`).click();

  it("subscribes to a resource and shows the update the server sends, reading it again", async () => {
    await tab("Resources");
    const subscribe = page.locator(`[data-subscribe="${DOCUMENT}"]`).first();
    await subscribe.waitFor({ timeout: 20_000 });
    const reads: string[] = [];
    page.on("request", (request) => {
      const body = request.postData() ?? "";
      if (body.includes('"op":"resources/read"') && body.includes(DOCUMENT)) reads.push(body);
    });
    await page.getByRole("button", { name: "architecture.md", exact: true }).click();
    await page.locator("#resource-reader h2", { hasText: DOCUMENT }).waitFor();
    expect(reads.length).toBe(1);
    await subscribe.click();
    await expect.poll(() => subscribe.textContent()).toBe("unsubscribe");
    expect(await page.locator(".updates li").count()).toBe(0);

    // The tool turns the server's updates on: the first is sent at once for every subscribed URI.
    await page.locator('nav button[data-tab="Tools"]').click();
    await page.getByLabel("filter tools").fill("toggle-subscriber-updates");
    await page.locator('[data-tool="toggle-subscriber-updates"]').click();
    await page.getByRole("button", { name: "Call", exact: true }).click();
    await expect
      .poll(() => page.locator(".call-out .text").first().textContent())
      .toMatch(/^Started simulated resource updated notifications/);
    await tab("Resources");
    await page.locator(".updates li", { hasText: DOCUMENT }).first().waitFor({ timeout: 20_000 });
    expect(await page.locator(".updates li").first().textContent()).toMatch(
      new RegExp(`updated ${DOCUMENT.replace(/[.]/g, "\\.")}$`),
    );
    // The resource on screen was read again after the update.
    await expect.poll(() => reads.length).toBeGreaterThanOrEqual(2);
    expect(errors).toEqual([]);
  }, 60_000);
});
