// Headless Chromium for the browser tests: the Debian package, driven by playwright-core.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { systemTool } from "./system-tools.js";

/** The system's Chromium, or `undefined` (the browser tests are then skipped). */
export const chromiumPath = systemTool("chromium");

/** A running headless Chromium with its own throwaway profile. */
export interface Headless {
  readonly context: BrowserContext;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/** Launches {@link chromiumPath} headless, with a fresh profile under a `prefix` temporary directory. */
export async function launchChromium(
  prefix: string,
  viewport: { width: number; height: number },
): Promise<Headless> {
  const profile = await mkdtemp(join(tmpdir(), prefix));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath as string,
    headless: true,
    viewport,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
