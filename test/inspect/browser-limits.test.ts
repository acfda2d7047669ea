// The inspector page's bounds, crossed in headless Chromium against the built `mcpkit inspect`: lists of 10,000
// resources, templates and prompts (200 pages each) in windows; a wire log past 10,000 messages and the
// notifications past 500; a history past 1,000 entries by import, and imports refused; more than 200 tasks.
// The stores' logic is tested on its own in bounded.test.ts; here the page shows each limit.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_LIST_PAGES } from "../../src/cli/inspect/api.js";
import { MAX_IMPORT_BYTES } from "../../src/cli/inspect/page/history-file.js";
import { MAX_HISTORY, MAX_NOTIFICATIONS, MAX_TASKS, MAX_WIRE } from "../../src/cli/inspect/page/limits.js";
import { chromiumPath, type Headless, launchChromium } from "../support/chromium.js";
import { serveOnLoopback } from "./inspect-server.js";
import { op, type RunningInspector, startInspector } from "./inspector.js";
import { chattyServer, manyListsServer, manySkillsServer } from "./limits-server.js";

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function inspect(args: string[]): Promise<RunningInspector> {
  const inspector = await startInspector(args);
  closers.push(async () => expect(await inspector.stop()).toBe(0));
  return inspector;
}

describe("the lists the inspector takes", () => {
  it(`follows at most ${MAX_LIST_PAGES} pages of a list, then says so`, async () => {
    const site = await serveOnLoopback(manyListsServer(MAX_LIST_PAGES + 1, 1));
    closers.push(() => site.close());
    const inspector = await inspect(["--era", "2025-11-25", site.url]);
    await expect
      .poll(async () => JSON.parse((await op(inspector, "state")).body).result.info !== undefined)
      .toBe(true);
    const answer = await op(inspector, "prompts/list");
    expect(answer.status).toBe(200);
    const { error } = JSON.parse(answer.body) as { error: { message: string; code: unknown } };
    expect(error.message).toMatch(/prompts/);
    expect(JSON.stringify(error)).toMatch(/LIMIT_EXCEEDED|maxPages/);
  }, 120_000);
});

describe.skipIf(chromiumPath === undefined)("the inspector page's bounds in Chromium", () => {
  let context: BrowserContext;
  let browser: Headless | undefined;

  beforeAll(async () => {
    browser = await launchChromium("mcpkit-inspect-limits-", { width: 1180, height: 720 });
    context = browser.context;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  async function open(
    args: string[],
  ): Promise<{ page: Page; inspector: RunningInspector; errors: string[] }> {
    const inspector = await inspect(args);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(inspector.url);
    await page.locator("#conn-state", { hasText: /^connected$/ }).waitFor({ timeout: 20_000 });
    return { page, inspector, errors };
  }

  const tab = (page: Page, name: string) => page.locator(`nav button[data-tab="${name}"]`).click();
  const scrollToEnd = (page: Page, selector: string) =>
    page.locator(selector).evaluate((list) => {
      list.scrollTop = list.scrollHeight;
    });

  it("windows 10,000 resources, templates and prompts, each listed over 200 pages: scrolled, filtered, read", async () => {
    const site = await serveOnLoopback(manyListsServer(10_000, 50));
    closers.push(() => site.close());
    const { page, errors } = await open([site.url]);
    await tab(page, "Resources");
    await page.getByText("10000 of 10000 resources").waitFor({ timeout: 60_000 });
    await page.getByText("10000 of 10000 templates").waitFor({ timeout: 60_000 });
    expect(await page.locator(".res-row").count()).toBeLessThan(60);
    expect(await page.locator(".tpl-row").count()).toBeLessThan(60);
    await scrollToEnd(page, ".res-list");
    await page.locator('[data-resource="test://r/9999"]').waitFor();
    await scrollToEnd(page, ".tpl-list");
    await page.locator('[data-template="test://t9999/{id}"]').waitFor();
    expect(await page.locator(".res-row").count()).toBeLessThan(60);
    // Deep in the list: found by the filter, and read.
    await page.getByLabel("filter resources").fill("resource-7777");
    await page.getByText("1 of 10000 resources").waitFor();
    await page.getByRole("button", { name: "resource-7777", exact: true }).click();
    await expect
      .poll(() => page.locator("#resource-reader pre.text").textContent())
      .toBe("the text of resource 7777");
    await page.getByLabel("filter resources").fill("t9876/");
    await page.getByText("1 of 10000 templates").waitFor();
    await page.getByRole("button", { name: "template-9876", exact: true }).click();
    const form = page.locator("#resource-reader .template");
    await form.locator('input[name="id"]').fill("x");
    await form.getByRole("button", { name: "read" }).click();
    await expect
      .poll(() => page.locator("#resource-reader pre.text").textContent())
      .toBe("template 9876 item x");

    await tab(page, "Prompts");
    await page.getByText("10000 of 10000 prompts").waitFor({ timeout: 60_000 });
    expect(await page.locator(".prompt-row").count()).toBeLessThan(60);
    await scrollToEnd(page, ".prompt-list");
    await page.locator('[data-prompt="prompt-9999"]').waitFor();
    await page.getByLabel("filter prompts").fill("prompt-4321");
    await page.getByText("1 of 10000 prompts").waitFor();
    await page.getByRole("button", { name: "prompt-4321", exact: true }).click();
    await page.getByRole("button", { name: "Get prompt" }).click();
    await expect.poll(() => page.locator(".message").first().textContent()).toBe("userprompt 4321 rendered");
    expect(errors).toEqual([]);
  }, 120_000);

  it("windows a catalogue of 2,000 skills: scrolled to the end, one read and verified", async () => {
    const site = await serveOnLoopback(await manySkillsServer(2_000));
    closers.push(() => site.close());
    const { page, errors } = await open([site.url]);
    await tab(page, "Skills");
    await page.getByText("2000 skills").waitFor({ timeout: 60_000 });
    expect(await page.locator(".skill-row").count()).toBeLessThan(60);
    const first = await page.locator(".skill-row button").allTextContents();
    await scrollToEnd(page, ".skill-list");
    // The catalogue's order is the server's: the last row is whichever skill it lists last.
    const last = page.locator(".skill-row button").last();
    await expect.poll(async () => first.includes((await last.textContent()) ?? "")).toBe(false);
    expect(await last.textContent()).toMatch(/^skill-\d+$/);
    await last.click();
    await expect.poll(() => page.locator(".skill-file .badge").first().textContent()).toBe("digest verified");
    expect(await page.locator(".skill-row").count()).toBeLessThan(60);
    expect(errors).toEqual([]);
  }, 120_000);

  describe("a server that floods the page", () => {
    let page: Page;
    let inspector: RunningInspector;
    let errors: string[];

    beforeAll(async () => {
      const site = await serveOnLoopback(chattyServer());
      closers.push(() => site.close());
      ({ page, inspector, errors } = await open(["--era", "2025-11-25", site.url]));
    }, 60_000);

    it(`keeps the newest ${MAX_WIRE} wire messages and ${MAX_NOTIFICATIONS} notifications, and says how many went`, async () => {
      const count = MAX_WIRE + 100;
      await page.getByLabel("filter tools").fill("chatter");
      await page.locator('[data-tool="chatter"]').click();
      await page.locator('input[name="count"]').fill(String(count));
      await page.getByRole("button", { name: "Call", exact: true }).click();
      await expect
        .poll(() => page.locator(".call-out .text").first().textContent(), { timeout: 120_000 })
        .toBe(`sent ${count}`);
      await tab(page, "Wire");
      // The call's answer is the last message of the run: once the log shows it, every message has come.
      await page.getByLabel("filter by method").fill("result of tools/call");
      await page.locator(".wire-row", { hasText: "result of tools/call" }).waitFor({ timeout: 60_000 });
      const wireCount = (await page.locator("#wire-count").textContent()) ?? "";
      const [, kept, dropped] = /^(\d+) messages \((\d+) older dropped\)$/.exec(wireCount) ?? [];
      expect(Number(kept)).toBe(MAX_WIRE);
      expect(Number(dropped)).toBeGreaterThan(100);
      await page.getByLabel("filter by method").fill("");
      expect(await page.locator(".wire-row").count()).toBeLessThan(80);
      await tab(page, "Notifications");
      expect(await page.locator(".notifications li").count()).toBe(MAX_NOTIFICATIONS);
      const noticeCount = (await page.locator("#notifications-count").textContent()) ?? "";
      expect(Number(/(\d+) older dropped$/.exec(noticeCount)?.[1])).toBeGreaterThanOrEqual(
        count - MAX_NOTIFICATIONS,
      );
      expect(await page.locator(".notifications li").first().textContent()).toContain(`line ${count - 1}`);
      expect(errors).toEqual([]);
    }, 180_000);

    it(`keeps the newest ${MAX_HISTORY} history entries of an import, and refuses a malformed or huge file`, async () => {
      await tab(page, "History");
      const before = await page.locator(".history li").count();
      const entries = Array.from({ length: MAX_HISTORY + 500 }, (_, i) => ({
        time: "2026-01-01T00:00:00.000Z",
        op: "prompts/get",
        params: { name: `p${i}` },
        ok: true,
        summary: `entry ${i}`,
      }));
      const file = (name: string, text: string | Buffer) => ({
        name,
        mimeType: "application/json",
        buffer: Buffer.from(text),
      });
      const importer = page.getByLabel("import history");
      await importer.setInputFiles(
        file("long.json", JSON.stringify({ format: "mcpkit-inspect-history", version: 1, entries })),
      );
      await page
        .getByText(`imported ${MAX_HISTORY} entries (500 older dropped: the history keeps 1,000)`)
        .waitFor();
      expect(await page.locator(".history li").count()).toBe(MAX_HISTORY);
      expect(await page.locator("#history-count").textContent()).toBe(
        `${MAX_HISTORY} entries (the newest 1,000 kept: ${500 + before} older dropped)`,
      );
      expect(await page.locator(".history li").first().textContent()).toContain(`entry ${MAX_HISTORY + 499}`);

      await importer.setInputFiles(file("bad.json", "{ not json"));
      await expect
        .poll(() => page.locator(".error").last().textContent())
        .toMatch(/^cannot import bad\.json: not JSON: /);
      await importer.setInputFiles(file("other.json", JSON.stringify({ entries: [] })));
      await expect
        .poll(() => page.locator(".error").last().textContent())
        .toBe(
          'cannot import other.json: not an mcpkit inspect history (its "format" is not "mcpkit-inspect-history")',
        );
      await importer.setInputFiles(file("huge.json", Buffer.alloc(MAX_IMPORT_BYTES + 1, 0x20)));
      await expect
        .poll(() => page.locator(".error").last().textContent())
        .toBe(
          "cannot import huge.json: the file has 16,000,001 bytes: a history file has at most 16,000,000",
        );
      expect(await page.locator(".history li").count()).toBe(MAX_HISTORY);
      expect(errors).toEqual([]);
    }, 120_000);

    it(`shows the newest ${MAX_TASKS} tasks and says how many went; late news of a dropped task is ignored`, async () => {
      const extra = 5;
      for (let i = 0; i < MAX_TASKS + extra; i++) {
        const answer = await op(inspector, "tools/call", {
          callId: `task-${i}`,
          name: "quick-job",
          arguments: {},
          task: true,
        });
        expect(JSON.parse(answer.body).result.task.taskId).toEqual(expect.any(String));
      }
      await tab(page, "Tasks");
      await expect
        .poll(() => page.locator("#tasks-count").textContent(), { timeout: 60_000 })
        .toBe(`${MAX_TASKS} tasks shown (the newest ${MAX_TASKS}: ${extra} older dropped)`);
      // Every task kept settles; the dropped ones' last events do not bring them back.
      await expect
        .poll(() => page.locator('[data-task][data-settled="true"]').count(), { timeout: 60_000 })
        .toBe(MAX_TASKS);
      expect(await page.locator("[data-task]").count()).toBe(MAX_TASKS);
      expect(await page.locator("#tasks-count").textContent()).toContain(`${extra} older dropped`);
      expect(errors).toEqual([]);
    }, 120_000);
  });
});
