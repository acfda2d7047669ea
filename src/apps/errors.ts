import { McpkitError, type McpkitErrorCode } from "../jsonrpc/errors.js";
import { APP_LIMITS, type AppLimits } from "./constants.js";

/**
 * The rule an app definition, a tool link or a `ui://` read broke, carried as `details.rule` of the
 * `McpkitError` (`INVALID_CONFIG` at registration, `PROTOCOL` when a host resolves what a server sent).
 */
export type AppRule =
  | "no-link"
  | "ui-scheme"
  | "uri-size"
  | "meta-conflict"
  | "visibility"
  | "mime-type"
  | "single-content"
  | "uri-mismatch"
  | "body"
  | "body-size"
  | "csp"
  | "csp-entries"
  | "csp-entry-size"
  | "resource-meta";

/** An `McpkitError` whose message and `details.rule` name the broken rule. */
export function appRuleError(code: McpkitErrorCode, rule: AppRule, message: string): McpkitError {
  return new McpkitError(code, `${message} (rule: ${rule})`, { details: { rule } });
}

/** `INVALID_CONFIG` naming the option at fault. */
export function invalidOption(key: string, problem: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", `${key} ${problem}`, { details: { key } });
}

/** Checks that `options` is an object (or absent) with only `allowed` keys; returns it (or `{}`). */
export function checkKeys<T extends object>(
  name: string,
  options: T | undefined,
  allowed: readonly string[],
): Partial<T> {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw invalidOption(name, "must be an object");
  }
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) throw invalidOption(`${name}.${key}`, "is not an option");
  }
  return options;
}

/** A positive safe integer, or the fallback when absent. */
export function positiveInt(key: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw invalidOption(key, "must be a positive integer");
  }
  return value;
}

/** The bounds a view's definition and its resolution are checked against. */
export type ViewLimits = Pick<AppLimits, "resourceBytes" | "uriBytes" | "cspEntries" | "cspEntryBytes">;

/** The bounds a view's definition is checked against, read from the `limits` option at `path` (each defaults to {@link APP_LIMITS}). */
export function viewLimits(path: string, value: Partial<ViewLimits> | undefined): ViewLimits {
  const raw = checkKeys(path, value, ["resourceBytes", "uriBytes", "cspEntries", "cspEntryBytes"]);
  return {
    resourceBytes: positiveInt(`${path}.resourceBytes`, raw.resourceBytes, APP_LIMITS.resourceBytes),
    uriBytes: positiveInt(`${path}.uriBytes`, raw.uriBytes, APP_LIMITS.uriBytes),
    cspEntries: positiveInt(`${path}.cspEntries`, raw.cspEntries, APP_LIMITS.cspEntries),
    cspEntryBytes: positiveInt(`${path}.cspEntryBytes`, raw.cspEntryBytes, APP_LIMITS.cspEntryBytes),
  };
}
