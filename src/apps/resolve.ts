import { checkOptions } from "../jsonrpc/config-check.js";
import type { Resource } from "../protocol/types/resources.js";
import type { Tool } from "../protocol/types/tools.js";
import { APP_LIMITS, APP_MIME_TYPE } from "./constants.js";
import { checkUiContent } from "./content.js";
import { appRuleError, viewLimits } from "./errors.js";
import { checkResourceUiMeta, toolUiLink, visibilityOf } from "./meta.js";
import type { AppVisibility, UiResourceMeta } from "./types.js";

/** What {@link resolveApp} needs of an MCP client: one `readResource` (mcpkit's `Client` has it). */
export interface AppResourceReader {
  /** Reads one resource. */
  readResource(
    uri: string,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<{ contents: readonly unknown[] }>;
}

/** Options of {@link resolveApp}; unknown keys are refused. */
export interface ResolveAppOptions {
  /** The resource's `resources/list` entry, whose `_meta.ui` is the fallback when the content has none. */
  listing?: Resource;
  /** Bounds (defaults: {@link APP_LIMITS}). */
  limits?: { resourceBytes?: number; uriBytes?: number; cspEntries?: number; cspEntryBytes?: number };
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** A tool's view as a host resolved it: ready to render in a sandbox built from `ui`. */
export interface ResolvedApp {
  readonly tool: Tool;
  readonly resourceUri: string;
  readonly visibility: readonly AppVisibility[];
  /** The content item as the server sent it, unknown members included. */
  readonly content: { readonly [key: string]: unknown };
  /** The HTML (decoded when sent as a blob). */
  readonly html: string;
  /** The content item's `_meta.ui`, else the listing's; `{}` when neither has one. */
  readonly ui: UiResourceMeta;
}

/**
 * Resolves a tool's view with exactly one `resources/read` of its linked `ui://` URI, checking every rule of the
 * Apps spec (1.3, 1.4) on the way: the link (nested or flat, never both different), the scheme, one content item
 * whose `uri` is the one requested, the exact MIME type, one body within `resourceBytes`, a well-formed `_meta.ui`
 * within the CSP bounds. A broken rule rejects with `McpkitError` `PROTOCOL` (`details.rule` names it); a tool
 * without a link rejects with `UNSUPPORTED` (`rule: "no-link"`, render it as a plain tool); the read's own error
 * (a missing resource, a timeout) rejects as the client gave it.
 *
 * @example
 * const app = await resolveApp(client, tool);
 * iframe.srcdoc = app.html;
 */
export async function resolveApp(
  client: AppResourceReader,
  tool: Tool,
  options?: ResolveAppOptions,
): Promise<ResolvedApp> {
  const opts = checkOptions(options, ["listing", "limits", "signal", "timeoutMs"], "options");
  const limits = viewLimits("options.limits", opts.limits);
  const link = toolUiLink(tool._meta, "PROTOCOL");
  if (link === undefined)
    throw appRuleError("UNSUPPORTED", "no-link", `the tool ${tool.name} links no ui:// view`);
  if (new TextEncoder().encode(link.resourceUri).length > limits.uriBytes) {
    throw appRuleError("PROTOCOL", "uri-size", `the URI is over ${limits.uriBytes} bytes`);
  }
  const listing = opts.listing;
  if (listing !== undefined && listing.uri !== link.resourceUri) {
    throw appRuleError(
      "PROTOCOL",
      "uri-mismatch",
      `the listing is of ${listing.uri}, not ${link.resourceUri}`,
    );
  }
  if (listing?.mimeType !== undefined && listing.mimeType !== APP_MIME_TYPE) {
    throw appRuleError("PROTOCOL", "mime-type", `the listing's mimeType is not exactly ${APP_MIME_TYPE}`);
  }
  const request: { signal?: AbortSignal; timeoutMs?: number } = {};
  if (opts.signal !== undefined) request.signal = opts.signal;
  if (opts.timeoutMs !== undefined) request.timeoutMs = opts.timeoutMs;
  const result = await client.readResource(link.resourceUri, request);
  const contents = result?.contents;
  if (!Array.isArray(contents) || contents.length !== 1) {
    throw appRuleError(
      "PROTOCOL",
      "single-content",
      `the read of ${link.resourceUri} must answer exactly one content item, got ${Array.isArray(contents) ? contents.length : "none"}`,
    );
  }
  const item = contents[0] as { [key: string]: unknown };
  const checked = checkUiContent(item, link.resourceUri, "PROTOCOL", limits);
  const fallback = listing?._meta?.ui;
  const ui = checked.ui ?? (fallback === undefined ? {} : checkResourceUiMeta(fallback, "PROTOCOL", limits));
  return Object.freeze({
    tool,
    resourceUri: link.resourceUri,
    visibility: Object.freeze(link.visibility ?? visibilityOf(tool)),
    content: item,
    html: checked.html,
    ui,
  });
}
