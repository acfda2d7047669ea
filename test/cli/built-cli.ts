/**
 * Runs the BUILT `mcpkit` command (`node dist/cli/main.js`) as a real subprocess, as `npx mcpkit` would.
 * `npm test` builds first; a missing build fails the test with a message saying so.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../support/wire-schema.js";

export const CLI_MAIN = join(repoRoot, "dist", "cli", "main.js");

/** Throws unless `npm run build` has produced the command. */
export function requireBuiltCli(): void {
  if (!existsSync(CLI_MAIN)) {
    throw new Error(`${CLI_MAIN} is missing: run \`npm run build\` first (\`npm test\` does)`);
  }
}

/** A running `mcpkit` process: its output so far, and how it ended. */
export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit status (or 128 + signal number style `null` code as -1). */
  exited: Promise<number>;
}

/**
 * Starts `mcpkit ...args`; stdin is a pipe (not a terminal), ended at once unless `keepStdin`; `env` adds to
 * this process's environment.
 */
export function startCli(
  args: readonly string[],
  options: { keepStdin?: boolean; env?: NodeJS.ProcessEnv } = {},
): CliProcess {
  requireBuiltCli();
  const child = spawn(process.execPath, [CLI_MAIN, ...args], {
    cwd: repoRoot,
    ...(options.env === undefined ? {} : { env: { ...process.env, ...options.env } }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  if (options.keepStdin !== true) child.stdin?.end();
  const exited = new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? -1));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs `mcpkit ...args` to the end. */
export async function runCliProcess(args: readonly string[]) {
  const cli = startCli(args);
  const status = await cli.exited;
  return { status, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** Waits (bounded, about 15 s) until `condition` holds; throws with `describe()` when it never does. */
export async function waitUntil(condition: () => boolean, describe: () => string): Promise<void> {
  for (let i = 0; i < 1500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error(`condition never held; ${describe()}`);
}
