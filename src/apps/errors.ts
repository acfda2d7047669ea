import { checkOptions, positiveInteger } from "../jsonrpc/config-check.js";
import { McpkitError, type McpkitErrorCode } from "../jsonrpc/errors.js";
import { type LimitFacts, limitDetails, limitMessage } from "../jsonrpc/limit-error.js";
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

/**
 * An `McpkitError` whose message and `details.rule` name the broken rule; for a limit crossed, `facts` name the
 * option, its value and the size seen (in the message and in `details`).
 */
export function appRuleError(
  code: McpkitErrorCode,
  rule: AppRule,
  message: string,
  facts?: LimitFacts,
): McpkitError {
  if (facts === undefined) return new McpkitError(code, `${message} (rule: ${rule})`, { details: { rule } });
  return new McpkitError(code, `${limitMessage(message, facts)} (rule: ${rule})`, {
    details: limitDetails(facts, { rule }),
  });
}

/** The bounds a view's definition and its resolution are checked against. */
export type ViewLimits = Pick<AppLimits, "resourceBytes" | "uriBytes" | "cspEntries" | "cspEntryBytes">;

/** The bounds a view's definition is checked against, read from the `limits` option at `path` (each defaults to {@link APP_LIMITS}). */
export function viewLimits(path: string, value: Partial<ViewLimits> | undefined): ViewLimits {
  const raw = checkOptions(value, ["resourceBytes", "uriBytes", "cspEntries", "cspEntryBytes"], path);
  return {
    resourceBytes: positiveInteger(raw.resourceBytes, APP_LIMITS.resourceBytes, `${path}.resourceBytes`),
    uriBytes: positiveInteger(raw.uriBytes, APP_LIMITS.uriBytes, `${path}.uriBytes`),
    cspEntries: positiveInteger(raw.cspEntries, APP_LIMITS.cspEntries, `${path}.cspEntries`),
    cspEntryBytes: positiveInteger(raw.cspEntryBytes, APP_LIMITS.cspEntryBytes, `${path}.cspEntryBytes`),
  };
}
