import { checkOptions, positiveInteger } from "../jsonrpc/config-check.js";
import { SKILL_LIMITS } from "./constants.js";

/** The per-skill bounds of `options.limits` (`maxResources`, `maxTotalBytes`), defaulting to SEP-2640's. */
export function skillLimitOptions(limits: { maxResources?: unknown; maxTotalBytes?: unknown } | undefined): {
  maxResources: number;
  maxTotalBytes: number;
} {
  const given = checkOptions(limits, ["maxResources", "maxTotalBytes"], "options.limits");
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
