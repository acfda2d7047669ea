/**
 * vitest global setup: says once, before any test runs, whether the wire messages of the suite are checked
 * against the official MCP schemas. Without them (a fresh clone with no ../shared) the schema layer is skipped
 * and every other test runs; with `MCPKIT_REQUIRE_SPEC=1` (CI) their absence fails the run at once.
 */
import { missingRuntimes, runtimesInstalled } from "./runtimes.js";
import { missingSystemTools, systemTool } from "./system-tools.js";
import { missingSchemas, specDir } from "./wire-schema.js";

export default function setup(): void {
  announceSystemTools();
  announceRuntimes();
  // Importing wire-schema.ts already threw if MCPKIT_REQUIRE_SPEC=1 and a schema is missing.
  // vitest runs a global setup once per project; the notice is for the whole run.
  if (missingSchemas().length === 0 || process.env.MCPKIT_SPEC_NOTICE === "shown") return;
  process.env.MCPKIT_SPEC_NOTICE = "shown";
  console.warn(
    `wire schema checks skipped: no official MCP schemas in ${specDir()} (set MCPKIT_SPEC_DIR to a folder holding 2025-11-25/schema.json and 2026-07-28/schema.json to enable them)`,
  );
}

/** Says once which system tests are skipped because their program is missing (fails under MCPKIT_REQUIRE_SYSTEM=1). */
function announceSystemTools(): void {
  const missing = missingSystemTools();
  for (const tool of missing) systemTool(tool);
  if (missing.length === 0 || process.env.MCPKIT_SYSTEM_NOTICE === "shown") return;
  process.env.MCPKIT_SYSTEM_NOTICE = "shown";
  console.warn(
    `system tests skipped: ${missing.join(", ")} not installed (scripts/system-deps.sh installs them)`,
  );
}

/** One line when the runtime matrix is skipped (the runtimes are not installed); an error where required. */
function announceRuntimes(): void {
  if (process.env.MCPKIT_TEST_RUNTIMES !== "1") return;
  if (runtimesInstalled() || process.env.MCPKIT_RUNTIMES_NOTICE === "shown") return;
  process.env.MCPKIT_RUNTIMES_NOTICE = "shown";
  console.warn(
    `runtime matrix skipped: ${missingRuntimes().join(", ")} not installed (npm run runtimes:install installs them)`,
  );
}
