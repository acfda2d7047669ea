/**
 * vitest global setup: makes the Python peer's venv (scripts/python-peer.sh) when python3 is installed and the
 * venv is missing or stale, once; says in one line when the Python peer tests are skipped. Under
 * `MCPKIT_REQUIRE_SYSTEM=1` (CI) a missing python3 or a failed set-up fails the run at once.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { basePython, pythonInstalled, venvReady } from "./python-peer.js";

const script = fileURLToPath(new URL("../../scripts/python-peer.sh", import.meta.url));

export default function setup(): void {
  const required = process.env.MCPKIT_REQUIRE_SYSTEM === "1";
  if (!pythonInstalled()) {
    if (required) throw new Error(`MCPKIT_REQUIRE_SYSTEM=1 but ${basePython()} is not installed`);
    notice(`${basePython()} not installed`);
    return;
  }
  if (venvReady()) return;
  // stdout and stderr pass through: pip's own messages say what went wrong.
  const made = spawnSync("bash", [script], { stdio: ["ignore", "inherit", "inherit"] });
  if (made.status === 0 && venvReady()) return;
  if (required) throw new Error(`MCPKIT_REQUIRE_SYSTEM=1 but scripts/python-peer.sh failed`);
  notice("scripts/python-peer.sh failed (above)");
}

/** One line per run, not per project. */
function notice(why: string): void {
  if (process.env.MCPKIT_PYTHON_NOTICE === "shown") return;
  process.env.MCPKIT_PYTHON_NOTICE = "shown";
  console.warn(`Python peer tests skipped: ${why} (the official Python SDK's venv needs python3 >= 3.10)`);
}
