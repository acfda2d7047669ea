import { McpkitError } from "../jsonrpc/errors.js";
import { SKILL_LIMITS } from "./constants.js";

/** `INVALID_CONFIG` naming the option at fault. */
export function invalidConfig(key: string, problem: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", `${key} ${problem}`, { details: { key } });
}

/** Checks that `options` is an object (or absent) with only `allowed` keys; returns it (or `{}`). */
export function checkOptionKeys<T extends object>(
  name: string,
  options: T | undefined,
  allowed: readonly string[],
): T | Record<string, never> {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw invalidConfig(name, "must be an object");
  }
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) throw invalidConfig(`${name}.${key}`, "is not an option");
  }
  return options;
}

/** A positive safe integer, or the fallback when absent. */
export function positiveInteger(key: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw invalidConfig(key, "must be a positive integer");
  }
  return value;
}

/** The per-skill bounds of `options.limits` (`maxResources`, `maxTotalBytes`), defaulting to SEP-2640's. */
export function skillLimitOptions(limits: { maxResources?: unknown; maxTotalBytes?: unknown } | undefined): {
  maxResources: number;
  maxTotalBytes: number;
} {
  const given = checkOptionKeys("options.limits", limits, ["maxResources", "maxTotalBytes"]);
  return {
    maxResources: positiveInteger(
      "options.limits.maxResources",
      given.maxResources,
      SKILL_LIMITS.resourcesPerSkill,
    ),
    maxTotalBytes: positiveInteger(
      "options.limits.maxTotalBytes",
      given.maxTotalBytes,
      SKILL_LIMITS.bytesPerSkill,
    ),
  };
}
