/**
 * The runtimes of the runtime matrix (test/runtimes), installed from npm into runtimes/ by `npm run
 * runtimes:install` (never by the root `npm ci`: they weigh ~700 MB). `.ci/run` installs them and sets
 * `MCPKIT_REQUIRE_RUNTIMES=1`, so there a missing one fails the run; elsewhere the matrix is skipped and the run
 * says so in one line (test/support/spec-setup.ts).
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** A runtime of the matrix. */
export type RuntimeName = "node22" | "node24" | "bun" | "deno" | "workerd";

const dir = (path: string) => fileURLToPath(new URL(`../../runtimes/${path}`, import.meta.url));

/** The executables, by runtime; workerd runs through miniflare on Node 24. */
export const RUNTIME_FILES: { readonly [name in RuntimeName]: string } = {
  node22: dir("node_modules/node22/bin/node"),
  node24: dir("node_modules/node24/bin/node"),
  bun: dir("node_modules/@oven/bun-linux-x64/bin/bun"),
  deno: dir("node_modules/@deno/linux-x64-glibc/deno"),
  workerd: dir("node_modules/miniflare/package.json"),
};

/** The launcher that serves a Workers entry on workerd (runs on Node 24). */
export const WORKERD_LAUNCHER = dir("serve-workerd.mjs");

/** The runtimes not installed. */
export function missingRuntimes(): RuntimeName[] {
  return (Object.keys(RUNTIME_FILES) as RuntimeName[]).filter((name) => !existsSync(RUNTIME_FILES[name]));
}

/** True when every runtime is installed; throws under MCPKIT_REQUIRE_RUNTIMES=1 when one is missing. */
export function runtimesInstalled(): boolean {
  const missing = missingRuntimes();
  if (missing.length > 0 && process.env.MCPKIT_REQUIRE_RUNTIMES === "1") {
    throw new Error(
      `MCPKIT_REQUIRE_RUNTIMES=1 but ${missing.join(", ")} not installed (npm run runtimes:install installs them)`,
    );
  }
  return missing.length === 0;
}
