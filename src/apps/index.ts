/**
 * `mcpkit/apps`: MCP Apps (SEP-1865, `io.modelcontextprotocol/ui`). Server side (app definitions and their
 * registration), host side (resolving a tool's view, visibility, the sandbox's CSP) and both ends of the
 * host↔view bridge over `postMessage`. Platform-neutral: no Node API, so the host and view halves run in a browser.
 */

export type { Clock } from "../jsonrpc/clock.js";
export { AppHost, type TeardownOutcome } from "./app-host.js";
export { AppView, type AppViewOptions, type HostAnswer, type SizeSource } from "./app-view.js";
export type { BoundsProblem } from "./bounds.js";
export type { BridgeLimits } from "./bridge-options.js";
export {
  APP_LIMITS,
  APP_MIME_TYPE,
  APPS_EXTENSION_ID,
  type AppLimits,
  BRIDGE_METHODS,
  BRIDGE_PROTOCOL_VERSION,
  RESOURCE_URI_META_KEY,
  SUPPORTED_BRIDGE_VERSIONS,
} from "./constants.js";
export {
  type AppContent,
  type AppContentInput,
  type AppDefinition,
  type AppInput,
  type AppResourceEntry,
  defineApp,
} from "./definition.js";
export { documentSize } from "./document-size.js";
export {
  type BridgeEndpoint,
  type MessageEventLike,
  type MessageEventSourceLike,
  type MessagePortLike,
  portEndpoint,
  type WindowEndpointOptions,
  type WindowLike,
  windowEndpoint,
} from "./endpoint.js";
export type { AppRule } from "./errors.js";
export type { AppHostClient, AppHostOptions, SandboxResource } from "./host-options.js";
export { BridgeLifecycle, type BridgePhase, type CallPhase } from "./lifecycle.js";
export { checkOpenLink, type OpenLinkPolicy, type OpenLinkVerdict } from "./link-policy.js";
export { toolUiLink, visibilityOf } from "./meta.js";
export type { BridgeProblem } from "./peer.js";
export { type AppResourceReader, type ResolveAppOptions, type ResolvedApp, resolveApp } from "./resolve.js";
export {
  type AppSandbox,
  type AppSandboxOptions,
  allowAttribute,
  appSandbox,
  isCspOrigin,
} from "./sandbox.js";
export {
  type AppRegistration,
  appsHandler,
  appsPlugin,
  appTool,
  supportsApps,
  uiCapability,
  uiClientCapability,
} from "./server.js";
export { ToolCallCycle, type ToolCallSender } from "./tool-call.js";
export type {
  AppCapabilities,
  AppVisibility,
  ContentModalities,
  DisplayMode,
  HostCapabilities,
  HostContext,
  ModelContextUpdate,
  UiClientCapability,
  UiCsp,
  UiInitializeParams,
  UiInitializeResult,
  UiPermissions,
  UiResourceMeta,
  UiToolMeta,
} from "./types.js";
export { isAppCallable, isAppOnly, isModelOnly, modelVisibleTools } from "./visibility.js";
