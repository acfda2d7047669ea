import { fromBase64 } from "../jsonrpc/base64.js";
import type { McpkitErrorCode } from "../jsonrpc/errors.js";
import { APP_MIME_TYPE } from "./constants.js";
import { appRuleError } from "./errors.js";
import { byteLength, checkResourceUiMeta } from "./meta.js";
import type { UiResourceMeta } from "./types.js";

/** The bounds a `ui://` content item is checked against. */
export interface ContentLimits {
  resourceBytes: number;
  cspEntries: number;
  cspEntryBytes: number;
}

/** A checked `ui://` content item: its HTML (decoded from `blob` if sent so) and its `_meta.ui`, if any. */
export interface CheckedContent {
  html: string;
  ui: UiResourceMeta | undefined;
}

const fatal = new TextDecoder("utf-8", { fatal: true });

/**
 * Checks one content item of a `ui://` read against 1.4: `uri` equal to the one requested, `mimeType` exactly
 * `text/html;profile=mcp-app`, one non-empty body (`text` or base64 `blob` of UTF-8) of at most `resourceBytes`,
 * and a well-formed `_meta.ui`.
 */
export function checkUiContent(
  item: unknown,
  requestedUri: string,
  code: McpkitErrorCode,
  limits: ContentLimits,
): CheckedContent {
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    throw appRuleError(code, "body", "the content item must be an object");
  }
  const content = item as { [key: string]: unknown };
  if (content.uri !== requestedUri) {
    throw appRuleError(
      code,
      "uri-mismatch",
      `the content's uri ${JSON.stringify(content.uri)} is not the requested ${JSON.stringify(requestedUri)}`,
    );
  }
  if (content.mimeType !== APP_MIME_TYPE) {
    throw appRuleError(
      code,
      "mime-type",
      `the content's mimeType ${JSON.stringify(content.mimeType)} is not exactly ${APP_MIME_TYPE}`,
    );
  }
  const hasText = content.text !== undefined;
  const hasBlob = content.blob !== undefined;
  if (hasText === hasBlob) throw appRuleError(code, "body", "the content must have either text or blob");
  let html: string;
  if (hasText) {
    if (typeof content.text !== "string") throw appRuleError(code, "body", "text must be a string");
    const size = byteLength(content.text);
    if (size > limits.resourceBytes) throw bodySize(code, limits.resourceBytes, size);
    html = content.text;
  } else {
    if (typeof content.blob !== "string") throw appRuleError(code, "body", "blob must be a string");
    // Base64 is 4/3 of the bytes: a blob this long is over the limit without decoding it.
    if (content.blob.length > Math.ceil(limits.resourceBytes / 3) * 4 + 4) {
      throw bodySize(code, limits.resourceBytes, Math.floor((content.blob.length * 3) / 4), true);
    }
    const bytes = fromBase64(content.blob);
    if (bytes === undefined) throw appRuleError(code, "body", "blob is not valid base64");
    if (bytes.length > limits.resourceBytes) throw bodySize(code, limits.resourceBytes, bytes.length);
    try {
      html = fatal.decode(bytes);
    } catch {
      throw appRuleError(code, "body", "blob is not UTF-8 text");
    }
  }
  if (html.trim() === "") throw appRuleError(code, "body", "the HTML body is empty");
  const meta = content._meta;
  let ui: UiResourceMeta | undefined;
  if (meta !== undefined) {
    if (typeof meta !== "object" || meta === null || Array.isArray(meta)) {
      throw appRuleError(code, "resource-meta", "_meta must be an object");
    }
    const given = (meta as { [key: string]: unknown }).ui;
    if (given !== undefined) ui = checkResourceUiMeta(given, code, limits);
  }
  return { html, ui };
}

/** The `body-size` refusal: the option is `limits.resourceBytes` of `defineApp` / `resolveApp`. */
function bodySize(code: McpkitErrorCode, limit: number, size: number, approximate = false) {
  const what = approximate ? "the body (its base64 length, about)" : "the body";
  return appRuleError(code, "body-size", what, { option: "limits.resourceBytes", limit, size });
}
