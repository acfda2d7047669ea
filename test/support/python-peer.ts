/**
 * The official Python MCP SDK as a peer (test/python-peer/): where its venv is, and whether the tests can run.
 * The venv (node_modules/.cache/python-peer, `mcp` pinned in test/python/requirements.txt) is made by
 * scripts/python-peer.sh, which `.ci/run` calls and the global setup (python-setup.ts) calls where python3 is
 * installed. Without python3 the tests are skipped with one line; under `MCPKIT_REQUIRE_SYSTEM=1` (CI) a missing
 * peer fails the run; `MCPKIT_NO_SYSTEM=1` acts as a machine without python3.
 *
 * @example
 * const python = pythonPeer();
 * describe.skipIf(python === undefined)("the Python peer", () => { ... });
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** The venv's folder. */
export const PYTHON_VENV: string = `${root}node_modules/.cache/python-peer`;
/** The pinned requirements; the venv's stamp is a copy of them. */
export const PYTHON_REQUIREMENTS: string = `${root}test/python/requirements.txt`;
/** The folder of the Python peer programs. */
export const PYTHON_PROGRAMS: string = `${root}test/python`;

/** The interpreter the venv is made from: `MCPKIT_PYTHON`, or python3 on PATH. */
export function basePython(): string {
  return process.env.MCPKIT_PYTHON ?? "python3";
}

/** Whether the base interpreter runs here (never, under MCPKIT_NO_SYSTEM=1). */
export function pythonInstalled(): boolean {
  if (process.env.MCPKIT_NO_SYSTEM === "1") return false;
  return spawnSync(basePython(), ["--version"], { stdio: "ignore" }).status === 0;
}

/** Whether the venv holds exactly the pinned requirements. */
export function venvReady(): boolean {
  const stamp = `${PYTHON_VENV}/stamp`;
  return (
    existsSync(`${PYTHON_VENV}/bin/python`) &&
    existsSync(stamp) &&
    readFileSync(stamp, "utf8") === readFileSync(PYTHON_REQUIREMENTS, "utf8")
  );
}

/**
 * The venv's python, or undefined when the peer is not available (then the tests skip; the global setup said
 * why in one line). Under MCPKIT_REQUIRE_SYSTEM=1 an unavailable peer throws.
 */
export function pythonPeer(): string | undefined {
  if (process.env.MCPKIT_NO_SYSTEM !== "1" && venvReady()) return `${PYTHON_VENV}/bin/python`;
  if (process.env.MCPKIT_REQUIRE_SYSTEM === "1") {
    throw new Error(
      `MCPKIT_REQUIRE_SYSTEM=1 but the Python peer venv is missing (bash scripts/python-peer.sh makes it)`,
    );
  }
  return undefined;
}
