/**
 * vitest global setup: compiles the stdio fixture servers written in TypeScript (each one runs a server the
 * in-process tests also use, from the same source) into runnable scripts under test/fixtures/.built/ (ignored by
 * git). Imports of `mcpkit/*` and of other packages stay imports, so a subprocess runs the BUILT package, as the
 * hand-written .mjs fixtures (servers no test runs in process) do.
 */
import { renameSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** The fixtures compiled, by the name of their output under {@link BUILT_FIXTURES}. */
const SOURCES = {
  "custom-server": "../fixtures/stdio-server/custom-server.ts",
  "fixture-server": "../fixtures/stdio-server/fixture-server.ts",
  "otel-server": "../fixtures/stdio-server/otel-server.ts",
  "gateway-upstream": "../fixtures/stdio-server/gateway-upstream.ts",
  "python-peer-server": "../fixtures/stdio-server/python-peer-server.ts",
  "skills-server": "../fixtures/stdio-server/skills-server.ts",
};

/** Where the compiled fixtures go. */
export const BUILT_FIXTURES: string = fileURLToPath(new URL("../fixtures/.built/", import.meta.url));

/** The compiled script of a fixture (after the global setup ran). */
export function builtFixture(name: keyof typeof SOURCES): string {
  return `${BUILT_FIXTURES}${name}.mjs`;
}

export default async function setup(): Promise<void> {
  for (const [name, source] of Object.entries(SOURCES)) {
    const out = builtFixture(name as keyof typeof SOURCES);
    // Written aside, then renamed: a run that starts meanwhile (another project) never sees half a file.
    const partial = `${out}.${process.pid}.tmp`;
    await build({
      entryPoints: [fileURLToPath(new URL(source, import.meta.url))],
      outfile: partial,
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      // Not tsconfig.json: its paths map `mcpkit/*` to the sources, and the fixture must run the built package.
      tsconfigRaw: {},
      packages: "external",
      logLevel: "warning",
    });
    renameSync(partial, out);
  }
}
