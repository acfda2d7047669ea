/**
 * Every ```ts block of README.md and docs/**\/*.md is type-checked against the sources (test/support/doc-snippets.ts
 * says how a block declares what it assumes: `<!-- snippet: declare const transport: Transport; -->` and the
 * other directives; docs/writing-docs.md shows them). A new doc is picked up without registering it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { checkSnippets, type Doc, extractSnippets, formatProblems } from "./support/doc-snippets.js";
import { repoRoot } from "./support/wire-schema.js";

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

function load(path: string): Doc {
  return { file: relative(repoRoot, path), text: readFileSync(path, "utf8") };
}

const docs = [join(repoRoot, "README.md"), ...markdownFiles(join(repoRoot, "docs"))].map(load);

describe("documentation snippets", () => {
  const snippets = docs.flatMap((doc) => extractSnippets(doc));

  it("type-checks every ```ts block of README.md and docs/", () => {
    const problems = checkSnippets(snippets, repoRoot);
    expect(formatProblems(problems)).toBe("");
    // The checker saw the docs: the README alone has more than a handful of checked blocks.
    expect(snippets.filter((s) => s.file === "README.md" && s.mode !== "skip").length).toBeGreaterThan(5);
  }, 120_000);

  it("checks docs/migrating.md's mcpkit blocks, the zod-typed tool and the raw JSON Schema one among them", () => {
    const mcpkit = snippets.filter(
      (s) => s.file === join("docs", "migrating.md") && !s.official && s.mode !== "skip",
    );
    const code = mcpkit.map((s) => s.lines.map((l) => l.text).join("\n"));
    expect(code.some((c) => c.includes('from "mcpkit/server"') && c.includes("inputSchema: z.object("))).toBe(
      true,
    );
    expect(code.some((c) => c.includes('from "mcpkit/server"') && c.includes('type: "object"'))).toBe(true);
  });

  it("keeps skips rare, each with a reason", () => {
    const skipped = snippets.filter((s) => s.mode === "skip");
    for (const s of skipped) expect(s.skipReason, `${s.file}:${s.line}`).toMatch(/\w/);
    expect(skipped.length).toBeLessThanOrEqual(Math.ceil(snippets.length / 10));
  });
});

describe("the snippet checker itself", () => {
  const check = (text: string) => checkSnippets(extractSnippets({ file: "fixture.md", text }), repoRoot);

  it("catches a broken snippet, with the Markdown file and line", () => {
    const text = [
      "# Fixture",
      "",
      "```ts",
      'import { ServerBuilder } from "mcpkit/server";',
      "",
      'const server = new ServerBuilder({ serverInfo: { name: "x" } }).build();',
      "```",
    ].join("\n");
    const problems = check(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: "fixture.md", line: 6 });
    expect(problems[0]?.message).toContain("version");
  }, 60_000);

  it("catches the input-required defect: a union where a value is expected", () => {
    const text = [
      '<!-- snippet: import type { Server } from "mcpkit/server"; declare const server: Server; -->',
      "```ts",
      'await server.notifyListChanged("tools" | "prompts");',
      "```",
    ].join("\n");
    const problems = check(text);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.line === 3)).toBe(true);
  }, 60_000);

  it("reads preludes, file preludes, continuations and declaration blocks; a free name fails", () => {
    const text = [
      '<!-- snippets: import { Client } from "mcpkit/client"; -->',
      "",
      '<!-- snippet: import type { Transport } from "mcpkit"; declare const transport: Transport; -->',
      "```ts",
      'const client = new Client({ transport, clientInfo: { name: "a", version: "1" } });',
      "```",
      "",
      "<!-- snippet: continues -->",
      "",
      "```ts",
      "await client.connect();",
      "```",
      "",
      "<!-- snippet: declarations -->",
      '<!-- snippet: import type { Transport } from "mcpkit"; -->',
      "```ts",
      "function open(transport: Transport): Promise<void>;",
      "interface Missing { field: NoSuchType }",
      "```",
      "",
      "```ts",
      "await transport.close();",
      "```",
    ].join("\n");
    const snippets = extractSnippets({ file: "fixture.md", text });
    expect(snippets.map((s) => s.mode)).toEqual(["program", "declarations", "program"]);
    const problems = check(text);
    expect(problems.map((p) => p.line).sort()).toEqual([18, 22]);
    expect(problems.map((p) => p.message).join("\n")).toMatch(/NoSuchType[\s\S]*transport/);
  }, 60_000);

  it("refuses a skip without a reason and a directive on a non-ts block", () => {
    expect(() => extractSnippets({ file: "f.md", text: "<!-- snippet: skip -->\n```ts\nx\n```" })).toThrow(
      /f\.md:1: .*needs a reason/,
    );
    expect(() =>
      extractSnippets({ file: "f.md", text: "<!-- snippet: declare const x: 1; -->\n```sh\nls\n```" }),
    ).toThrow(/f\.md:4: snippet directive on a sh block/);
  });
});
