import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, resolve } from "node:path";
import { McpkitError } from "../jsonrpc/errors.js";
import { STDIO_MARKER_ENV } from "./process-tree.js";

/** Environment entries for a child; `undefined` removes an inherited variable. */
export type ChildEnvInput = { readonly [name: string]: string | undefined };

/** Most inherited marker tokens carried on, so that nesting cannot grow the variable without bound. */
const MAX_MARKERS = 16;
const MARKER_TOKEN = /^[0-9A-Za-z-]{8,64}$/;

/**
 * The absolute path of the executable to run. A command holding a `/` is taken relative to `cwd`; a bare name
 * is looked up on `pathVariable` (only absolute entries: an empty or relative entry would search a directory
 * the caller did not name). Throws `McpkitError` `INVALID_CONFIG` when nothing executable is found.
 */
export function resolveCommand(command: string, cwd: string, pathVariable: string | undefined): string {
  if (typeof command !== "string" || command === "" || command.includes("\0")) {
    throw invalid("command", "must be a non-empty string without NUL bytes", { command });
  }
  if (command.includes("/")) {
    const path = resolve(cwd, command);
    if (isExecutableFile(path)) return path;
    throw invalid("command", `${path} is not an executable file`, { command, path });
  }
  const searched = (pathVariable ?? "").split(delimiter).filter((dir) => isAbsolute(dir));
  for (const dir of searched) {
    const path = resolve(dir, command);
    if (isExecutableFile(path)) return path;
  }
  throw invalid("command", `"${command}" was not found on PATH`, { command, searched });
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Checks that `cwd` is an existing directory, so a bad one is not mistaken for a missing command. */
export function checkDirectory(cwd: string): string {
  let isDirectory = false;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) throw invalid("cwd", "is not an existing directory", { cwd });
  return resolve(cwd);
}

/**
 * The child's environment. `inherit`: this process's environment, then the caller's entries. `replace`: only
 * the caller's entries. Either way {@link STDIO_MARKER_ENV} is set to the markers this process inherited (so
 * an outer launcher can still sweep what this one starts) followed by `marker`.
 */
export function childEnvironment(
  mode: "inherit" | "replace",
  input: ChildEnvInput | undefined,
  marker: string,
  parent: NodeJS.ProcessEnv = process.env,
): { [name: string]: string } {
  const env: { [name: string]: string } = {};
  if (mode === "inherit") {
    for (const [name, value] of Object.entries(parent)) if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(input ?? {})) {
    if (name === STDIO_MARKER_ENV) throw invalid("env", `${name} is reserved for the cleanup marker`, {});
    if (name === "" || name.includes("=") || name.includes("\0")) {
      throw invalid("env", "names must be non-empty, without = or NUL", { name });
    }
    if (value === undefined) {
      delete env[name];
    } else if (typeof value !== "string" || value.includes("\0")) {
      throw invalid("env", "values must be strings without NUL bytes", { name });
    } else {
      env[name] = value;
    }
  }
  const inherited = (parent[STDIO_MARKER_ENV] ?? "").split(":").filter((token) => MARKER_TOKEN.test(token));
  env[STDIO_MARKER_ENV] = [...inherited.slice(-(MAX_MARKERS - 1)), marker].join(":");
  return env;
}

function invalid(key: string, problem: string, details: { [key: string]: unknown }): McpkitError {
  return new McpkitError("INVALID_CONFIG", `stdio launch ${key} ${problem}`, {
    details: { key, ...details },
  });
}
