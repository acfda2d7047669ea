import { checkOptions } from "../jsonrpc/config-check.js";
import type { JsonSchema } from "../protocol/types/tools.js";
import type { SchemaInput, ToolDefinition } from "../server/index.js";
import { APP_LIMITS, APP_MIME_TYPE, RESOURCE_URI_META_KEY } from "./constants.js";
import { checkUiContent } from "./content.js";
import { appRuleError, viewLimits } from "./errors.js";
import { checkResourceUiMeta, checkUiUri, checkVisibility, frozenCopy, toolUiLink } from "./meta.js";
import type { AppVisibility, UiResourceMeta } from "./types.js";

/** The `ui://` resource's listing entry (`resources/list`); unknown members are kept. */
export interface AppResourceEntry {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  /** Defaults to (and must be) `text/html;profile=mcp-app`. */
  mimeType?: string;
  _meta?: { [key: string]: unknown };
  [key: string]: unknown;
}

/** The content item `resources/read` answers with; `uri` and `mimeType` default to the resource's. */
export type AppContentInput = {
  uri?: string;
  mimeType?: string;
  _meta?: { ui?: UiResourceMeta; [key: string]: unknown };
  [key: string]: unknown;
} & ({ text: string; blob?: undefined } | { blob: string; text?: undefined });

/** The frozen content item of an {@link AppDefinition}. */
export interface AppContent {
  readonly uri: string;
  readonly mimeType: typeof APP_MIME_TYPE;
  readonly text?: string;
  readonly blob?: string;
  readonly _meta?: { readonly ui?: UiResourceMeta; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** What {@link defineApp} takes. */
export interface AppInput<I extends SchemaInput = JsonSchema, O extends SchemaInput | undefined = undefined> {
  /** The tool; its `_meta` is kept and gets `ui.resourceUri` (and the flat key) from the resource. */
  tool: ToolDefinition<I, O>;
  /** Who sees and calls the tool (default: `["model", "app"]`, written only when given). */
  visibility?: AppVisibility[];
  resource: AppResourceEntry;
  content: AppContentInput;
  /** Bounds checked at definition (defaults: {@link APP_LIMITS}). */
  limits?: { resourceBytes?: number; uriBytes?: number; cspEntries?: number; cspEntryBytes?: number };
}

/** One app: a tool linked to its `ui://` resource and that resource's content, checked and frozen. */
export interface AppDefinition<
  I extends SchemaInput = JsonSchema,
  O extends SchemaInput | undefined = undefined,
> {
  readonly tool: Readonly<ToolDefinition<I, O>>;
  readonly resource: Readonly<AppResourceEntry> & { readonly mimeType: typeof APP_MIME_TYPE };
  readonly content: AppContent;
  /** The HTML (decoded when the content is a blob). */
  readonly html: string;
}

/**
 * Checks and freezes an app (throws `McpkitError` `INVALID_CONFIG`, `details.rule` naming the rule): the
 * resource URI is `ui://` and at most `uriBytes`; the MIME type is exactly `text/html;profile=mcp-app`; the
 * content's URI is the resource's; one body of at most `resourceBytes`; CSP lists of at most `cspEntries` entries
 * of `cspEntryBytes` each. The tool gets `_meta.ui.resourceUri` and the deprecated flat `_meta["ui/resourceUri"]`;
 * a link it already has must name the same URI. Unknown members are kept.
 *
 * @example
 * const clock = defineApp({
 *   tool: { name: "clock", inputSchema: { type: "object" } },
 *   resource: { uri: "ui://clock/view", name: "clock" },
 *   content: { text: "<!doctype html><p>now</p>", _meta: { ui: { prefersBorder: true } } },
 * });
 */
export function defineApp<I extends SchemaInput = JsonSchema, O extends SchemaInput | undefined = undefined>(
  input: AppInput<I, O>,
): AppDefinition<I, O> {
  const given = checkOptions(input, ["tool", "visibility", "resource", "content", "limits"], "app");
  const limits = viewLimits("app.limits", given.limits);
  const { tool, resource, content } = given;
  if (typeof tool !== "object" || tool === null || typeof tool.name !== "string" || tool.name === "") {
    throw appRuleError("INVALID_CONFIG", "no-link", "app.tool must be a tool with a name");
  }
  if (typeof resource !== "object" || resource === null || typeof resource.name !== "string") {
    throw appRuleError("INVALID_CONFIG", "no-link", "app.resource must have a uri and a name");
  }
  const uri = checkUiUri(resource.uri, "INVALID_CONFIG", limits.uriBytes);
  if (resource.mimeType !== undefined && resource.mimeType !== APP_MIME_TYPE) {
    throw appRuleError(
      "INVALID_CONFIG",
      "mime-type",
      `app.resource.mimeType must be exactly ${APP_MIME_TYPE}`,
    );
  }
  if (typeof content !== "object" || content === null) {
    throw appRuleError("INVALID_CONFIG", "body", "app.content must be a content item");
  }
  const item = { ...content, uri: content.uri ?? uri, mimeType: content.mimeType ?? APP_MIME_TYPE };
  const checked = checkUiContent(item, uri, "INVALID_CONFIG", limits);
  if (resource._meta !== undefined) checkListingMeta(resource._meta, limits);

  const meta: { [key: string]: unknown } = { ...(tool._meta ?? {}) };
  const existing = toolUiLink(meta, "INVALID_CONFIG");
  if (existing !== undefined && existing.resourceUri !== uri) {
    throw appRuleError(
      "INVALID_CONFIG",
      "meta-conflict",
      `app.tool links ${existing.resourceUri}, not the resource ${uri}`,
    );
  }
  const ui: { [key: string]: unknown } =
    typeof meta.ui === "object" && meta.ui !== null ? { ...(meta.ui as object) } : {};
  ui.resourceUri = uri;
  if (given.visibility !== undefined) ui.visibility = checkVisibility(given.visibility, "INVALID_CONFIG");
  meta.ui = ui;
  meta[RESOURCE_URI_META_KEY] = uri;

  // The schemas stay as given: a JSON Schema validator may annotate them (a frozen one would fail at call time).
  const frozenTool: { [key: string]: unknown } = { ...tool, _meta: frozenCopy(meta) };
  return Object.freeze({
    tool: Object.freeze(frozenTool) as unknown as ToolDefinition<I, O>,
    resource: frozenCopy({ ...resource, mimeType: APP_MIME_TYPE as typeof APP_MIME_TYPE }),
    content: frozenCopy(item) as unknown as AppContent,
    html: checked.html,
  });
}

/** A listing entry's `_meta` must be an object; its `ui`, when present, is checked like the content's. */
function checkListingMeta(meta: unknown, limits: { cspEntries: number; cspEntryBytes: number }): void {
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) {
    throw appRuleError("INVALID_CONFIG", "resource-meta", "app.resource._meta must be an object");
  }
  const ui = (meta as { [key: string]: unknown }).ui;
  if (ui !== undefined) checkResourceUiMeta(ui, "INVALID_CONFIG", limits);
}
