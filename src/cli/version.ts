// Put in from package.json's "version" by esbuild's `define`: scripts/build.mjs for the built command,
// vitest.config.ts for the tests. Never hard-coded here.
declare const __MCPKIT_VERSION__: string | undefined;

/** The package version the CLI reports (and sends as its client version): package.json's, at build time. */
export const VERSION: string = typeof __MCPKIT_VERSION__ === "string" ? __MCPKIT_VERSION__ : "0.0.0-unbuilt";
