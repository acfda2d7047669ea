// Bundles each public entry point into one ESM file (shared code in dist/chunks/), so importing an entry loads a
// handful of modules instead of one per source file; Node's ESM loader cost is per module. Declarations come from
// `tsc --emitDeclarationOnly` (see the `build` script), laid out per source file as before.
import { chmodSync, readFileSync } from "node:fs";
import { build } from "esbuild";

// The CLI's `--version` (src/cli/version.ts) is package.json's, written into the bundle.
const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

const LIBRARY = [
  "index",
  "server/index",
  "client/index",
  "stdio/index",
  "http/index",
  "node/index",
  "validation/index",
  "skills/index",
  "skills-node/index",
  "redis/index",
  "auth/index",
  "auth-node/index",
  "apps/index",
  "otel/index",
  "gateway/index",
];
// The `mcpkit` command (bin): its `#!/usr/bin/env node` line is kept by esbuild; it shares the library's chunks.
const ENTRIES = [...LIBRARY, "cli/main"];

await build({
  entryPoints: ENTRIES.map((entry) => `src/${entry}.ts`),
  outbase: "src",
  outdir: "dist",
  entryNames: "[dir]/[name]",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  // One build for all entries: code shared by two entries lives once in a chunk, so a class reached through
  // `mcpkit` and through `mcpkit/client` is the same object (instanceof holds across entries).
  splitting: true,
  format: "esm",
  platform: "neutral",
  target: "node20",
  // Packages stay imports: @cfworker/json-schema is imported by the validation chunk only, which the core loads
  // with a dynamic import; oauth4webapi by mcpkit/auth only; Node built-ins (used by Node-only entries) too.
  packages: "external",
  external: ["node:*"],
  tsconfig: "tsconfig.build.json",
  define: { __MCPKIT_VERSION__: JSON.stringify(version) },
  minify: false,
  sourcemap: "linked",
  sourcesContent: false,
  legalComments: "none",
  logLevel: "warning",
});

chmodSync("dist/cli/main.js", 0o755);

// The page of `mcpkit inspect`: one browser bundle (and its stylesheet), served by the command from
// dist/cli/inspect/. Plain DOM, no UI library: nothing to ship beyond mcpkit's Apps host and a JSON Schema
// validator, and every node is made by one helper that only writes text.
const page = await build({
  entryPoints: { page: "src/cli/inspect/page/main.ts" },
  outdir: "dist/cli/inspect",
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  sourcemap: false,
  legalComments: "none",
  metafile: true,
  logLevel: "warning",
});
const bytes = Object.entries(page.metafile.outputs).map(([file, { bytes }]) => `${file} ${bytes} B`);
if (process.env.MCPKIT_BUILD_VERBOSE === "1") console.log(bytes.join("\n"));
