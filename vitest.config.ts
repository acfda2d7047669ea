import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

// The CLI reads its version from package.json at build time (scripts/build.mjs); the tests do the same.
const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as {
  version: string;
};

export default defineConfig({
  define: { __MCPKIT_VERSION__: JSON.stringify(version) },
  resolve: {
    // Examples import the package by name, as users do; tests run them against the sources.
    alias: [
      { find: /^mcpkit$/, replacement: src("index.ts") },
      { find: /^mcpkit\/server$/, replacement: src("server/index.ts") },
      { find: /^mcpkit\/client$/, replacement: src("client/index.ts") },
      { find: /^mcpkit\/http$/, replacement: src("http/index.ts") },
      { find: /^mcpkit\/node$/, replacement: src("node/index.ts") },
      { find: /^mcpkit\/stdio$/, replacement: src("stdio/index.ts") },
      { find: /^mcpkit\/validation$/, replacement: src("validation/index.ts") },
      { find: /^mcpkit\/skills$/, replacement: src("skills/index.ts") },
      { find: /^mcpkit\/skills\/node$/, replacement: src("skills-node/index.ts") },
      { find: /^mcpkit\/redis$/, replacement: src("redis/index.ts") },
      { find: /^mcpkit\/auth$/, replacement: src("auth/index.ts") },
      { find: /^mcpkit\/auth\/node$/, replacement: src("auth-node/index.ts") },
      { find: /^mcpkit\/apps$/, replacement: src("apps/index.ts") },
      { find: /^mcpkit\/otel$/, replacement: src("otel/index.ts") },
      { find: /^mcpkit\/gateway$/, replacement: src("gateway/index.ts") },
    ],
  },
  test: {
    testTimeout: 20_000,
    // Says once whether wire messages are checked against the official schemas (../shared/spec or MCPKIT_SPEC_DIR);
    // compiles the stdio fixtures written in TypeScript (test/support/fixture-build.ts); makes the Python peer's
    // venv where python3 is installed (test/support/python-setup.ts).
    globalSetup: [
      "test/support/spec-setup.ts",
      "test/support/fixture-build.ts",
      "test/support/python-setup.ts",
    ],
    pool: "forks",
    // Vitest's default is one worker per core less one: a single worker on a 2-core machine, which leaves a core
    // idle while most files wait on subprocesses, sockets and timers. Two at least.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: {
          name: "all",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: ["test/runtimes/**"],
        },
      },
      // The runtime matrix (docs/runtimes.md), only through `npm run test:runtimes`.
      ...(process.env.MCPKIT_TEST_RUNTIMES === "1"
        ? [{ extends: true as const, test: { name: "runtimes", include: ["test/runtimes/**/*.test.ts"] } }]
        : []),
      {
        // The HTTP client tests again, on the node:http stack (nodeHttp()) instead of fetch.
        extends: true,
        test: {
          name: "http-client-node",
          include: ["test/http-client/**/*.test.ts"],
          env: { MCPKIT_TEST_HTTP: "node" },
        },
      },
    ],
    // CI also writes a JSON report, from which .ci/run prints the plain "N passed, N failed" line.
    reporters: process.env.CI ? ["default", ["json", { outputFile: ".vitest-report.json" }]] : ["default"],
  },
});
