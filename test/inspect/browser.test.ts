// `mcpkit inspect` (the built command) driven in headless Chromium (the Debian package; playwright-core only
// drives it): an mcpkit server over HTTP in both eras, @modelcontextprotocol/server-everything over stdio, and a
// hostile server. The screenshots of docs/inspect.md are taken here (written over docs/ only with
// MCPKIT_UPDATE_SCREENSHOTS=1: test/support/screenshots.ts).
import { readFile } from "node:fs/promises";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, type Headless, launchChromium } from "../support/chromium.js";
import { screenshot } from "../support/screenshots.js";
import { repoRoot } from "../support/wire-schema.js";
import {
  hostileServer,
  inspectServer,
  manyToolsServer,
  serveOnLoopback,
  slowSignals,
} from "./inspect-server.js";
import { type RunningInspector, startInspector } from "./inspector.js";

const everything = join(repoRoot, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

describe.skipIf(chromiumPath === undefined)("mcpkit inspect in Chromium", () => {
  let context: BrowserContext;
  let browser: Headless | undefined;
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    browser = await launchChromium("mcpkit-inspect-", { width: 1180, height: 720 });
    context = browser.context;
  }, 60_000);

  afterAll(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await browser?.close();
  });

  /** Starts the inspector on `args`, opens its page and waits for the connection. */
  async function open(
    args: string[],
  ): Promise<{ page: Page; inspector: RunningInspector; errors: string[] }> {
    const inspector = await startInspector(args);
    closers.push(async () => expect(await inspector.stop()).toBe(0));
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("dialog", (dialog) => {
      errors.push(`a browser dialog opened: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.goto(inspector.url);
    await page.locator("#conn-state", { hasText: /^connected$/ }).waitFor({ timeout: 20_000 });
    return { page, inspector, errors };
  }

  const tab = (page: Page, name: string) => page.locator(`nav button[data-tab="${name}"]`).click();
  const selectTool = async (page: Page, name: string) => {
    await tab(page, "Tools");
    await page.getByLabel("filter tools").fill(name);
    await page.locator(`[data-tool="${name}"]`).click();
    await page.locator(".detail h2", { hasText: name }).waitFor();
  };

  for (const era of ["2025-11-25", "2026-07-28"] as const) {
    describe(`an mcpkit server over HTTP in ${era}`, () => {
      let page: Page;
      let errors: string[];

      beforeAll(async () => {
        const site = await serveOnLoopback(await inspectServer());
        closers.push(() => site.close());
        ({ page, errors } = await open(["--era", era, site.url]));
      }, 60_000);

      it("connects: the era, capabilities, extensions, instructions", async () => {
        expect(await page.locator("#era").textContent()).toBe(`${era} (protocol ${era})`);
        const info = (await page.locator("#server-info").textContent()) ?? "";
        expect(info).toContain("inspect-fixture 1.2.3");
        expect(info).toContain("tools");
        expect(info).toContain("io.modelcontextprotocol/skills");
        expect(info).toContain("A server for the inspector tests.");
      });

      it("calls a tool through its form: bad input is refused inline, good input gets a result checked against its output schema", async () => {
        await selectTool(page, "add");
        const call = page.getByRole("button", { name: "Call", exact: true });
        await page.locator('input[name="a"]').fill("two");
        await page.locator('input[name="b"]').fill("-1");
        expect(await page.locator(".field-error").allTextContents()).toEqual([
          '"two" is not a number',
          expect.stringMatching(/0/),
          "",
        ]);
        expect(await call.isDisabled()).toBe(true);
        await page.locator('input[name="a"]').fill("2");
        await page.locator('input[name="b"]').fill("");
        await expect.poll(() => page.locator(".field-error").first().textContent()).toBe("");
        expect(await page.locator(".schema-form").textContent()).toMatch(/b/);
        expect(await call.isDisabled()).toBe(true);
        await page.locator('input[name="b"]').fill("3");
        expect(await call.isDisabled()).toBe(false);
        await call.click();
        await page.locator(".call-out .result").waitFor();
        expect(await page.locator(".call-out .text").first().textContent()).toBe("5");
        expect(await page.locator(".call-out").textContent()).toContain("matches the output schema");
        if (era === "2026-07-28") await screenshot(page, "inspect-tools.png");
        // Raw JSON mode sends what is written, and shows the server's refusal.
        await page.getByRole("button", { name: "raw JSON" }).click();
        await page.getByLabel("arguments as JSON").fill('{"a": "x", "b": 1}');
        expect(await page.locator(".schema-form").textContent()).toContain("sent anyway");
        await call.click();
        await expect.poll(() => page.locator(".call-out").textContent()).toMatch(/error|invalid|-32602/i);
      });

      it("shows each kind of content: image, audio, a resource link to read, an embedded resource", async () => {
        await selectTool(page, "media");
        await page.getByRole("button", { name: "Call", exact: true }).click();
        const out = page.locator(".call-out");
        await out.locator(".result").waitFor();
        await expect
          .poll(() =>
            out.locator("img").evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
          )
          .toBe(1);
        expect(await out.locator("audio").getAttribute("src")).toMatch(/^data:audio\/wav;base64,/);
        expect(await out.locator(".embedded").textContent()).toContain("embedded text");
        await out.locator(".link").getByRole("button", { name: "read" }).click();
        expect(await page.locator('nav button[aria-selected="true"]').textContent()).toBe("Resources");
        await expect.poll(() => page.locator("#resource-reader pre.text").textContent()).toBe("a note");
      });

      it("shows progress and cancels the call", async () => {
        const before = slowSignals.length;
        await selectTool(page, "slow");
        await page.getByRole("button", { name: "Call", exact: true }).click();
        await expect.poll(() => page.locator(".running .hint").textContent()).toBe("1/3 step 1");
        expect(
          await page
            .locator(".running progress")
            .evaluate((p) => [
              (p as unknown as { value: number }).value,
              (p as unknown as { max: number }).max,
            ]),
        ).toEqual([1, 3]);
        await page.getByRole("button", { name: "Cancel" }).click();
        await page.locator(".call-out .error").waitFor();
        await expect.poll(() => slowSignals[before]?.aborted).toBe(true);
      });

      it("answers an elicitation in a dialog", async () => {
        await selectTool(page, "ask");
        await page.getByRole("button", { name: "Call", exact: true }).click();
        const dialog = page.locator('.dialog[aria-label="elicitation"]');
        await dialog.waitFor();
        expect(await dialog.locator(".dialog-message").textContent()).toBe("Who are you?");
        const accept = dialog.getByRole("button", { name: "Accept" });
        expect(await accept.isDisabled()).toBe(true);
        await dialog.locator('input[name="name"]').fill("Ada");
        if (era === "2025-11-25") await screenshot(page, "inspect-elicitation.png");
        await accept.click();
        await expect.poll(() => page.locator(".call-out .text").first().textContent()).toBe("hello Ada");
        expect(await page.locator(".dialog").count()).toBe(0);
      });

      it("renders an App view beside the result, sandboxed, fed through the Apps host", async () => {
        await selectTool(page, "echo-app");
        await page.locator('input[name="word"]').fill("hi");
        await page.getByRole("button", { name: "Call", exact: true }).click();
        const view = page.frameLocator("iframe.app-view").locator("#events");
        await expect
          .poll(() => view.locator("li").allTextContents())
          .toEqual(["connected to mcpkit-inspect", 'input {"word":"hi"}', "result echoed hi"]);
        const iframe = page.locator("iframe.app-view");
        expect(await iframe.getAttribute("sandbox")).toBe("allow-scripts allow-forms");
        expect(await iframe.getAttribute("src")).toMatch(/^\/view\/[A-Za-z0-9_-]{32}$/);
        if (era === "2026-07-28") await screenshot(page, "inspect-app.png");
        // A second call tears the first view down: one view on the page, fed the new call.
        await page.locator('input[name="word"]').fill("again");
        await page.getByRole("button", { name: "Call", exact: true }).click();
        await expect
          .poll(() => page.frameLocator("iframe.app-view").locator("#events li").allTextContents())
          .toEqual(["connected to mcpkit-inspect", 'input {"word":"again"}', "result echoed again"]);
        expect(await page.locator("iframe").count()).toBe(1);
        await page.getByRole("button", { name: "close view" }).click();
        await expect.poll(() => page.locator("iframe").count()).toBe(0);
      });

      it("keeps an App view in its sandbox: no inspector API, no page, no token, no cookie", async () => {
        await selectTool(page, "probe-app");
        await page.getByRole("button", { name: "Call", exact: true }).click();
        const view = page.frameLocator("iframe.app-view").locator("#events");
        await expect.poll(() => view.locator("li").count()).toBe(4);
        expect(await view.locator("li").allTextContents()).toEqual([
          "api blocked",
          "page blocked",
          "no token in its URL",
          "no cookie",
        ]);
      });

      it("answers a sampling request with the draft reply, edited", async () => {
        await selectTool(page, "sample");
        await page.getByRole("button", { name: "Call", exact: true }).click();
        const dialog = page.locator('.dialog[aria-label="sampling"]');
        await dialog.waitFor();
        expect(await dialog.textContent()).toContain("Name a colour");
        expect(await dialog.textContent()).toContain("Answer in one word.");
        await dialog.getByLabel("reply text").fill("teal");
        await dialog.getByRole("button", { name: "Approve" }).click();
        await expect
          .poll(() => page.locator(".call-out .text").first().textContent())
          .toBe("the model (mcpkit-inspect) said teal");
      });

      it("answers roots/list with the roots set in the Roots tab", async () => {
        await tab(page, "Roots");
        await page.getByLabel("roots").fill("file:///work/a\nfile:///work/b");
        await page.getByRole("button", { name: "Set roots" }).click();
        await page.getByText("2 roots offered").waitFor();
        await selectTool(page, "roots");
        await page.getByRole("button", { name: "Call", exact: true }).click();
        await expect
          .poll(() => page.locator(".call-out .text").first().textContent())
          .toBe("roots: file:///work/a, file:///work/b");
      });

      it("runs a task to completion", async () => {
        await selectTool(page, "job");
        await page.locator("#as-task").check();
        await page.getByRole("button", { name: "Call", exact: true }).click();
        await tab(page, "Tasks");
        const task = page.locator("[data-task]").first();
        await expect.poll(() => task.locator(".status").textContent()).toBe("completed");
        expect(await task.locator("pre.text").textContent()).toBe("job done");
      });

      it("answers the input a running task asks for, and sees it through", async () => {
        await selectTool(page, "asking-job");
        expect(await page.locator("#as-task").isChecked()).toBe(true);
        await page.getByRole("button", { name: "Call", exact: true }).click();
        const dialog = page.locator('.dialog[aria-label="elicitation"]');
        await dialog.waitFor();
        expect(await dialog.locator(".dialog-message").textContent()).toBe("Go on?");
        await dialog.getByRole("button", { name: "Accept" }).click();
        await tab(page, "Tasks");
        const task = page.locator("[data-task]", { hasText: "asking-job" });
        await expect.poll(() => task.locator(".status").textContent()).toBe("completed");
        expect(await task.locator("pre.text").textContent()).toBe("went on");
      });

      it("cancels a running task from the Tasks tab", async () => {
        await selectTool(page, "endless-job");
        await page.getByRole("button", { name: "Call", exact: true }).click();
        await tab(page, "Tasks");
        const task = page.locator("[data-task]", { hasText: "endless-job" });
        await expect.poll(() => task.locator(".status").textContent()).toBe("working: waiting for ever");
        await task.getByRole("button", { name: "cancel" }).click();
        await expect.poll(() => task.locator(".status").textContent()).toMatch(/^cancelled/);
        // The poll that was following it ends on the same word, not an error.
        await page.locator('[data-task][data-settled="true"]', { hasText: "endless-job" }).waitFor();
        expect(await task.locator(".status").textContent()).toMatch(/^cancelled/);
      });

      it("reads a skill, each file with its digest verified", async () => {
        await tab(page, "Skills");
        await page.getByRole("button", { name: "greeting", exact: true }).click();
        const files = page.locator(".skill-file");
        await expect.poll(() => files.count()).toBe(2);
        expect(await files.locator(".badge").allTextContents()).toEqual([
          "digest verified",
          "digest verified",
        ]);
        expect(await files.first().textContent()).toContain("# Greeting");
      });

      it("renders a prompt, its arguments completed by the server", async () => {
        await tab(page, "Prompts");
        await page.getByRole("button", { name: "greet", exact: true }).click();
        await page.locator('input[name="name"]').fill("Ada");
        await page.locator('input[name="tone"]').fill("f");
        await expect
          .poll(() =>
            page.locator("datalist option").evaluateAll((o) => o.map((x) => x.getAttribute("value"))),
          )
          .toEqual(["formally"]);
        await page.locator('input[name="tone"]').fill("formally");
        await page.getByRole("button", { name: "Get prompt" }).click();
        await expect
          .poll(() => page.locator(".message").first().textContent())
          .toBe("userGreet Ada formally");
      });

      it("reads a resource template, its variable completed by the server", async () => {
        await tab(page, "Resources");
        await page
          .locator('[data-template="test://items/{id}"]')
          .getByRole("button", { name: "item" })
          .click();
        const template = page.locator(".template", { hasText: "test://items/{id}" });
        await template.locator('input[name="id"]').fill("g");
        await expect
          .poll(() => template.locator("option").evaluateAll((o) => o.map((x) => x.getAttribute("value"))))
          .toEqual(["gamma"]);
        await template.locator('input[name="id"]').fill("gamma");
        await template.getByRole("button", { name: "read" }).click();
        await expect.poll(() => page.locator("#resource-reader pre.text").textContent()).toBe("item gamma");
      });

      it("subscribes to a resource and sees its update", async () => {
        await tab(page, "Resources");
        await page.getByRole("button", { name: "note", exact: true }).click();
        await expect.poll(() => page.locator("#resource-reader pre.text").textContent()).toMatch(/^a note/);
        await page.locator('[data-subscribe="test://note"]').first().click();
        await expect
          .poll(() => page.locator('[data-subscribe="test://note"]').first().textContent())
          .toBe("unsubscribe");
        const before = (await page.locator("#resource-reader pre.text").textContent()) ?? "";
        await selectTool(page, "touch");
        await page.getByRole("button", { name: "Call", exact: true }).click();
        await tab(page, "Resources");
        await expect
          .poll(() => page.locator(".updates li").first().textContent())
          .toMatch(/updated test:\/\/note$/);
        // The resource on screen was read again.
        await expect.poll(() => page.locator("#resource-reader pre.text").textContent()).not.toBe(before);
        expect(await page.locator("#resource-reader pre.text").textContent()).toMatch(
          /^a note, touched \d+$/,
        );
      });

      it("exports the history as JSON and imports it again, a call loading back into its form", async () => {
        await tab(page, "History");
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          page.getByRole("button", { name: "Export" }).click(),
        ]);
        const file = (await download.path()) as string;
        const doc = JSON.parse(await readFile(file, "utf8"));
        expect(doc.format).toBe("mcpkit-inspect-history");
        expect(
          doc.entries.some(
            (e: { op: string; params: { name?: string } }) =>
              e.op === "tools/call" && e.params.name === "add",
          ),
        ).toBe(true);
        expect(doc.wire.length).toBeGreaterThan(0);
        await page.getByLabel("import history").setInputFiles(file);
        await page.getByText(/^imported \d+ entries$/).waitFor();
        const imported = page
          .locator(".history li", { hasText: "imported" })
          .filter({ hasText: "tools/call" });
        await imported
          .filter({ hasText: '"a":2' })
          .first()
          .getByRole("button", { name: "load into the form" })
          .click();
        await page.locator(".detail h2", { hasText: "add" }).waitFor();
        expect(await page.locator('input[name="a"]').inputValue()).toBe("2");
        expect(await page.locator('input[name="b"]').inputValue()).toBe("3");
      });

      it("logs the wire both ways, filters it by method, and copies a request as an mcpkit command", async () => {
        await tab(page, "Wire");
        await page.getByLabel("follow").uncheck();
        await page.getByLabel("filter by method").fill("tools/call");
        await page.locator(".wire-list").evaluate((list) => {
          list.scrollTop = 0;
        });
        const rows = page.locator(".wire-row");
        await expect.poll(() => rows.count()).toBeGreaterThan(0);
        await page.locator(".wire-row.out", { hasText: "tools/call" }).first().click();
        const command = (await page.locator(".wire-detail code.cli").textContent()) ?? "";
        console.log(command);
        expect(command).toMatch(
          new RegExp(
            `^mcpkit --era ${era} http://127\\.0\\.0\\.1:\\d+/mcp call add --args '\\{"a":2,"b":3\\}'$`,
          ),
        );
        await page.getByLabel("filter by method").fill("");
        expect(await page.locator(".wire-row.in").count()).toBeGreaterThan(0);
        await page.evaluate(() =>
          (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0),
        );
        if (era === "2025-11-25")
          await screenshot(page, "inspect-wire.png", { clip: { x: 0, y: 0, width: 1180, height: 480 } });
        expect(errors).toEqual([]);
      });
    });
  }

  describe("@modelcontextprotocol/server-everything over stdio", () => {
    let page: Page;
    let errors: string[];

    beforeAll(async () => {
      ({ page, errors } = await open(["--", process.execPath, everything, "stdio"]));
    }, 60_000);

    it("connects, calls get-sum through its form, and shows an image result", async () => {
      expect(await page.locator("#server-info").textContent()).toContain("mcp-servers/everything");
      // Era auto: 2026-07-28 asked first, 2025-11-25 agreed with this server.
      expect(await page.getByLabel("era", { exact: true }).inputValue()).toBe("auto");
      expect(await page.locator("#era").textContent()).toBe("2025-11-25 (protocol 2025-11-25)");
      await selectTool(page, "get-sum");
      await page.locator('input[name="a"]').fill("1");
      await page.locator('input[name="b"]').fill("2.5");
      await page.getByRole("button", { name: "Call", exact: true }).click();
      await expect.poll(() => page.locator(".call-out .text").first().textContent()).toContain("3.5");
      await selectTool(page, "get-tiny-image");
      await page.getByRole("button", { name: "Call", exact: true }).click();
      const image = page.locator(".call-out img");
      await image.waitFor();
      expect(
        await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0),
      ).toBe(true);
    });

    it("answers its elicitation in a dialog: defaults filled in, titled and multiple choices", async () => {
      await selectTool(page, "trigger-elicitation-request");
      await page.getByRole("button", { name: "Call", exact: true }).click();
      const dialog = page.locator('.dialog[aria-label="elicitation"]');
      await dialog.waitFor();
      const accept = dialog.getByRole("button", { name: "Accept" });
      expect(await accept.isDisabled()).toBe(true); // name is required
      expect(await dialog.locator('input[name="integer"]').inputValue()).toBe("42");
      const fish = dialog.locator('select[name="titledMultipleSelectEnum"]');
      expect(await fish.locator("option:checked").allTextContents()).toEqual(["Tuna (fish-1)"]);
      expect(await dialog.locator('select[name="titledSingleSelectEnum"] option:checked').textContent()).toBe(
        "Superman (hero-1)",
      );
      await dialog.locator('input[name="integer"]').fill("500");
      expect((await dialog.locator(".field-error").allTextContents()).join("|")).toMatch(/100/);
      expect(await accept.isDisabled()).toBe(true);
      await dialog.locator('input[name="integer"]').fill("7");
      await dialog.locator('input[name="name"]').fill("Ada");
      await fish.selectOption(["0", "2"]);
      await accept.click();
      await expect.poll(() => page.locator(".call-out .result").textContent()).toContain("- Name: Ada");
      expect(await page.locator(".call-out .result").textContent()).toContain("- Favorite Integer: 7");
    });

    it("shows the progress of a long operation and cancels it", async () => {
      await selectTool(page, "trigger-long-running-operation");
      await page.locator('input[name="duration"]').fill("30");
      await page.locator('input[name="steps"]').fill("30");
      await page.getByRole("button", { name: "Call", exact: true }).click();
      await expect
        .poll(() => page.locator(".running .hint").textContent(), { timeout: 10_000 })
        .toMatch(/^\d+\/30/);
      await page.getByRole("button", { name: "Cancel" }).click();
      await page.locator(".call-out .error").waitFor();
      expect(errors).toEqual([]);
    });
  });

  describe("a server with 10,000 tools", () => {
    it("lists them in a window: a few dozen rows in the page, any tool reached by scrolling or filtering", async () => {
      const site = await serveOnLoopback(manyToolsServer(10_000));
      closers.push(() => site.close());
      const { page, errors } = await open([site.url]);
      await page.getByText("10000 of 10000 tools").waitFor({ timeout: 20_000 });
      const rows = page.locator(".tool-row");
      expect(await rows.count()).toBeLessThan(60);
      await page
        .locator(".vlist")
        .first()
        .evaluate((list) => {
          list.scrollTop = list.scrollHeight;
        });
      await page.locator('[data-tool="tool-9999"]').waitFor();
      expect(await rows.count()).toBeLessThan(60);
      await page.getByLabel("filter tools").fill("tool-4242");
      await page.getByText("1 of 10000 tools").waitFor();
      await page.locator('[data-tool="tool-4242"]').click();
      await page.getByRole("button", { name: "Call", exact: true }).click();
      await expect.poll(() => page.locator(".call-out .text").first().textContent()).toBe("ran 4242");
      expect(errors).toEqual([]);
    }, 60_000);
  });

  describe("a server that fails", () => {
    it("shows how the program ended and the end of its stderr", async () => {
      const inspector = await startInspector([
        "--",
        process.execPath,
        "-e",
        "console.error('boom: no config'); process.exit(3)",
      ]);
      closers.push(async () => expect(await inspector.stop()).toBe(0));
      const page = await context.newPage();
      await page.goto(inspector.url);
      await page.locator("#conn-state", { hasText: /^(failed|closed)$/ }).waitFor({ timeout: 20_000 });
      await expect
        .poll(() => page.locator("#server-info").textContent())
        .toContain("the server process exited with code 3");
      expect(await page.locator("#server-info").textContent()).toContain("boom: no config");
      await page.close();
    }, 30_000);
  });

  describe("refusals", () => {
    it("refuses a page without the token, and a page of another origin that has it", async () => {
      const site = await serveOnLoopback(await inspectServer());
      closers.push(() => site.close());
      const { page, inspector } = await open([site.url]);
      const bare = await context.newPage();
      const refused = await bare.goto(inspector.origin);
      expect(refused?.status()).toBe(403);
      expect(await bare.textContent("body")).toContain("token");
      // Another loopback site, which somehow knows the token: its requests carry its own Origin.
      const other: HttpServer = createServer((_req, res) =>
        res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><p>other</p>"),
      );
      await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
      closers.push(() => {
        other.closeAllConnections();
        return new Promise((resolve) => other.close(resolve));
      });
      await bare.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      const outcome = await bare.evaluate(
        async ({ origin, token }) => {
          try {
            const r = await fetch(`${origin}/api`, {
              method: "POST",
              mode: "no-cors",
              headers: { "content-type": "text/plain" },
              body: JSON.stringify({ op: "state", token }),
            });
            return `opaque ${r.type}`;
          } catch (error) {
            return `failed ${String(error)}`;
          }
        },
        { origin: inspector.origin, token: inspector.token },
      );
      expect(outcome).toMatch(/opaque|failed/);
      const cors = await bare.evaluate(
        async ({ origin, token }) => {
          try {
            const r = await fetch(`${origin}/api`, {
              method: "POST",
              headers: { "content-type": "application/json", "x-mcpkit-token": token },
              body: JSON.stringify({ op: "state" }),
            });
            return `status ${r.status}`;
          } catch (error) {
            return `failed ${String(error)}`;
          }
        },
        { origin: inspector.origin, token: inspector.token },
      );
      expect(cors).toMatch(/^failed/);
      // The inspector itself still works for its own page.
      expect(await page.locator("#conn-state").textContent()).toBe("connected");
      await bare.close();
    });
  });

  describe("a hostile server", () => {
    it("shows its HTML and script payloads as text and runs none of them", async () => {
      const site = await serveOnLoopback(await hostileServer());
      closers.push(() => site.close());
      const { page, errors } = await open([site.url]);
      const pwned = () => page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned);
      expect(await page.locator("#server-info").textContent()).toContain(
        '<img src=x onerror="window.__pwned=1">',
      );
      await page.getByLabel("filter tools").fill("evil");
      const row = page.locator(".tool-row").first();
      expect(await row.locator(".name").textContent()).toContain("evil<img src=x");
      await row.click();
      expect(await page.locator(".desc-full").textContent()).toContain("<script>window.__pwned=5</script>");
      await page.getByRole("button", { name: "Call", exact: true }).click();
      await page.locator(".call-out .result").waitFor();
      expect(await page.locator(".call-out .text").first().textContent()).toContain(
        '<img src=x onerror="window.__pwned=8">',
      );
      expect(await page.locator(".call-out").textContent()).toContain(
        "not shown: not base64 media of that type",
      );
      // The resource link's javascript: URI is text, never a link.
      expect(await page.locator('.call-out a[href^="javascript"]').count()).toBe(0);
      await selectTool(page, "boom");
      await page.getByRole("button", { name: "Call", exact: true }).click();
      await page.locator(".call-out .result, .call-out .error").first().waitFor();
      await tab(page, "Resources");
      await page.getByRole("button", { name: /__pwned=15/ }).click();
      await expect
        .poll(() => page.locator(".detail .text").last().textContent())
        .toContain("window.__pwned=16");
      // A skill file whose bytes are not the ones its digest covers is shown as failing verification.
      await tab(page, "Skills");
      await page.getByRole("button", { name: "tampered", exact: true }).click();
      const files = page.locator(".skill-file");
      await expect.poll(() => files.count()).toBe(2);
      expect(await files.locator(".badge").first().textContent()).toBe("digest verified");
      expect(await files.locator(".badge").last().textContent()).toMatch(
        /^verification failed: skill:\/\/tampered\/phrases\.md has sha256:[0-9a-f]{64}; the entry lists sha256:/,
      );
      // Nothing ran: no flag, no element made from the payloads, no browser dialog.
      expect(await pwned()).toBeUndefined();
      expect(await page.locator('img[src="x"], script:not([src])').count()).toBe(0);
      expect(errors).toEqual([]);
    }, 30_000);
  });
});
