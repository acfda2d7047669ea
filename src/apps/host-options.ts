import type { Clock } from "../jsonrpc/clock.js";
import type { Implementation } from "../protocol/types/common.js";
import type { CallToolResult, Tool } from "../protocol/types/tools.js";
import type { BridgeLimits } from "./bridge-options.js";
import type { BridgeEndpoint } from "./endpoint.js";
import type { OpenLinkPolicy } from "./link-policy.js";
import type { BridgeProblem } from "./peer.js";
import type {
  DisplayMode,
  HostCapabilities,
  HostContext,
  ModelContextUpdate,
  UiCsp,
  UiPermissions,
} from "./types.js";

/** The MCP client of the server a view comes from, as much of it as the host forwards (mcpkit's `Client` fits). */
export interface AppHostClient {
  /** Calls a tool of the server. */
  callTool?(name: string, args?: { [key: string]: unknown }): Promise<CallToolResult>;
  /** Reads a resource of the server. */
  readResource?(uri: string): Promise<object>;
  /** Lists the server's resources. */
  listResources?(params?: { cursor?: string }): Promise<object>;
  /** Lists the server's resource templates. */
  listResourceTemplates?(params?: { cursor?: string }): Promise<object>;
  /** Lists the server's prompts. */
  listPrompts?(params?: { cursor?: string }): Promise<object>;
  /** Lists every tool of the server (for the visibility rule). */
  listAllTools?(): Promise<Tool[]>;
}

/** The view's document as a sandbox proxy gets it (`ui/notifications/sandbox-resource-ready`). */
export interface SandboxResource {
  /** The view's HTML. */
  html: string;
  /** The inner iframe's `sandbox` attribute, when the host overrides the proxy's default. */
  sandbox?: string;
  /** The CSP origins the host applied (`appSandbox(...).applied.csp`). */
  csp?: UiCsp;
  /** The permissions the host granted. */
  permissions?: UiPermissions;
}

/** Options of {@link AppHost}; unknown keys are refused. */
export interface AppHostOptions {
  endpoint: BridgeEndpoint;
  hostInfo: Implementation;
  /** The view's server connection: its `tools/call`, `resources/*` and `prompts/list` are forwarded there only. */
  client?: AppHostClient;
  /**
   * That server's tools, for the visibility rule (default: `client.listAllTools()`, fetched once). A view may
   * call only a tool of this list whose visibility includes `"app"`.
   */
  tools?: readonly Tool[] | (() => readonly Tool[] | Promise<readonly Tool[]>);
  hostContext?: HostContext;
  /** Merged over the capabilities derived from the callbacks given. */
  hostCapabilities?: HostCapabilities;
  /** What the host applied (`appSandbox(...).applied`), reported in `hostCapabilities.sandbox`. */
  sandbox?: { csp?: UiCsp; permissions?: UiPermissions };
  /** The open-link policy (default: absolute https only). */
  linkPolicy?: OpenLinkPolicy;
  /** Opens a URL that passed the policy; return `false` when the user declined. Without it links are refused. */
  onOpenLink?: (url: string) => boolean | undefined | Promise<boolean | undefined>;
  /** `ui/message`: content is always an array (a lone block is wrapped). */
  onMessage?: (message: { role: "user"; content: unknown[] }) => void | Promise<void>;
  /** `ui/update-model-context`: each update replaces the previous one (also kept in `modelContext`). */
  onModelContext?: (update: ModelContextUpdate) => void;
  /** `ui/request-display-mode`: the mode now in effect (default: the current one). */
  onDisplayMode?: (mode: DisplayMode) => DisplayMode | Promise<DisplayMode>;
  /** `ui/notifications/size-changed`: the view's size (also kept in `size`). */
  onSizeChanged?: (size: { width?: number; height?: number }) => void;
  /** `notifications/message` from the view. */
  onLog?: (params: { [key: string]: unknown }) => void;
  /** `ui/notifications/request-teardown`: the view asks to be closed; call `teardown()` to agree. */
  onRequestTeardown?: () => void;
  /** `ui/download-file`: the files the view offers. */
  onDownloadFile?: (params: { contents: unknown[] }) => void | Promise<void>;
  /** `sampling/createMessage` from the view: the host's own model answers. */
  onSampling?: (params: { [key: string]: unknown }) => Promise<object>;
  /** What was received and ignored or refused (bounds, non-JSON-RPC data, lifecycle), for logs. */
  onProblem?: (problem: BridgeProblem) => void;
  /** Refuse a `ui/initialize` of another version instead of answering with `2026-01-26` (default false). */
  strictVersion?: boolean;
  limits?: BridgeLimits;
  /** Deadline of the host's own requests to the view (default 30,000 ms). */
  requestTimeoutMs?: number;
  /**
   * How long `teardown()` waits for the view's answer to `ui/resource-teardown` before tearing it down anyway
   * (default 5,000 ms).
   */
  teardownTimeoutMs?: number;
  /**
   * A web host's sandbox proxy (an iframe on another origin that renders the view inside it and relays messages):
   * what the host sends it in `ui/notifications/sandbox-resource-ready` when it sends
   * `ui/notifications/sandbox-proxy-ready`, once. Without it, a proxy's ready notice is reported to `onProblem`.
   */
  sandboxResource?: SandboxResource;
  /** The clock of the bridge's deadlines (default: the runtime's timers); tests pass a manual one. */
  clock?: Clock;
}
