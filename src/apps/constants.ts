import { ENVELOPE_BYTES, HTTP_MESSAGE_BYTES } from "../protocol/limits.js";

/** The extension id of MCP Apps (SEP-1865) under `capabilities.extensions`. */
export const APPS_EXTENSION_ID = "io.modelcontextprotocol/ui";

/** The one MIME type of an app's `ui://` resource (exact match). */
export const APP_MIME_TYPE = "text/html;profile=mcp-app";

/** The deprecated flat `_meta` key of a tool's resource URI, written alongside `_meta.ui.resourceUri`. */
export const RESOURCE_URI_META_KEY = "ui/resourceUri";

/** The host↔view bridge protocol version (`ui/initialize`), independent of the MCP era. */
export const BRIDGE_PROTOCOL_VERSION = "2026-01-26";

/** The bridge versions a host answers with as they are; any other is answered with {@link BRIDGE_PROTOCOL_VERSION}. */
export const SUPPORTED_BRIDGE_VERSIONS: readonly string[] = [BRIDGE_PROTOCOL_VERSION];

/**
 * mcpkit's bounds on apps (the spec sets none): the bytes of a `ui://` body, of one bridge message and of a URI,
 * the nesting and node count of a bridge message, and the entries of each CSP list and their bytes. The body and
 * message bounds fit the HTTP defaults: a view a default HTTP server can send (8,000,000 bytes; real views are
 * several MB) resolves, and a tool result it can send is forwarded to the view with its bridge envelope.
 */
export const APP_LIMITS = {
  resourceBytes: HTTP_MESSAGE_BYTES,
  messageBytes: HTTP_MESSAGE_BYTES + ENVELOPE_BYTES,
  uriBytes: 2_048,
  jsonDepth: 32,
  jsonNodes: 10_000,
  cspEntries: 64,
  cspEntryBytes: 2_048,
} as const;

/** The limits of {@link APP_LIMITS}, as options take them. */
export interface AppLimits {
  resourceBytes: number;
  messageBytes: number;
  uriBytes: number;
  jsonDepth: number;
  jsonNodes: number;
  cspEntries: number;
  cspEntryBytes: number;
}

/** Method names of the bridge (stable `2026-01-26` plus what ext-apps 2.0.4 sends). */
export const BRIDGE_METHODS = {
  initialize: "ui/initialize",
  initialized: "ui/notifications/initialized",
  openLink: "ui/open-link",
  message: "ui/message",
  requestDisplayMode: "ui/request-display-mode",
  updateModelContext: "ui/update-model-context",
  downloadFile: "ui/download-file",
  sizeChanged: "ui/notifications/size-changed",
  requestTeardown: "ui/notifications/request-teardown",
  toolInputPartial: "ui/notifications/tool-input-partial",
  toolInput: "ui/notifications/tool-input",
  toolResult: "ui/notifications/tool-result",
  toolCancelled: "ui/notifications/tool-cancelled",
  hostContextChanged: "ui/notifications/host-context-changed",
  resourceTeardown: "ui/resource-teardown",
  sandboxProxyReady: "ui/notifications/sandbox-proxy-ready",
  sandboxResourceReady: "ui/notifications/sandbox-resource-ready",
} as const;
