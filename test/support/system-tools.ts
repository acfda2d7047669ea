/**
 * The Debian programs some tests drive for real (a browser, Redis, a load balancer). `.ci/run` installs them
 * (scripts/system-deps.sh) and sets `MCPKIT_REQUIRE_SYSTEM=1`, so there a missing one fails the run at once; on
 * a machine without them those tests are skipped and the run says so in one line (test/support/spec-setup.ts).
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** A program the system tests need, with where Debian puts it. */
export type SystemTool = "chromium" | "redis-server" | "nginx";

const extraDirs = ["/usr/sbin", "/sbin", "/usr/local/sbin"];

function findOnPath(name: string): string | undefined {
  // MCPKIT_NO_SYSTEM=1 acts as a machine without them (.ci/run's fresh-clone pass, which checks exactly that).
  if (process.env.MCPKIT_NO_SYSTEM === "1") return undefined;
  const dirs = [...(process.env.PATH ?? "").split(delimiter), ...extraDirs];
  for (const dir of dirs) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The absolute path of `tool`, or undefined when it is not installed (an error under MCPKIT_REQUIRE_SYSTEM=1). */
export function systemTool(tool: SystemTool): string | undefined {
  const found = findOnPath(tool);
  if (found === undefined && process.env.MCPKIT_REQUIRE_SYSTEM === "1") {
    throw new Error(
      `MCPKIT_REQUIRE_SYSTEM=1 but ${tool} is not installed (scripts/system-deps.sh installs it)`,
    );
  }
  return found;
}

/** The tools that are missing, for the one-line notice. */
export function missingSystemTools(): SystemTool[] {
  return (["chromium", "redis-server", "nginx"] as const).filter((tool) => findOnPath(tool) === undefined);
}
