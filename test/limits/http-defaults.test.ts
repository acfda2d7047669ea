/**
 * The defaults of the HTTP path agree: a client with default options reads whatever a server with default options
 * sends, over real HTTP on 127.0.0.1, both eras. A 4.5 MB MCP App view (real views are several MB) resolves with
 * `resolveApp`'s defaults, and a multi-MB skill file loads and verifies with the Skills client's.
 */
import { describe, expect, it } from "vitest";
import { appTool, defineApp, resolveApp } from "../../src/apps/index.js";
import { Client } from "../../src/client/client.js";
import { HTTP_CLIENT_PRESETS } from "../../src/http/client/policy.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { buildHttpConfig } from "../../src/http/server/options.js";
import { McpkitError } from "../../src/jsonrpc/errors.js";
import { serve } from "../../src/node/serve.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import {
  createSkillCatalogue,
  SKILL_FILE_BYTES,
  SkillsClient,
  skillsServer,
} from "../../src/skills/index.js";
import { useCleanups } from "../support/interop-helpers.js";

const cleanup = useCleanups();

/** HTML of about `bytes` bytes, with the characters real views have (quotes, newlines, non-ASCII). */
function bigHtml(bytes: number): string {
  const line = '<div class="row" data-x="1">café — ünïcödé</div>\n';
  return `<!doctype html><html><body>\n${line.repeat(Math.ceil(bytes / Buffer.byteLength(line)))}</body></html>`;
}

async function start(builder: ServerBuilder): Promise<string> {
  const handler = createHttpHandler(builder.build());
  const running = await serve(handler, { host: "127.0.0.1" });
  cleanup(
    () => running.close(),
    () => handler.close(),
  );
  return running.url;
}

/** A client with default options (the URL is all it is given). */
function defaultClient(url: string, era: string): Client {
  const client = new Client({
    transport: new StreamableHttpClientTransport({ url }),
    clientInfo: { name: "defaults", version: "1.0.0" },
    ...(era === "2025-11-25" ? { protocolVersion: "2025-11-25" as const } : {}),
  });
  cleanup(() => client.close());
  return client;
}

describe("default HTTP limits", () => {
  it("a default client reads at least what a default server may send", () => {
    const server = buildHttpConfig({});
    const client = HTTP_CLIENT_PRESETS.default;
    expect(client.maxResponseBytes).toBeGreaterThanOrEqual(server.maxResponseBytes);
    expect(client.maxDecodedResponseBytes).toBeGreaterThanOrEqual(server.maxResponseBytes);
    expect(client.maxSseEventBytes).toBeGreaterThanOrEqual(server.maxResponseBytes);
    expect(client.maxRequestBytes).toBeLessThanOrEqual(server.maxBodyBytes);
  });

  describe.each(["2026-07-28", "2025-11-25"])("%s", (era) => {
    it("a default client resolves a 4.5 MB App view from a default server", async () => {
      const html = bigHtml(4_500_000);
      expect(Buffer.byteLength(html)).toBeGreaterThan(4_500_000);
      const app = defineApp({
        tool: { name: "dashboard", inputSchema: { type: "object" } },
        resource: { uri: "ui://dashboard/view", name: "dashboard" },
        content: { text: html },
      });
      const builder = appTool(
        new ServerBuilder({ serverInfo: { name: "apps", version: "1.0.0" } }),
        app,
        () => ({
          content: [{ type: "text", text: "ok" }],
        }),
      );
      const client = defaultClient(await start(builder), era);
      await client.connect();
      const { tools } = await client.listTools();
      const resolved = await resolveApp(client, tools[0] as never);
      expect(resolved.html).toBe(html);
      await client.close();
    });

    it("a default client loads a multi-MB skill file from a default server", async () => {
      const reference = bigHtml(3_000_000);
      const catalogue = await createSkillCatalogue([
        {
          frontmatter: { name: "big-docs", description: "A skill with a large reference" },
          body: "See [the reference](references/REFERENCE.md).\n",
          files: { "references/REFERENCE.md": reference },
        },
      ]);
      const skills = skillsServer(catalogue);
      const builder = new ServerBuilder({ serverInfo: { name: "skills", version: "1.0.0" } }).extension(
        skills.extension,
      );
      const client = defaultClient(await start(builder), era);
      await client.connect();
      const host = new SkillsClient(client);
      const { skills: entries } = await host.listAll();
      const loaded = await host.load(entries[0] as never);
      const file = await loaded.readFile("references/REFERENCE.md");
      expect(file.text).toBe(reference);
      expect(file.verified).toBe(true);
      await client.close();
    });
  });

  it("refuses, when the catalogue is built, a skill file no default server could send, naming skill, file, size and option", async () => {
    // Quotes are escaped in JSON: 4 MB of them is 8 MB as resources/read sends it.
    const quoted = '"'.repeat(4_000_000);
    const build = createSkillCatalogue([
      { frontmatter: { name: "quotes", description: "Many quotes" }, files: { "data/QUOTES.md": quoted } },
    ]);
    const error = await build.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpkitError);
    const refused = error as McpkitError;
    expect(refused.code).toBe("INVALID_CONFIG");
    expect(refused.message).toContain("skill quotes");
    expect(refused.message).toContain("data/QUOTES.md");
    expect(refused.message).toMatch(/: \d+ bytes, over options\.limits\.maxFileBytes \(7934464\)$/);
    expect(refused.details).toMatchObject({
      option: "options.limits.maxFileBytes",
      limit: SKILL_FILE_BYTES,
      skill: "skill://quotes/SKILL.md",
      file: "skill://quotes/data/QUOTES.md",
    });
    expect(refused.details?.size).toBeGreaterThan(8_000_000);
    // Raised, it is accepted: the option named is the one that governs.
    await createSkillCatalogue(
      [{ frontmatter: { name: "quotes", description: "Many quotes" }, files: { "data/QUOTES.md": quoted } }],
      { limits: { maxFileBytes: 9_000_000 } },
    );
  });
});
