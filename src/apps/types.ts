import type { Implementation } from "../protocol/types/common.js";
import type { ContentBlock } from "../protocol/types/content.js";
import type { Tool } from "../protocol/types/tools.js";

/** Who may see and call a tool: `"model"` (the agent) and/or `"app"` (views of the same server). */
export type AppVisibility = "model" | "app";

/** A tool's `_meta.ui` (`McpUiToolMeta`). */
export interface UiToolMeta {
  resourceUri: string;
  /** Default `["model", "app"]`. */
  visibility?: AppVisibility[];
}

/** `_meta.ui.csp` of a `ui://` resource: declarations, never grants. */
export interface UiCsp {
  /** fetch/XHR/WebSocket origins: `connect-src`. */
  connectDomains?: string[];
  /** Script, style, image, font and media origins (`https://*.example.com` allowed). */
  resourceDomains?: string[];
  /** Nested iframes: `frame-src` (absent: `'none'`). */
  frameDomains?: string[];
  /** `base-uri` (absent: `'self'`). */
  baseUriDomains?: string[];
}

/** `_meta.ui.permissions`: Permission Policy features a view asks for. */
export interface UiPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/** A resource's `_meta.ui` (`McpUiResourceMeta`); unknown members are kept. */
export interface UiResourceMeta {
  csp?: UiCsp;
  permissions?: UiPermissions;
  /** A dedicated sandbox origin, in the host's own format. */
  domain?: string;
  /** `true`: the host draws a border; `false`: none; absent: the host decides. */
  prefersBorder?: boolean;
  [key: string]: unknown;
}

/** What a client declares under `extensions["io.modelcontextprotocol/ui"]`. */
export interface UiClientCapability {
  mimeTypes?: string[];
  [key: string]: unknown;
}

/** A view's display modes. */
export type DisplayMode = "inline" | "fullscreen" | "pip";

/** `appCapabilities` of `ui/initialize`. */
export interface AppCapabilities {
  experimental?: { [key: string]: object };
  tools?: { listChanged?: boolean };
  availableDisplayModes?: DisplayMode[];
  [key: string]: unknown;
}

/** Content kinds a host accepts for `ui/message` or `ui/update-model-context`. */
export interface ContentModalities {
  text?: object;
  image?: object;
  audio?: object;
  resource?: object;
  resourceLink?: object;
  structuredContent?: object;
}

/** `hostCapabilities` of the `ui/initialize` answer. */
export interface HostCapabilities {
  experimental?: { [key: string]: object };
  openLinks?: object;
  downloadFile?: object;
  serverTools?: { listChanged?: boolean };
  serverResources?: { listChanged?: boolean };
  logging?: object;
  /** What the host actually applied: the same shapes as the resource's `csp` and `permissions`. */
  sandbox?: { permissions?: UiPermissions; csp?: UiCsp };
  updateModelContext?: ContentModalities;
  message?: ContentModalities;
  sampling?: { tools?: object };
  [key: string]: unknown;
}

/** `hostContext`: every member optional, unknown ones kept. */
export interface HostContext {
  toolInfo?: { id?: string | number; tool: Tool };
  theme?: "light" | "dark";
  styles?: { variables?: { [name: string]: string | undefined }; css?: { fonts?: string } };
  displayMode?: DisplayMode;
  availableDisplayModes?: DisplayMode[];
  containerDimensions?: { height?: number; maxHeight?: number; width?: number; maxWidth?: number };
  locale?: string;
  timeZone?: string;
  userAgent?: string;
  platform?: "web" | "desktop" | "mobile";
  deviceCapabilities?: { touch?: boolean; hover?: boolean };
  safeAreaInsets?: { top: number; right: number; bottom: number; left: number };
  [key: string]: unknown;
}

/** `ui/initialize` params. */
export interface UiInitializeParams {
  protocolVersion: string;
  appInfo: Implementation;
  appCapabilities: AppCapabilities;
}

/** The `ui/initialize` answer. */
export interface UiInitializeResult {
  protocolVersion: string;
  hostInfo: Implementation;
  hostCapabilities: HostCapabilities;
  hostContext: HostContext;
  [key: string]: unknown;
}

/** `ui/update-model-context` params: each call replaces the previous context. */
export interface ModelContextUpdate {
  content?: ContentBlock[];
  structuredContent?: { [key: string]: unknown };
}
