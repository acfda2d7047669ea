// Where the browser tests write the screenshots the docs show. Every run takes them (the code path stays tested),
// but only `MCPKIT_UPDATE_SCREENSHOTS=1` writes them over docs/: a plain run leaves the work tree clean.
import { mkdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { repoRoot } from "./wire-schema.js";

/** The variable that makes a run refresh the docs' screenshots. */
export const UPDATE_SCREENSHOTS_VARIABLE = "MCPKIT_UPDATE_SCREENSHOTS";

/** The folder a screenshot goes to: docs/ when refreshing, else one reused temporary folder. */
export function screenshotDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env[UPDATE_SCREENSHOTS_VARIABLE] === "1") return join(repoRoot, "docs");
  const dir = join(tmpdir(), "mcpkit-screenshots");
  mkdirSync(dir, { recursive: true });
  return dir;
}

type ShotOptions = NonNullable<Parameters<Page["screenshot"]>[0]>;

/** Takes the screenshot `docs/<file>` shows, writes it to {@link screenshotDir} and checks it is a PNG. */
export async function screenshot(page: Page, file: string, options: Omit<ShotOptions, "path"> = {}) {
  const path = join(screenshotDir(), file);
  const bytes = await page.screenshot({ ...options, path });
  if (bytes.subarray(1, 4).toString("latin1") !== "PNG" || statSync(path).size !== bytes.length) {
    throw new Error(`the screenshot ${path} was not written as a PNG`);
  }
  return path;
}
