import { checkOptions, positiveInteger } from "../jsonrpc/config-check.js";
import { SKILL_FILE_BYTES, SKILL_LIMITS } from "./constants.js";

/** The per-skill bounds of `options.limits` (`maxResources`, `maxTotalBytes`), defaulting to SEP-2640's. */
export function skillLimitOptions(
  limits: { maxResources?: unknown; maxTotalBytes?: unknown } | undefined,
  keys: readonly string[] = ["maxResources", "maxTotalBytes"],
): {
  maxResources: number;
  maxTotalBytes: number;
} {
  const given = checkOptions(limits, keys, "options.limits");
  return {
    maxResources: positiveInteger(
      given.maxResources,
      SKILL_LIMITS.resourcesPerSkill,
      "options.limits.maxResources",
    ),
    maxTotalBytes: positiveInteger(
      given.maxTotalBytes,
      SKILL_LIMITS.bytesPerSkill,
      "options.limits.maxTotalBytes",
    ),
  };
}

/** The per-file bound of a catalogue's `options.limits.maxFileBytes` (default {@link SKILL_FILE_BYTES}). */
export function skillFileLimitOption(limits: { maxFileBytes?: unknown } | undefined): number {
  return positiveInteger(limits?.maxFileBytes, SKILL_FILE_BYTES, "options.limits.maxFileBytes");
}
