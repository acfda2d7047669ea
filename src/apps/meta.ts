import type { McpkitErrorCode } from "../jsonrpc/errors.js";
import { APP_LIMITS, RESOURCE_URI_META_KEY } from "./constants.js";
import { appRuleError } from "./errors.js";
import type { AppVisibility, UiResourceMeta, UiToolMeta } from "./types.js";

const encoder = new TextEncoder();

/** UTF-8 bytes of a string. */
export function byteLength(text: string): number {
  return encoder.encode(text).length;
}

function isRecord(value: unknown): value is { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Checks a `ui://` URI: a string, the scheme, something after it, at most `uriBytes`. */
export function checkUiUri(
  uri: unknown,
  code: McpkitErrorCode,
  uriBytes: number = APP_LIMITS.uriBytes,
): string {
  if (typeof uri !== "string" || !uri.startsWith("ui://") || uri.length === "ui://".length) {
    throw appRuleError(code, "ui-scheme", `${JSON.stringify(uri)} is not a ui:// URI`);
  }
  if (byteLength(uri) > uriBytes) {
    throw appRuleError(code, "uri-size", `the URI is over ${uriBytes} bytes`);
  }
  return uri;
}

/**
 * The UI link of a tool's `_meta`: `_meta.ui.resourceUri`, else the deprecated flat `_meta["ui/resourceUri"]`;
 * both present must be equal. `undefined` for a plain tool. Throws (`code`, `details.rule`) for a link that is not
 * `ui://`, a flat value that differs from the nested one, or a bad `visibility`.
 *
 * @example
 * toolUiLink({ _meta: { ui: { resourceUri: "ui://clock/view" } } }); // { resourceUri: "ui://clock/view" }
 */
export function toolUiLink(
  meta: { [key: string]: unknown } | undefined,
  code: McpkitErrorCode = "PROTOCOL",
): UiToolMeta | undefined {
  if (meta === undefined) return undefined;
  const ui = meta.ui;
  const nested = isRecord(ui) ? ui.resourceUri : undefined;
  const flat = meta[RESOURCE_URI_META_KEY];
  if (nested !== undefined && flat !== undefined && nested !== flat) {
    throw appRuleError(
      code,
      "meta-conflict",
      `_meta["${RESOURCE_URI_META_KEY}"] ${JSON.stringify(flat)} differs from _meta.ui.resourceUri ${JSON.stringify(nested)}`,
    );
  }
  const uri = nested ?? flat;
  const visibility = isRecord(ui) ? ui.visibility : undefined;
  if (uri === undefined) {
    if (visibility !== undefined) checkVisibility(visibility, code);
    return undefined;
  }
  const link: UiToolMeta = { resourceUri: checkUiUri(uri, code) };
  if (visibility !== undefined) link.visibility = checkVisibility(visibility, code);
  return link;
}

/** Checks `visibility`: a non-empty array of `"model"` / `"app"`, each at most once. */
export function checkVisibility(value: unknown, code: McpkitErrorCode): AppVisibility[] {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((v) => v === "model" || v === "app") ||
    new Set(value).size !== value.length
  ) {
    throw appRuleError(
      code,
      "visibility",
      `visibility must list "model" and/or "app", got ${JSON.stringify(value)}`,
    );
  }
  return [...value] as AppVisibility[];
}

/**
 * A tool's visibility: its `_meta.ui.visibility`, or `["model", "app"]` when absent. Fails closed: unknown values
 * are dropped, and a value that is not an array grants nothing.
 */
export function visibilityOf(tool: { _meta?: { [key: string]: unknown } | undefined }): AppVisibility[] {
  const ui = tool._meta?.ui;
  const given = isRecord(ui) ? ui.visibility : undefined;
  if (given === undefined) return ["model", "app"];
  if (!Array.isArray(given)) return [];
  return (["model", "app"] as const).filter((v) => given.includes(v));
}

const CSP_LISTS = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"] as const;
const PERMISSIONS = ["camera", "microphone", "geolocation", "clipboardWrite"] as const;

/**
 * Checks a resource's `_meta.ui`: `csp` lists of strings, at most `cspEntries` entries of at most `cspEntryBytes`
 * bytes each; `permissions` objects; `domain` a string; `prefersBorder` a boolean. Unknown members are kept.
 */
export function checkResourceUiMeta(
  value: unknown,
  code: McpkitErrorCode,
  limits: { cspEntries: number; cspEntryBytes: number } = APP_LIMITS,
): UiResourceMeta {
  if (!isRecord(value)) throw appRuleError(code, "resource-meta", "_meta.ui must be an object");
  const { csp, permissions, domain, prefersBorder } = value;
  if (csp !== undefined) {
    if (!isRecord(csp)) throw appRuleError(code, "csp", "_meta.ui.csp must be an object");
    for (const list of CSP_LISTS) {
      const entries = csp[list];
      if (entries === undefined) continue;
      if (!Array.isArray(entries) || !entries.every((e) => typeof e === "string")) {
        throw appRuleError(code, "csp", `_meta.ui.csp.${list} must be an array of strings`);
      }
      if (entries.length > limits.cspEntries) {
        throw appRuleError(
          code,
          "csp-entries",
          `_meta.ui.csp.${list} has ${entries.length} entries, over ${limits.cspEntries}`,
        );
      }
      for (const entry of entries as string[]) {
        if (byteLength(entry) > limits.cspEntryBytes) {
          throw appRuleError(
            code,
            "csp-entry-size",
            `an entry of _meta.ui.csp.${list} is over ${limits.cspEntryBytes} bytes`,
          );
        }
      }
    }
  }
  if (permissions !== undefined) {
    if (!isRecord(permissions))
      throw appRuleError(code, "resource-meta", "_meta.ui.permissions must be an object");
    for (const name of PERMISSIONS) {
      if (permissions[name] !== undefined && !isRecord(permissions[name])) {
        throw appRuleError(code, "resource-meta", `_meta.ui.permissions.${name} must be an object`);
      }
    }
  }
  if (domain !== undefined && typeof domain !== "string") {
    throw appRuleError(code, "resource-meta", "_meta.ui.domain must be a string");
  }
  if (prefersBorder !== undefined && typeof prefersBorder !== "boolean") {
    throw appRuleError(code, "resource-meta", "_meta.ui.prefersBorder must be a boolean");
  }
  return value as UiResourceMeta;
}

/** A deep copy of a JSON value, frozen all the way down. */
export function frozenCopy<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  const copy: { [key: string]: unknown } | unknown[] = Array.isArray(value) ? [] : {};
  for (const [key, child] of Object.entries(value)) {
    (copy as { [key: string]: unknown })[key] = frozenCopy(child);
  }
  return Object.freeze(copy) as T;
}
