// The apps example in a real browser: examples/apps-host/ (mcpkit's client and AppHost) served with the dice
// server of examples/apps-server.ts, its view built once with the official App class and once with AppView,
// driven through headless Chromium (the Debian package; playwright-core only drives it).
import { readFile } from "node:fs/promises";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { build, type Plugin } from "esbuild";
import { createHttpHandler } from "mcpkit/http";
import { toNodeHandler } from "mcpkit/node";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appsServer } from "../../examples/apps-server.js";
import { chromiumPath, type Headless, launchChromium } from "../support/chromium.js";
import { screenshot } from "../support/screenshots.js";
import { repoRoot } from "../support/wire-schema.js";

const exampleDir = join(repoRoot, "examples/apps-host");

// The example imports mcpkit by its package name: bundle the sources, as the vitest alias does.
const mcpkitSources: Plugin = {
  name: "mcpkit-sources",
  setup(b) {
    b.onResolve({ filter: /^mcpkit(\/[a-z]+)?$/ }, (args) => ({
      path: join(
        repoRoot,
        "src",
        args.path === "mcpkit" ? "" : args.path.slice("mcpkit/".length),
        "index.ts",
      ),
    }));
  },
};

async function bundle(file: string, dir = exampleDir): Promise<string> {
  const out = await build({
    entryPoints: [join(dir, file)],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    plugins: [mcpkitSources],
    logLevel: "silent",
  });
  return out.outputFiles[0]?.text ?? "";
}

const viewPage = (script: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><style>body{font:14px system-ui;margin:8px}</style></head>` +
  `<body><h2>dice view</h2><ol id="events"></ol><script type="module">${script.replaceAll("</script", "<\\/script")}</script></body></html>`;

/** Serves the host page, its bundle and the dice server (whose views show `viewHtml`) on one loopback origin. */
async function hostSite(viewHtml: string, hostJs: string, indexHtml: string) {
  const server = appsServer(viewHtml);
  const handler = createHttpHandler(server);
  const mcp = toNodeHandler(handler);
  const http: HttpServer = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (path === "/mcp") return void mcp(req, res);
    const [type, body] =
      path === "/host.js" ? ["text/javascript", hostJs] : path === "/" ? ["text/html", indexHtml] : [];
    res.writeHead(body === undefined ? 404 : 200, { "content-type": type ?? "text/plain" }).end(body ?? "");
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/`,
    async close() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      await handler.close();
      await server.close();
    },
  };
}

describe.skipIf(chromiumPath === undefined)("the apps example in Chromium", () => {
  let context: BrowserContext;
  let browser: Headless | undefined;
  const bundles: { [name: string]: string } = {};
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    const [host, official, own, worker, index] = await Promise.all([
      bundle("host.ts"),
      bundle("view-official.ts"),
      bundle("view-mcpkit.ts"),
      bundle("worker-view.ts", join(repoRoot, "test/apps/views")),
      readFile(join(exampleDir, "index.html"), "utf8"),
    ]);
    Object.assign(bundles, { host, official, own, worker, index });
    browser = await launchChromium("mcpkit-chromium-", { width: 760, height: 620 });
    context = browser.context;
  }, 60_000);

  afterAll(async () => {
    for (const close of closers.splice(0)) await close();
    await browser?.close();
  });

  for (const [variant, appName] of [
    ["official", "dice-view-official"],
    ["own", "dice-view-mcpkit"],
  ] as const) {
    it(`runs a view built with ${variant === "own" ? "AppView" : "the official App"}: handshake, input, result, a tool call, a refused link, teardown`, async () => {
      const site = await hostSite(
        viewPage(bundles[variant] as string),
        bundles.host as string,
        bundles.index as string,
      );
      closers.push(() => site.close());
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(site.url);
      const log = page.locator("#log");
      // The model sees roll only: reroll is app-only.
      await expect.poll(() => log.textContent()).toContain("connected: roll, reroll");
      expect(await page.locator("#tools button").allTextContents()).toEqual(["call roll", "close view"]);

      await page.getByText("call roll").click();
      const view = page.frameLocator("iframe").locator("#events");
      await expect.poll(() => view.textContent()).toContain("link refused");
      const events = await view.locator("li").allTextContents();
      expect(events[0]).toBe(
        variant === "own" ? "connected to apps-host-page (2026-01-26)" : "connected to apps-host-page",
      );
      expect(events.slice(1, 4)).toEqual(['input {"sides":6}', "result rolled 1", "reroll rolled 2"]);
      expect(events[4]).toMatch(/^link refused: .*Policy violation/);
      const hostLines = await log.locator("li").allTextContents();
      expect(hostLines).toContain(`view ${appName} initialized`);
      expect(hostLines).toContain("result sent: rolled 1");
      expect(hostLines.filter((l) => l.startsWith("open-link") || l.startsWith("problem"))).toEqual([]);
      // The sandbox the host applied: scripts only, under the view's CSP.
      const iframe = page.locator("iframe");
      expect(await iframe.getAttribute("sandbox")).toBe("allow-scripts allow-forms");
      expect(await iframe.getAttribute("srcdoc")).toContain("object-src 'none'");
      if (variant === "own") await screenshot(page, "apps-screenshot.png");

      await page.getByText("close view").click();
      await expect.poll(() => log.textContent()).toContain("view torn down");
      expect(await page.locator("iframe").count()).toBe(0);
      expect(errors).toEqual([]);
      await page.close();
    }, 30_000);
  }

  /** Opens the example host on a site whose views are `viewHtml`, and runs `roll` in it. */
  async function openView(viewHtml: string, query = "") {
    const site = await hostSite(viewHtml, bundles.host as string, bundles.index as string);
    closers.push(() => site.close());
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(site.url + query);
    const log = page.locator("#log");
    await log.locator("li", { hasText: "connected: roll" }).waitFor();
    await page.getByText("call roll").click();
    return { page, log, errors };
  }

  // A view without an SDK: it does the handshake, then answers ui/resource-teardown with -32601 or never.
  const bareView = (teardown: "refuse" | "silent") =>
    `<!doctype html><html><body><ol id="events"></ol><script>
const show = (line) => { const li = document.createElement("li"); li.textContent = line; events.append(li); };
addEventListener("message", (event) => {
  const m = event.data;
  if (m.id === 0 && m.result) { parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/initialized" }, "*"); show("connected"); }
  if (m.method === "ui/resource-teardown") {
    show("teardown asked");
    if (${JSON.stringify(teardown)} === "refuse") parent.postMessage({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } }, "*");
  }
});
parent.postMessage({ jsonrpc: "2.0", id: 0, method: "ui/initialize", params: { protocolVersion: "2026-01-26", appInfo: { name: "bare-view", version: "1.0.0" }, appCapabilities: {} } }, "*");
</script></body></html>`;

  it("tears down and removes a view that answers ui/resource-teardown with -32601", async () => {
    const { page, log, errors } = await openView(bareView("refuse"));
    await log.locator("li", { hasText: "result sent" }).waitFor();
    await page.getByText("close view").click();
    await log.locator("li", { hasText: "view torn down" }).waitFor();
    expect(await log.locator("li").last().textContent()).toBe(
      "view torn down without its answer (Method not found)",
    );
    expect(await page.locator("iframe").count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 30_000);

  it("tears down and removes a view that never answers, after teardownTimeoutMs", async () => {
    // The bound is the only wait: the page sets it small through the option.
    const { page, log, errors } = await openView(bareView("silent"), "?teardownTimeoutMs=200");
    await log.locator("li", { hasText: "result sent" }).waitFor();
    await page.getByText("close view").click();
    await log.locator("li", { hasText: "view torn down" }).waitFor();
    expect(await log.locator("li").last().textContent()).toBe(
      "view torn down without its answer (ui/resource-teardown got no answer within 200 ms)",
    );
    expect(await page.locator("iframe").count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 30_000);

  it("renders a view of several MB that starts a blob: worker and reports through the bridge", async () => {
    // A bundled app's size: its data inlined in the page, its code starting a worker from a blob: URL.
    const numbers = Array.from({ length: 600_000 }, (_, i) => i % 1000);
    const html =
      `<!doctype html><html><head><meta charset="utf-8"></head><body><ol id="events"></ol>` +
      `<script type="application/json" id="data">${JSON.stringify(numbers)}</script>` +
      `<!-- ${"x".repeat(2_000_000)} -->` +
      `<script type="module">${(bundles.worker as string).replaceAll("</script", "<\\/script")}</script></body></html>`;
    expect(html.length).toBeGreaterThan(4_000_000);
    const sum = numbers.reduce((a, b) => a + b, 0);
    const { page, log, errors } = await openView(html);
    await log.locator("li", { hasText: "model context" }).waitFor();
    const view = page.frameLocator("iframe").locator("#events");
    expect(await view.locator("li").allTextContents()).toEqual(["connected", `worker summed ${sum}`]);
    expect(await log.locator("li", { hasText: "model context" }).textContent()).toMatch(
      new RegExp(`^model context \\{"sum":${sum},"bytes":\\d{7}\\}$`),
    );
    expect(await page.locator("iframe").getAttribute("srcdoc")).toContain("worker-src 'self' blob:");
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
