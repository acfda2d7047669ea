import { describe, expect, it } from "vitest";
import { McpkitError } from "../jsonrpc/errors.js";
import type { Tool } from "../protocol/types/tools.js";
import { APP_MIME_TYPE } from "./constants.js";
import { checkOpenLink } from "./link-policy.js";
import { resolveApp } from "./resolve.js";
import { allowAttribute, appSandbox, isCspOrigin } from "./sandbox.js";
import { isAppCallable, isAppOnly, isModelOnly, modelVisibleTools } from "./visibility.js";

const HTML = "<!doctype html><p>view</p>";
const URI = "ui://weather/view";
const tool = (meta: { [key: string]: unknown } = { ui: { resourceUri: URI } }): Tool => ({
  name: "weather",
  inputSchema: { type: "object" },
  _meta: meta,
});

/** A reader answering `contents`, counting its reads. */
function reader(contents: unknown) {
  const reads: string[] = [];
  return {
    reads,
    async readResource(uri: string) {
      reads.push(uri);
      return { contents } as { contents: unknown[] };
    },
  };
}
const good = (extra: object = {}) => [{ uri: URI, mimeType: APP_MIME_TYPE, text: HTML, ...extra }];

async function ruleOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(McpkitError);
    return (error as McpkitError).details?.rule ?? (error as McpkitError).details?.key;
  }
  throw new Error("expected a rejection");
}

describe("resolveApp", () => {
  it("reads the linked URI exactly once and keeps unknown members", async () => {
    const client = reader(
      good({ future: 1, _meta: { ui: { prefersBorder: false, csp: { connectDomains: [] } } } }),
    );
    const app = await resolveApp(client, tool({ ui: { resourceUri: URI }, "ui/resourceUri": URI }));
    expect(client.reads).toEqual([URI]);
    expect(app.html).toBe(HTML);
    expect(app.content.future).toBe(1);
    expect(app.ui).toEqual({ prefersBorder: false, csp: { connectDomains: [] } });
    expect(app.visibility).toEqual(["model", "app"]);
  });

  it("decodes a blob body, and falls back to the listing's _meta.ui", async () => {
    const client = reader([{ uri: URI, mimeType: APP_MIME_TYPE, blob: btoa(HTML) }]);
    const listing = { uri: URI, name: "v", mimeType: APP_MIME_TYPE, _meta: { ui: { domain: "a.example" } } };
    const app = await resolveApp(client, tool({ "ui/resourceUri": URI }), { listing });
    expect(app.html).toBe(HTML);
    expect(app.ui).toEqual({ domain: "a.example" });
  });

  it("names the rule a server broke, after at most one read", async () => {
    const cases: [unknown, Tool, string][] = [
      [good(), tool({}), "no-link"],
      [good(), tool({ ui: { resourceUri: URI }, "ui/resourceUri": "ui://other" }), "meta-conflict"],
      [good(), tool({ ui: { resourceUri: "https://x" } }), "ui-scheme"],
      [good(), tool({ ui: { resourceUri: `ui://${"a".repeat(2044)}` } }), "uri-size"],
      [[], tool(), "single-content"],
      [[...good(), ...good()], tool(), "single-content"],
      [[{ uri: "ui://weather/other", mimeType: APP_MIME_TYPE, text: HTML }], tool(), "uri-mismatch"],
      [[{ uri: URI, mimeType: "text/html", text: HTML }], tool(), "mime-type"],
      [[{ uri: URI, mimeType: APP_MIME_TYPE }], tool(), "body"],
      [[{ uri: URI, mimeType: APP_MIME_TYPE, text: HTML, blob: "AA==" }], tool(), "body"],
      [[{ uri: URI, mimeType: APP_MIME_TYPE, text: "x".repeat(8_000_001) }], tool(), "body-size"],
      [
        good({ _meta: { ui: { csp: { resourceDomains: Array(65).fill("https://a.b") } } } }),
        tool(),
        "csp-entries",
      ],
      [good({ _meta: { ui: { csp: { connectDomains: ["x".repeat(2049)] } } } }), tool(), "csp-entry-size"],
      [good({ _meta: { ui: { permissions: { camera: true } } } }), tool(), "resource-meta"],
    ];
    for (const [contents, t, rule] of cases) {
      const client = reader(contents);
      expect(await ruleOf(resolveApp(client, t)), rule).toBe(rule);
      expect(client.reads.length).toBeLessThanOrEqual(1);
    }
    // At the limits exactly, it resolves.
    const atLimit = `ui://${"a".repeat(2043)}`;
    expect(
      (
        await resolveApp(
          reader([{ uri: atLimit, mimeType: APP_MIME_TYPE, text: "x".repeat(8_000_000) }]),
          tool({ ui: { resourceUri: atLimit } }),
        )
      ).html,
    ).toHaveLength(8_000_000);
    expect(await ruleOf(resolveApp(reader(good()), tool(), { limits: { resourceBytes: 5 } }))).toBe(
      "body-size",
    );
    expect(await ruleOf(resolveApp(reader(good()), tool(), { nope: 1 } as never))).toBe("options.nope");
    const listing = { uri: URI, name: "v", mimeType: "text/html" };
    expect(await ruleOf(resolveApp(reader(good()), tool(), { listing }))).toBe("mime-type");
  });

  it("passes the read's own error through", async () => {
    const failing = {
      readResource: async () => {
        throw new McpkitError("TIMEOUT", "slow");
      },
    };
    await expect(resolveApp(failing, tool())).rejects.toMatchObject({ code: "TIMEOUT" });
  });
});

describe("visibility", () => {
  const t = (visibility?: unknown): Tool =>
    tool(visibility === undefined ? {} : { ui: { resourceUri: URI, visibility } });
  it("hides app-only tools from the model and keeps model-only tools from views, failing closed", () => {
    const tools = [t(), t(["model"]), t(["app"]), t(["model", "app"]), t("app"), t(["bogus"])];
    expect(modelVisibleTools(tools)).toEqual([tools[0], tools[1], tools[3]]);
    expect(tools.map(isAppCallable)).toEqual([true, false, true, true, false, false]);
    expect(tools.map(isAppOnly)).toEqual([false, false, true, false, false, false]);
    expect(tools.map(isModelOnly)).toEqual([false, true, false, false, false, false]);
  });
});

describe("appSandbox", () => {
  it("applies the restrictive default without a csp", () => {
    const box = appSandbox(undefined);
    expect(box.csp).toBe(
      "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; media-src 'self' data:; connect-src 'none'; frame-src 'none'; base-uri 'self'; worker-src 'self' blob:; object-src 'none'",
    );
    expect(box.allow).toBe("");
    expect(box.sandbox).not.toContain("allow-same-origin");
    expect(box.applied).toEqual({ csp: {}, permissions: {} });
  });

  it("adds declared origins only, drops malformed ones and what the host restricts", () => {
    const box = appSandbox(
      {
        csp: {
          connectDomains: [
            "https://api.example.com",
            "https://evil.example; script-src *",
            "*",
            "'unsafe-eval'",
          ],
          resourceDomains: ["https://*.cdn.example", "https://cdn.example:8443"],
          frameDomains: ["https://frames.example", "https://blocked.example"],
          baseUriDomains: ["https://base.example"],
        },
      },
      { allowDomain: (origin) => origin !== "https://blocked.example" },
    );
    expect(box.csp).toContain("connect-src https://api.example.com;");
    expect(box.csp).toContain(
      "script-src 'self' 'unsafe-inline' https://*.cdn.example https://cdn.example:8443;",
    );
    expect(box.csp).toContain("img-src 'self' data: https://*.cdn.example https://cdn.example:8443;");
    expect(box.csp).toContain("frame-src https://frames.example;");
    expect(box.csp).toContain("base-uri https://base.example;");
    expect(box.csp.endsWith("object-src 'none'")).toBe(true);
    expect(box.csp).not.toContain("evil");
    expect(box.csp).not.toContain("unsafe-eval");
    expect(box.applied.csp.connectDomains).toEqual(["https://api.example.com"]);
    expect(["https://a.b", "wss://a.b:1", "https://*.a.b", "http://localhost:3000"].every(isCspOrigin)).toBe(
      true,
    );
    expect(["a.b", "https://a.b/", "https://a b", "*", "https://*", "data:"].some(isCspOrigin)).toBe(false);
  });

  it("grants only declared permissions the host agrees to, in the allow attribute", () => {
    const ui = { permissions: { camera: {}, microphone: {}, clipboardWrite: {} } };
    expect(appSandbox(ui).allow).toBe("");
    const box = appSandbox(ui, { grant: ["camera", "clipboardWrite", "geolocation"] });
    expect(box.allow).toBe("camera; clipboard-write");
    expect(box.applied.permissions).toEqual({ camera: {}, clipboardWrite: {} });
    expect(allowAttribute({ camera: {}, microphone: {}, geolocation: {}, clipboardWrite: {} })).toBe(
      "camera; microphone; geolocation; clipboard-write",
    );
    expect(() => appSandbox(ui, { grants: [] } as never)).toThrow(McpkitError);
  });
});

describe("checkOpenLink", () => {
  it("opens absolute https URLs only, unless the host adds schemes", () => {
    const table: [string, boolean][] = [
      ["https://example.com/a?b#c", true],
      ["HTTPS://EXAMPLE.COM", true],
      ["http://example.com", false],
      ["javascript:alert(1)", false],
      ["JavaScript:alert(1)", false],
      [" javascript:alert(1)", false],
      ["data:text/html,<script>", false],
      ["file:///etc/passwd", false],
      ["/relative", false],
      ["relative", false],
      ["//example.com", false],
      ["https://user:pw@example.com", false],
      ["https://user@example.com", false],
      ["mailto:a@example.com", false],
      ["", false],
    ];
    for (const [url, ok] of table) expect(checkOpenLink(url).ok, url).toBe(ok);
    expect(checkOpenLink(42).ok).toBe(false);
    expect(checkOpenLink(`https://example.com/${"a".repeat(9000)}`).ok).toBe(false);
    expect(checkOpenLink("mailto:a@example.com", { schemes: ["mailto"] })).toEqual({
      ok: true,
      url: "mailto:a@example.com",
    });
    expect(checkOpenLink("http://example.com", { schemes: ["http"] }).ok).toBe(true);
    expect(checkOpenLink("javascript:alert(1)", { schemes: ["mailto"] })).toEqual({
      ok: false,
      reason: "the scheme javascript: is never opened",
    });
    expect(() => checkOpenLink("x", { schemes: ["javascript"] })).toThrow(McpkitError);
    expect(() => checkOpenLink("x", { schemes: ["not a scheme"] })).toThrow(McpkitError);
  });
});
