import type { Clock } from "../jsonrpc/clock.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import { checkOptions, optionError } from "../jsonrpc/config-check.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import type { Implementation, LoggingLevel } from "../protocol/types/common.js";
import type { ContentBlock } from "../protocol/types/content.js";
import type { CallToolResult, Tool } from "../protocol/types/tools.js";
import { type BridgeLimits, bridgeBounds } from "./bridge-options.js";
import { BRIDGE_PROTOCOL_VERSION, BRIDGE_METHODS as M } from "./constants.js";
import type { BridgeEndpoint } from "./endpoint.js";
import { BridgeLifecycle } from "./lifecycle.js";
import { BridgePeer, type BridgeProblem } from "./peer.js";
import type {
  AppCapabilities,
  DisplayMode,
  HostCapabilities,
  HostContext,
  ModelContextUpdate,
  UiInitializeResult,
} from "./types.js";

/** A view's size, measured and observed (the browser helper `documentSize()` uses the document). */
export interface SizeSource {
  /** The current size in pixels. */
  measure(): { width: number; height: number };
  /** Calls `changed` whenever the size may have changed; returns the function that stops observing. */
  observe(changed: () => void): () => void;
}

/** How a host answered `ui/open-link`, `ui/message` or `ui/download-file`: a JSON-RPC error and `{isError: true}` alike. */
export interface HostAnswer {
  isError: boolean;
  /** The host's error message, when it refused with one. */
  message?: string;
}

/** Options of {@link AppView}; unknown keys are refused. */
export interface AppViewOptions {
  endpoint: BridgeEndpoint;
  appInfo: Implementation;
  appCapabilities?: AppCapabilities;
  /** `ui/notifications/tool-input`: the call's arguments. */
  onToolInput?: (args: { [key: string]: unknown }) => void;
  /** Best-effort partial arguments: never rely on them for anything critical. */
  onToolInputPartial?: (args: { [key: string]: unknown }) => void;
  /** `ui/notifications/tool-result`: the call's result. */
  onToolResult?: (result: CallToolResult) => void;
  /** `ui/notifications/tool-cancelled`. */
  onToolCancelled?: (reason: string | undefined) => void;
  /** The changed keys, and the merged context. */
  onHostContextChanged?: (changes: HostContext, context: HostContext) => void;
  /** The host is about to remove the view: save state; the host waits for this to return. */
  onTeardown?: (reason: string | undefined) => void | Promise<void>;
  /** Tools the view offers the host (declare `appCapabilities.tools`). */
  onCallTool?: (name: string, args: { [key: string]: unknown }) => CallToolResult | Promise<CallToolResult>;
  /** Lists the tools the view offers the host. */
  onListTools?: () => Tool[] | Promise<Tool[]>;
  /** What was received and dropped (bounds, lifecycle), for logs. */
  onProblem?: (problem: BridgeProblem) => void;
  /** Reports size changes after `connect()` (`ui/notifications/size-changed`), deduplicated. */
  autoResize?: SizeSource;
  limits?: BridgeLimits;
  /** Deadline of the view's requests (default 30,000 ms). */
  requestTimeoutMs?: number;
  /** The clock of the bridge's deadlines (default: the runtime's timers). */
  clock?: Clock;
}

const KEYS = [
  "endpoint",
  "appInfo",
  "appCapabilities",
  "onToolInput",
  "onToolInputPartial",
  "onToolResult",
  "onToolCancelled",
  "onHostContextChanged",
  "onTeardown",
  "onCallTool",
  "onListTools",
  "onProblem",
  "autoResize",
  "limits",
  "requestTimeoutMs",
  "clock",
] as const;

const DATA = new Set<string>([
  M.toolInputPartial,
  M.toolInput,
  M.toolResult,
  M.toolCancelled,
  M.hostContextChanged,
]);

/**
 * The view end of the bridge: what an app's page uses to talk to any host. `connect()` runs the handshake; the
 * handlers get tool input, results and context (a message the lifecycle of 1.7 forbids, such as a result before
 * any input, is dropped and reported to `onProblem`); the methods call the server through the host and ask the
 * host for messages, links, display modes and teardown.
 *
 * @example
 * const view = new AppView({
 *   endpoint: windowEndpoint({ target: window.parent, events: window }),
 *   appInfo: { name: "weather-view", version: "1.0.0" },
 *   onToolResult: (result) => render(result.structuredContent),
 * });
 * await view.connect();
 * await view.callServerTool("refresh", { city: "Paris" });
 */
export class AppView {
  private readonly peer: BridgePeer;
  private readonly lifecycle = new BridgeLifecycle();
  private readonly options: AppViewOptions;
  private result: UiInitializeResult | undefined;
  private context: HostContext = {};
  private stopResize: (() => void) | undefined;
  private lastSize = "";

  constructor(options: AppViewOptions) {
    const opts = checkOptions(options, KEYS, "options") as AppViewOptions;
    if (opts.endpoint === undefined || typeof opts.endpoint.post !== "function") {
      throw optionError("options.endpoint", "must be a BridgeEndpoint");
    }
    if (typeof opts.appInfo?.name !== "string" || typeof opts.appInfo.version !== "string") {
      throw optionError("options.appInfo", "must have a name and a version");
    }
    this.options = opts;
    this.peer = new BridgePeer(
      opts.endpoint,
      bridgeBounds("options", opts.limits, opts.requestTimeoutMs, opts.clock),
      {
        request: (method, params) => this.serve(method, params),
        notification: (method, params) => this.notified(method, params),
        problem: (problem) => opts.onProblem?.(problem),
      },
    );
  }

  /** The host's `ui/initialize` answer, once connected. */
  get host(): UiInitializeResult | undefined {
    return this.result;
  }

  /** The host's capabilities (`{}` before `connect()`). */
  get hostCapabilities(): HostCapabilities {
    return this.result?.hostCapabilities ?? {};
  }

  /** The host context, with every `host-context-changed` merged in. */
  get hostContext(): HostContext {
    return { ...this.context };
  }

  /**
   * Sends `ui/initialize` (`2026-01-26`), takes the host's answer, then sends `ui/notifications/initialized`
   * and, with `autoResize`, the first size.
   */
  async connect(): Promise<UiInitializeResult> {
    if (this.result !== undefined) throw new McpkitError("PROTOCOL", "the view is already connected");
    const answer = (await this.peer.request(M.initialize, {
      protocolVersion: BRIDGE_PROTOCOL_VERSION,
      appInfo: this.options.appInfo,
      appCapabilities: this.options.appCapabilities ?? {},
    })) as UiInitializeResult;
    if (typeof answer?.protocolVersion !== "string" || typeof answer.hostInfo !== "object") {
      throw new McpkitError("PROTOCOL", "the host's ui/initialize answer lacks protocolVersion or hostInfo");
    }
    this.result = answer;
    this.context = { ...(answer.hostContext ?? {}) };
    this.peer.notify(M.initialized);
    this.lifecycle.ready();
    const resize = this.options.autoResize;
    if (resize !== undefined) {
      this.reportSize();
      this.stopResize = resize.observe(() => this.reportSize());
    }
    return answer;
  }

  /** Calls a tool of the view's server through the host (`tools/call`). */
  async callServerTool(name: string, args: { [key: string]: unknown } = {}): Promise<CallToolResult> {
    return (await this.peer.request("tools/call", { name, arguments: args })) as CallToolResult;
  }

  /** Reads a resource of the view's server through the host. */
  async readServerResource(uri: string): Promise<{ contents: { [key: string]: unknown }[] }> {
    return (await this.peer.request("resources/read", { uri })) as { contents: { [key: string]: unknown }[] };
  }

  /** Lists the server's resources through the host. */
  async listServerResources(cursor?: string): Promise<{ resources: { [key: string]: unknown }[] }> {
    const params = cursor === undefined ? {} : { cursor };
    return (await this.peer.request("resources/list", params)) as { resources: { [key: string]: unknown }[] };
  }

  /** Asks the host to add a user message to the conversation (`ui/message`; a string is one text block). */
  sendMessage(content: string | ContentBlock[]): Promise<HostAnswer> {
    const blocks = typeof content === "string" ? [{ type: "text", text: content }] : content;
    return this.answer(M.message, { role: "user", content: blocks });
  }

  /** Replaces what the view tells the model (`ui/update-model-context`). */
  async updateModelContext(update: ModelContextUpdate): Promise<void> {
    await this.peer.request(M.updateModelContext, { ...update });
  }

  /** Asks the host to open a URL (`ui/open-link`); a refusal resolves with `isError: true`. */
  openLink(url: string): Promise<HostAnswer> {
    return this.answer(M.openLink, { url });
  }

  /** Asks the host to download files (`ui/download-file`). */
  downloadFile(contents: object[]): Promise<HostAnswer> {
    return this.answer(M.downloadFile, { contents });
  }

  /** Asks for a display mode; resolves with the mode in effect (which may differ). */
  async requestDisplayMode(mode: DisplayMode): Promise<DisplayMode> {
    const result = (await this.peer.request(M.requestDisplayMode, { mode })) as { mode?: DisplayMode };
    return result.mode ?? this.context.displayMode ?? "inline";
  }

  /** Asks the host to sample a message; refused without `hostCapabilities.sampling`. */
  async createSamplingMessage(params: { [key: string]: unknown }): Promise<{ [key: string]: unknown }> {
    if (this.hostCapabilities.sampling === undefined) {
      throw new McpkitError("UNSUPPORTED", "the host offers no sampling");
    }
    return (await this.peer.request("sampling/createMessage", params)) as { [key: string]: unknown };
  }

  /** Reports the view's size (`ui/notifications/size-changed`). */
  sendSizeChanged(size: { width: number; height: number }): void {
    this.peer.notify(M.sizeChanged, { width: size.width, height: size.height });
  }

  /** Sends a log message to the host (`notifications/message`). */
  log(level: LoggingLevel, data: unknown, logger?: string): void {
    this.peer.notify(
      "notifications/message",
      logger === undefined ? { level, data } : { level, data, logger },
    );
  }

  /** Asks the host to close the view (`ui/notifications/request-teardown`); the host decides. */
  requestTeardown(): void {
    this.peer.notify(M.requestTeardown, {});
  }

  /** Sends `notifications/tools/list_changed` for the view's own tools. */
  sendToolListChanged(): void {
    this.peer.notify("notifications/tools/list_changed", {});
  }

  /** Stops the bridge; pending requests reject with `CLOSED`. */
  close(): void {
    this.stopResize?.();
    this.peer.close();
  }

  private reportSize(): void {
    const size = this.options.autoResize?.measure();
    if (size === undefined) return;
    const key = `${size.width}x${size.height}`;
    if (key === this.lastSize) return;
    this.lastSize = key;
    this.sendSizeChanged(size);
  }

  private async answer(method: string, params: { [key: string]: unknown }): Promise<HostAnswer> {
    try {
      const result = (await this.peer.request(method, params)) as { isError?: unknown };
      return { isError: result?.isError === true };
    } catch (error) {
      if (error instanceof JsonRpcError) return { isError: true, message: error.message };
      throw error;
    }
  }

  private async serve(method: string, params: { [key: string]: unknown }): Promise<object> {
    const o = this.options;
    if (method === "ping") return {};
    const problem = this.lifecycle.check(method);
    if (problem !== undefined) throw new JsonRpcError(ErrorCode.InvalidRequest, problem);
    if (method === M.resourceTeardown) {
      this.lifecycle.advance(method);
      this.stopResize?.();
      await o.onTeardown?.(typeof params.reason === "string" ? params.reason : undefined);
      return {};
    }
    if (method === "tools/call" && o.onCallTool) {
      const args = typeof params.arguments === "object" && params.arguments !== null ? params.arguments : {};
      return o.onCallTool(String(params.name), args as { [key: string]: unknown });
    }
    if (method === "tools/list" && o.onListTools) return { tools: await o.onListTools() };
    throw new JsonRpcError(ErrorCode.MethodNotFound, `${method} is not available`);
  }

  private notified(method: string, params: { [key: string]: unknown }): void {
    if (method.startsWith("ui/notifications/sandbox-")) {
      // The sandbox proxy keeps these to itself; one reaching the view is misrouted.
      this.options.onProblem?.({
        kind: "lifecycle",
        message: `${method} is not for the view: ignored`,
        method,
      });
      return;
    }
    if (DATA.has(method)) {
      const problem = this.lifecycle.check(method);
      if (problem !== undefined) {
        this.options.onProblem?.({ kind: "lifecycle", message: `${problem}: dropped`, method });
        return;
      }
      this.lifecycle.advance(method);
    }
    const o = this.options;
    const args = (value: unknown) =>
      typeof value === "object" && value !== null ? (value as { [key: string]: unknown }) : {};
    switch (method) {
      case M.toolInputPartial:
        o.onToolInputPartial?.(args(params.arguments));
        return;
      case M.toolInput:
        o.onToolInput?.(args(params.arguments));
        return;
      case M.toolResult:
        o.onToolResult?.(params as unknown as CallToolResult);
        return;
      case M.toolCancelled:
        o.onToolCancelled?.(typeof params.reason === "string" ? params.reason : undefined);
        return;
      case M.hostContextChanged:
        Object.assign(this.context, params);
        o.onHostContextChanged?.(params as HostContext, this.hostContext);
        return;
      default:
        return;
    }
  }
}
