/**
 * Every image the docs show is in the repository, and the browser tests that take the screenshots write them
 * over docs/ only when asked to (`MCPKIT_UPDATE_SCREENSHOTS=1`), so a plain run leaves the work tree clean.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { screenshotDir, UPDATE_SCREENSHOTS_VARIABLE } from "./support/screenshots.js";
import { repoRoot } from "./support/wire-schema.js";

/** The local images a Markdown text shows: `![alt](path)` and `<img src="path">`, not URLs. */
function imagesOf(markdown: string): string[] {
  const found = [
    ...[...markdown.matchAll(/!\[[^\]]*\]\(\s*(?:<([^>]+)>|([^)\s]+))(?:\s+"[^"]*")?\s*\)/g)].map(
      (m) => m[1] ?? m[2] ?? "",
    ),
    ...[...markdown.matchAll(/<img\b[^>]*\bsrc=["']([^"']+)["']/gi)].map((m) => m[1] ?? ""),
  ];
  return found.filter((src) => !/^[a-z][a-z0-9+.-]*:/i.test(src)).map((src) => src.replace(/[#?].*$/, ""));
}

function markdownFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join("docs", "api") ? [] : markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

describe("the docs' images", () => {
  const files = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", ...markdownFiles("docs")];

  it("exist, each where the Markdown that shows it points", () => {
    const missing: string[] = [];
    let count = 0;
    for (const file of files) {
      for (const src of imagesOf(readFileSync(join(repoRoot, file), "utf8"))) {
        count++;
        if (!existsSync(join(repoRoot, dirname(file), decodeURIComponent(src))))
          missing.push(`${file}: ${src}`);
      }
    }
    expect(missing).toEqual([]);
    expect(count).toBeGreaterThanOrEqual(7);
  });

  it("the check finds images in both notations, and skips URLs", () => {
    expect(
      imagesOf(
        '![a](one.png) ![b](<two words.png> "t") <img alt="x" src="three.svg"> ![c](https://x.test/four.png) [d](not-an-image.png)',
      ),
    ).toEqual(["one.png", "two words.png", "three.svg"]);
  });
});

describe("the browser tests' screenshots", () => {
  it("go to a temporary folder unless MCPKIT_UPDATE_SCREENSHOTS=1, then to docs/", () => {
    const docs = join(repoRoot, "docs");
    expect(screenshotDir({})).not.toBe(docs);
    expect(screenshotDir({ [UPDATE_SCREENSHOTS_VARIABLE]: "true" })).not.toBe(docs);
    expect(screenshotDir({ [UPDATE_SCREENSHOTS_VARIABLE]: "1" })).toBe(docs);
  });
});
