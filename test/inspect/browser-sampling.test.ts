// `mcpkit inspect` in headless Chromium: a server's sampling request comes up as a dialog that shows the whole
// request and a draft reply, which the user approves as it is, edits (as a form or as JSON), or rejects (the
// spec's -1 "User rejected sampling request"). An mcpkit server over HTTP, in both eras: 2025-11-25 sends a
// real sampling/createMessage request; 2026-07-28 asks in an input_required result and gets the reply with the
// retried call. The sampling screenshot of docs/inspect.md is taken here (test/support/screenshots.ts).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreateMessageResult } from "../../src/protocol/types/index.js";
import { inputRequired, ServerBuilder } from "../../src/server/index.js";
import { chromiumPath, type Headless, launchChromium } from "../support/chromium.js";
import { screenshot } from "../support/screenshots.js";
import { serveOnLoopback } from "./inspect-server.js";
import { startInspector } from "./inspector.js";

const DRAFT_TEXT = "A draft reply from mcpkit inspect.";

/** A server whose tools ask the client's model, and what it saw of the client's answers. */
function samplingServer() {
  const seen = { rounds: 0, rejections: [] as { code: unknown; message: string }[] };
  const said = (reply: CreateMessageResult) => {
    const content = Array.isArray(reply.content) ? reply.content[0] : reply.content;
    const text = content?.type === "text" ? content.text : `(${String(content?.type)})`;
    return {
      content: [
        { type: "text" as const, text: `${reply.model} said ${text} (${reply.role}, ${reply.stopReason})` },
      ],
    };
  };
  const server = new ServerBuilder({
    serverInfo: { name: "sampler", version: "1.0.0" },
    logger: { warn: () => {}, error: () => {} },
    plugins: [
      {
        name: "test/rejections",
        async clientRequest(request, _out, send) {
          try {
            return await send(request);
          } catch (error) {
            const e = error as { code?: unknown; message: string };
            seen.rejections.push({ code: e.code, message: e.message });
            throw error;
          }
        },
      },
    ],
  })
    .tool(
      { name: "sample", description: "Asks for a colour", inputSchema: { type: "object" } },
      (_a, ctx) => {
        const reply = ctx.inputResponses?.reply as CreateMessageResult | undefined;
        if (reply !== undefined) return said(reply);
        seen.rounds++;
        return inputRequired({
          reply: {
            method: "sampling/createMessage",
            params: {
              messages: [
                { role: "user", content: { type: "text", text: "Name a colour" } },
                { role: "assistant", content: { type: "text", text: "Which kind?" } },
                { role: "user", content: { type: "text", text: "<b>a warm one</b>" } },
              ],
              systemPrompt: "Answer in one word.",
              maxTokens: 10,
              temperature: 0.2,
              modelPreferences: { hints: [{ name: "claude-sonnet" }, { name: "gpt" }], speedPriority: 0.7 },
              tools: [{ name: "palette", description: "Lists colours", inputSchema: { type: "object" } }],
            },
          },
        });
      },
    )
    .tool(
      { name: "sample-plain", description: "No preferences", inputSchema: { type: "object" } },
      (_a, ctx) => {
        const reply = ctx.inputResponses?.reply as CreateMessageResult | undefined;
        if (reply !== undefined) return said(reply);
        return inputRequired({
          reply: {
            method: "sampling/createMessage",
            params: { messages: [{ role: "user", content: { type: "text", text: "Hi" } }], maxTokens: 5 },
          },
        });
      },
    )
    .build();
  return { server, seen };
}

describe.skipIf(chromiumPath === undefined)("mcpkit inspect in Chromium: sampling", () => {
  let context: BrowserContext;
  let browser: Headless | undefined;
  let dir: string;
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    browser = await launchChromium("mcpkit-inspect-sampling-", { width: 1180, height: 900 });
    context = browser.context;
    dir = await mkdtemp(join(tmpdir(), "mcpkit-inspect-sampling-"));
  }, 60_000);

  afterAll(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function open(args: string[]): Promise<{ page: Page; errors: string[] }> {
    const inspector = await startInspector(args);
    closers.push(async () => expect(await inspector.stop()).toBe(0));
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(inspector.url);
    await page.locator("#conn-state", { hasText: /^connected$/ }).waitFor({ timeout: 20_000 });
    return { page, errors };
  }

  async function call(page: Page, tool: string) {
    await page.locator('nav button[data-tab="Tools"]').click();
    await page.getByLabel("filter tools").fill(tool);
    await page.locator(`[data-tool="${tool}"]`).click();
    await page.locator(".detail h2", { hasText: tool }).waitFor();
    await page.getByRole("button", { name: "Call", exact: true }).click();
    const dialog = page.locator('.dialog[aria-label="sampling"]');
    await dialog.waitFor();
    return dialog;
  }
  const result = (page: Page) => page.locator(".call-out .text").first().textContent();

  for (const era of ["2025-11-25", "2026-07-28"] as const) {
    describe(`an mcpkit server in ${era}`, () => {
      let page: Page;
      let errors: string[];
      let seen: ReturnType<typeof samplingServer>["seen"];

      beforeAll(async () => {
        const made = samplingServer();
        seen = made.seen;
        const site = await serveOnLoopback(made.server);
        closers.push(() => site.close());
        ({ page, errors } = await open(["--era", era, site.url]));
      }, 60_000);

      it("shows the whole request, and approves the draft reply as it is", async () => {
        const dialog = await call(page, "sample");
        const request = dialog.locator(".sampling-request");
        expect(await request.locator(".message").allTextContents()).toEqual([
          "userName a colour",
          "assistantWhich kind?",
          "user<b>a warm one</b>",
        ]);
        // The server's text is text: no element made from it.
        expect(await request.locator("b").count()).toBe(0);
        const text = (await request.textContent()) ?? "";
        expect(text).toContain("Answer in one word.");
        expect(text).toContain("maxTokens 10");
        expect(text).toContain("temperature 0.2");
        expect(text).toContain("model hints claude-sonnet, gpt");
        expect(text).toContain("speedPriority 0.7");
        expect(await request.locator(".sampling-tool").allTextContents()).toEqual(["palette Lists colours"]);
        // The draft: an assistant reply from the first hinted model, ending its turn.
        expect(await dialog.getByLabel("role").inputValue()).toBe("assistant");
        expect(await dialog.getByLabel("model", { exact: true }).inputValue()).toBe("claude-sonnet");
        expect(await dialog.getByLabel("stop reason").inputValue()).toBe("endTurn");
        expect(await dialog.getByLabel("reply text").inputValue()).toBe(DRAFT_TEXT);
        if (era === "2026-07-28") await screenshot(page, "inspect-sampling.png");
        await dialog.getByRole("button", { name: "Approve" }).click();
        await expect.poll(() => result(page)).toBe(`claude-sonnet said ${DRAFT_TEXT} (assistant, endTurn)`);
        expect(await page.locator(".dialog").count()).toBe(0);
      });

      it("drafts with the model mcpkit-inspect when the request hints none, and sends the edited draft", async () => {
        const dialog = await call(page, "sample-plain");
        expect(await dialog.getByLabel("model", { exact: true }).inputValue()).toBe("mcpkit-inspect");
        await dialog.getByLabel("reply text").fill("teal");
        await dialog.getByLabel("model", { exact: true }).fill("my-model");
        await dialog.getByLabel("stop reason").selectOption("maxTokens");
        await dialog.getByRole("button", { name: "Approve" }).click();
        await expect.poll(() => result(page)).toBe("my-model said teal (assistant, maxTokens)");
      });

      it("edits the draft as JSON: invalid JSON cannot be approved, valid JSON is sent as written", async () => {
        const dialog = await call(page, "sample-plain");
        await dialog.getByLabel("reply text").fill("from the form");
        await dialog.getByRole("button", { name: "Edit as JSON" }).click();
        const json = dialog.getByLabel("reply as JSON");
        expect(JSON.parse(await json.inputValue())).toEqual({
          role: "assistant",
          model: "mcpkit-inspect",
          stopReason: "endTurn",
          content: { type: "text", text: "from the form" },
        });
        const approve = dialog.getByRole("button", { name: "Approve" });
        await json.fill("{ not json");
        expect(await approve.isDisabled()).toBe(true);
        // A reply the form cannot show stays in JSON.
        await json.fill('{"role":"assistant","model":"m","content":[{"type":"text","text":"a"}]}');
        await dialog.getByRole("button", { name: "Edit as form" }).click();
        expect(await dialog.locator(".field-error").textContent()).toMatch(/one text block/);
        expect(await json.isVisible()).toBe(true);
        await json.fill('{"role":"assistant","model":"m2","content":{"type":"text","text":"as JSON"}}');
        expect(await approve.isDisabled()).toBe(false);
        await approve.click();
        await expect.poll(() => result(page)).toBe("m2 said as JSON (assistant, undefined)");
      });

      it("rejects: the server hears -1 User rejected sampling request (2025), the call ends (both)", async () => {
        const rounds = seen.rounds;
        const dialog = await call(page, "sample");
        await dialog.getByRole("button", { name: "Reject" }).click();
        await page.locator(".call-out .error").waitFor();
        expect(await page.locator(".call-out .error").textContent()).toContain(
          "User rejected sampling request",
        );
        expect(await page.locator(".dialog").count()).toBe(0);
        if (era === "2025-11-25") {
          expect(seen.rejections).toEqual([{ code: -1, message: "User rejected sampling request" }]);
        } else {
          // 2026-07-28 has no way to send a refusal in inputResponses: the client does not retry the call.
          expect(seen.rejections).toEqual([]);
        }
        expect(seen.rounds).toBe(rounds + 1);
        expect(errors).toEqual([]);
      });
    });
  }

  describe("--sampling-reply FILE", () => {
    it("drafts the reply from the file: its content, model and stop reason", async () => {
      const made = samplingServer();
      const site = await serveOnLoopback(made.server);
      closers.push(() => site.close());
      const file = join(dir, "reply.json");
      await writeFile(
        file,
        JSON.stringify({
          role: "assistant",
          model: "fixed-model",
          stopReason: "stopSequence",
          content: { type: "text", text: "always crimson" },
        }),
      );
      const { page, errors } = await open(["--sampling-reply", file, site.url]);
      const dialog = await call(page, "sample");
      expect(await dialog.getByLabel("model", { exact: true }).inputValue()).toBe("fixed-model");
      expect(await dialog.getByLabel("reply text").inputValue()).toBe("always crimson");
      await dialog.getByRole("button", { name: "Approve" }).click();
      await expect.poll(() => result(page)).toBe("fixed-model said always crimson (assistant, stopSequence)");
      expect(errors).toEqual([]);
    }, 60_000);
  });
});
