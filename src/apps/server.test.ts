import { describe, expect, it } from "vitest";
import { connectInProcess } from "../../test/support/in-process-client.js";
import { McpkitError } from "../jsonrpc/errors.js";
import { createServer, ServerBuilder } from "../server/index.js";
import { APP_MIME_TYPE, APPS_EXTENSION_ID } from "./constants.js";
import { type AppInput, defineApp } from "./definition.js";
import { toolUiLink } from "./meta.js";
import { appsHandler, appTool, supportsApps, uiCapability, uiClientCapability } from "./server.js";

const HTML = "<!doctype html><html><body>clock</body></html>";
const base = (): AppInput => ({
  tool: { name: "clock", description: "Shows the time", inputSchema: { type: "object" } },
  resource: { uri: "ui://clock/view", name: "clock view" },
  content: { text: HTML },
});

function ruleOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(McpkitError);
    return (error as McpkitError).details?.rule ?? (error as McpkitError).details?.key;
  }
  throw new Error("expected a refusal");
}

describe("defineApp", () => {
  it("links the tool both ways (nested and deprecated flat), defaults the MIME type and freezes everything", () => {
    const app = defineApp({
      ...base(),
      visibility: ["model", "app"],
      tool: { ...base().tool, _meta: { "com.example/x": 1, ui: { extra: true } } },
      content: {
        text: HTML,
        _meta: { ui: { csp: { connectDomains: ["https://api.example.com"] }, future: 1 } },
      },
    });
    expect(app.tool._meta).toEqual({
      "com.example/x": 1,
      ui: { extra: true, resourceUri: "ui://clock/view", visibility: ["model", "app"] },
      "ui/resourceUri": "ui://clock/view",
    });
    expect(app.resource).toEqual({ uri: "ui://clock/view", name: "clock view", mimeType: APP_MIME_TYPE });
    expect(app.content).toMatchObject({ uri: "ui://clock/view", mimeType: APP_MIME_TYPE, text: HTML });
    expect(app.content._meta?.ui?.future).toBe(1);
    expect(app.html).toBe(HTML);
    expect(Object.isFrozen(app) && Object.isFrozen(app.tool) && Object.isFrozen(app.tool._meta)).toBe(true);
    expect(Object.isFrozen(app.content._meta?.ui?.csp?.connectDomains)).toBe(true);
  });

  it("accepts a blob body and a flat link equal to the resource", () => {
    const blob = btoa(HTML);
    const app = defineApp({
      ...base(),
      tool: { ...base().tool, _meta: { "ui/resourceUri": "ui://clock/view" } },
      content: { blob },
    });
    expect(app.html).toBe(HTML);
    expect(app.content.blob).toBe(blob);
  });

  it("refuses what breaks a rule, naming it", () => {
    expect(ruleOf(() => defineApp({ ...base(), resource: { uri: "https://x/view", name: "v" } }))).toBe(
      "ui-scheme",
    );
    expect(ruleOf(() => defineApp({ ...base(), resource: { uri: "ui://", name: "v" } }))).toBe("ui-scheme");
    expect(
      ruleOf(() => defineApp({ ...base(), resource: { ...base().resource, mimeType: "text/html" } })),
    ).toBe("mime-type");
    expect(
      ruleOf(() => defineApp({ ...base(), content: { text: HTML, mimeType: "text/html; profile=mcp-app" } })),
    ).toBe("mime-type");
    expect(ruleOf(() => defineApp({ ...base(), content: { text: HTML, uri: "ui://clock/other" } }))).toBe(
      "uri-mismatch",
    );
    expect(ruleOf(() => defineApp({ ...base(), content: { text: HTML, blob: "AA==" } as never }))).toBe(
      "body",
    );
    expect(ruleOf(() => defineApp({ ...base(), content: { text: "  " } }))).toBe("body");
    expect(ruleOf(() => defineApp({ ...base(), content: { blob: "not base64" } }))).toBe("body");
    expect(ruleOf(() => defineApp({ ...base(), content: { blob: btoa("\xff\xfe") } }))).toBe("body");
    expect(
      ruleOf(() =>
        defineApp({ ...base(), tool: { ...base().tool, _meta: { "ui/resourceUri": "ui://other" } } }),
      ),
    ).toBe("meta-conflict");
    expect(
      ruleOf(() =>
        defineApp({
          ...base(),
          tool: {
            ...base().tool,
            _meta: { ui: { resourceUri: "ui://clock/view" }, "ui/resourceUri": "ui://x" },
          },
        }),
      ),
    ).toBe("meta-conflict");
    expect(ruleOf(() => defineApp({ ...base(), visibility: [] }))).toBe("visibility");
    expect(ruleOf(() => defineApp({ ...base(), visibility: ["model", "model"] }))).toBe("visibility");
    expect(ruleOf(() => defineApp({ ...base(), visibility: ["user" as never] }))).toBe("visibility");
    expect(ruleOf(() => defineApp({ ...base(), extra: 1 } as never))).toBe("app.extra");
    expect(ruleOf(() => defineApp({ ...base(), limits: { resourceBytes: 0 } }))).toBe(
      "app.limits.resourceBytes",
    );
    expect(
      ruleOf(() =>
        defineApp({ ...base(), content: { text: HTML, _meta: { ui: { prefersBorder: "yes" as never } } } }),
      ),
    ).toBe("resource-meta");
    expect(
      ruleOf(() =>
        defineApp({
          ...base(),
          content: { text: HTML, _meta: { ui: { csp: { connectDomains: "x" as never } } } },
        }),
      ),
    ).toBe("csp");
  });

  it("bounds the URI at 2,048 bytes", () => {
    const uri = (n: number) => `ui://${"a".repeat(n - 5)}`;
    expect(defineApp({ ...base(), resource: { uri: uri(2048), name: "v" } }).resource.uri).toHaveLength(2048);
    expect(ruleOf(() => defineApp({ ...base(), resource: { uri: uri(2049), name: "v" } }))).toBe("uri-size");
  });

  it("bounds the body at 8,000,000 bytes, as text and as blob", () => {
    const body = (n: number) => `<p>${"x".repeat(n - 3)}`;
    expect(defineApp({ ...base(), content: { text: body(8_000_000) } }).html).toHaveLength(8_000_000);
    expect(ruleOf(() => defineApp({ ...base(), content: { text: body(8_000_001) } }))).toBe("body-size");
    expect(ruleOf(() => defineApp({ ...base(), content: { text: `<p>${"é".repeat(4_000_000)}` } }))).toBe(
      "body-size",
    );
    expect(defineApp({ ...base(), content: { blob: btoa(body(8_000_000)) } }).html).toHaveLength(8_000_000);
    expect(ruleOf(() => defineApp({ ...base(), content: { blob: btoa(body(8_000_001)) } }))).toBe(
      "body-size",
    );
    expect(ruleOf(() => defineApp({ ...base(), content: { blob: "A".repeat(11_000_000) } }))).toBe(
      "body-size",
    );
    expect(
      ruleOf(() => defineApp({ ...base(), limits: { resourceBytes: 10 }, content: { text: body(11) } })),
    ).toBe("body-size");
  });

  it("bounds each CSP list at 64 entries of 2,048 bytes", () => {
    const withCsp = (csp: object) => ({ ...base(), content: { text: HTML, _meta: { ui: { csp } } } });
    const domains = (n: number) => Array.from({ length: n }, (_, i) => `https://d${i}.example.com`);
    for (const list of ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"]) {
      expect(defineApp(withCsp({ [list]: domains(64) })).content._meta?.ui?.csp).toBeDefined();
      expect(ruleOf(() => defineApp(withCsp({ [list]: domains(65) })))).toBe("csp-entries");
    }
    const entry = (n: number) => `https://${"a".repeat(n - 20)}.example.com`;
    expect(entry(2048)).toHaveLength(2048);
    expect(defineApp(withCsp({ resourceDomains: [entry(2048)] })).html).toBe(HTML);
    expect(ruleOf(() => defineApp(withCsp({ resourceDomains: [entry(2049)] })))).toBe("csp-entry-size");
    // The listing entry's _meta.ui is checked the same way.
    expect(
      ruleOf(() =>
        defineApp({
          ...base(),
          resource: { ...base().resource, _meta: { ui: { csp: { frameDomains: domains(65) } } } },
        }),
      ),
    ).toBe("csp-entries");
  });
});

describe("toolUiLink", () => {
  it("reads the nested link first, falls back to the flat one, and refuses a conflict", () => {
    expect(toolUiLink({ ui: { resourceUri: "ui://a" } })).toEqual({ resourceUri: "ui://a" });
    expect(toolUiLink({ "ui/resourceUri": "ui://a" })).toEqual({ resourceUri: "ui://a" });
    expect(
      toolUiLink({ ui: { resourceUri: "ui://a", visibility: ["app"] }, "ui/resourceUri": "ui://a" }),
    ).toEqual({
      resourceUri: "ui://a",
      visibility: ["app"],
    });
    expect(toolUiLink({})).toBeUndefined();
    expect(toolUiLink(undefined)).toBeUndefined();
    expect(ruleOf(() => toolUiLink({ ui: { resourceUri: "ui://a" }, "ui/resourceUri": "ui://b" }))).toBe(
      "meta-conflict",
    );
    expect(ruleOf(() => toolUiLink({ ui: { resourceUri: 7 } }))).toBe("ui-scheme");
    expect(ruleOf(() => toolUiLink({ "ui/resourceUri": "https://a" }))).toBe("ui-scheme");
  });
});

const connect = (server: ReturnType<typeof createServer>, era: "2026-07-28" | "2025-11-25", ui = true) =>
  connectInProcess(server, {
    clientInfo: { name: "host", version: "1.0.0" },
    protocolVersion: era,
    capabilities: ui ? { extensions: uiClientCapability() } : {},
  });

describe("serving apps", () => {
  for (const era of ["2026-07-28", "2025-11-25"] as const) {
    it(`registers an app on a builder and reads the client's capability from the context (${era})`, async () => {
      const app = defineApp({ ...base(), tool: { ...base().tool, _meta: { keep: true } } });
      const builder = new ServerBuilder({ serverInfo: { name: "apps", version: "1.0.0" } });
      appTool(builder, app, (_args, ctx) => ({
        content: [{ type: "text", text: `apps: ${supportsApps(ctx)} ${JSON.stringify(uiCapability(ctx))}` }],
      }));
      const server = builder.build();
      for (const ui of [true, false]) {
        const client = await connect(server, era, ui);
        const { tools } = await client.listTools();
        expect(tools[0]?._meta).toEqual(app.tool._meta);
        const { resources } = await client.listResources();
        expect(resources[0]).toMatchObject({ uri: "ui://clock/view", mimeType: APP_MIME_TYPE });
        const read = await client.readResource("ui://clock/view");
        expect(read.contents).toEqual([{ uri: "ui://clock/view", mimeType: APP_MIME_TYPE, text: HTML }]);
        const result = await client.callTool("clock", {});
        expect(result.content[0]).toEqual({
          type: "text",
          text: ui ? `apps: true {"mimeTypes":["${APP_MIME_TYPE}"]}` : "apps: false undefined",
        });
        await client.close();
      }
      await server.close();
    });
  }

  it("serves apps through createServer with appsHandler, the base handler kept", async () => {
    const app = defineApp(base());
    const server = createServer({
      serverInfo: { name: "apps", version: "1.0.0" },
      extensions: { [APPS_EXTENSION_ID]: {} },
      handler: appsHandler([{ app, call: () => ({ content: [{ type: "text", text: "12:00" }] }) }], {
        listTools: () => ({ tools: [{ name: "plain", inputSchema: { type: "object" } }] }),
        callTool: () => ({ content: [{ type: "text", text: "plain" }] }),
        listResources: () => ({ resources: [{ uri: "docs://a", name: "a" }] }),
        readResource: ({ uri }) => ({ contents: [{ uri, text: "a" }] }),
      }),
    });
    const client = await connect(server, "2026-07-28");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["clock", "plain"]);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([
      "ui://clock/view",
      "docs://a",
    ]);
    expect((await client.callTool("clock", {})).content).toEqual([{ type: "text", text: "12:00" }]);
    expect((await client.callTool("plain", {})).content).toEqual([{ type: "text", text: "plain" }]);
    expect((await client.readResource("docs://a")).contents[0]).toMatchObject({ text: "a" });
    expect((await client.readResource("ui://clock/view")).contents[0]).toMatchObject({ text: HTML });
    await client.close();
    await server.close();
    expect(
      ruleOf(() =>
        appsHandler([
          { app, call: () => ({ content: [] }) },
          { app, call: () => ({ content: [] }) },
        ]),
      ),
    ).toBe("apps tool clock");
  });
});
