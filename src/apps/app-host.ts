import { ErrorCode } from "../jsonrpc/codes.js";
import { checkOptions, optionError, positiveInteger } from "../jsonrpc/config-check.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import type { Implementation } from "../protocol/types/common.js";
import type { CallToolResult, Tool } from "../protocol/types/tools.js";
import { bridgeBounds } from "./bridge-options.js";
import { BRIDGE_PROTOCOL_VERSION, BRIDGE_METHODS as M, SUPPORTED_BRIDGE_VERSIONS } from "./constants.js";
import type { AppHostOptions } from "./host-options.js";
import { hostRequest } from "./host-requests.js";
import { BridgeLifecycle, type BridgePhase } from "./lifecycle.js";
import { BridgePeer, type BridgeProblem } from "./peer.js";
import { ToolCallCycle } from "./tool-call.js";
import type {
  AppCapabilities,
  HostCapabilities,
  HostContext,
  ModelContextUpdate,
  UiInitializeParams,
} from "./types.js";

/** How a teardown went: the view answered `ui/resource-teardown`, or not (`error`: its refusal, `TIMEOUT`, `CLOSED`). */
export type TeardownOutcome = { answered: true } | { answered: false; error: Error };

const KEYS = [
  "endpoint",
  "hostInfo",
  "client",
  "tools",
  "hostContext",
  "hostCapabilities",
  "sandbox",
  "linkPolicy",
  "onOpenLink",
  "onMessage",
  "onModelContext",
  "onDisplayMode",
  "onSizeChanged",
  "onLog",
  "onRequestTeardown",
  "onDownloadFile",
  "onSampling",
  "onProblem",
  "strictVersion",
  "limits",
  "requestTimeoutMs",
  "teardownTimeoutMs",
  "clock",
  "sandboxResource",
] as const;

/**
 * The host end of the bridge to one view (JSON-RPC over `postMessage`): answers the view's `ui/initialize`, then
 * sends tool input, results and context under the lifecycle of 1.7 (a send the lifecycle forbids throws
 * `PROTOCOL` and sends nothing), and serves the view's requests: `ui/*` through your callbacks, `tools/call` and
 * the `resources/*` reads forwarded to the view's own server with the visibility rule applied.
 *
 * @example
 * const host = new AppHost({ endpoint, hostInfo: { name: "my-host", version: "1.0.0" }, client, tools });
 * await host.initialized;
 * host.sendToolInput({ city: "Paris" });
 * host.sendToolResult(await client.callTool("weather", { city: "Paris" }));
 */
export class AppHost {
  /** Resolves with the view's `ui/initialize` params once it sent `ui/notifications/initialized`. */
  readonly initialized: Promise<UiInitializeParams>;
  private readonly peer: BridgePeer;
  private readonly lifecycle = new BridgeLifecycle();
  private readonly options: AppHostOptions;
  private context: HostContext;
  private init: UiInitializeParams | undefined;
  private answered = false;
  private latest: ModelContextUpdate | undefined;
  private lastSize: { width?: number; height?: number } | undefined;
  private resolveInitialized!: (params: UiInitializeParams) => void;
  private toolsCache: Promise<readonly Tool[]> | undefined;
  private readonly teardownMs: number;
  private resourceSent = false;

  constructor(options: AppHostOptions) {
    const opts = checkOptions(options, KEYS, "options") as AppHostOptions;
    if (opts.endpoint === undefined || typeof opts.endpoint.post !== "function") {
      throw optionError("options.endpoint", "must be a BridgeEndpoint");
    }
    if (typeof opts.hostInfo?.name !== "string" || typeof opts.hostInfo.version !== "string") {
      throw optionError("options.hostInfo", "must have a name and a version");
    }
    this.options = opts;
    this.context = { ...(opts.hostContext ?? {}) };
    this.initialized = new Promise((resolve) => {
      this.resolveInitialized = resolve;
    });
    this.teardownMs = positiveInteger(opts.teardownTimeoutMs, 5_000, "options.teardownTimeoutMs");
    const bounds = bridgeBounds("options", opts.limits, opts.requestTimeoutMs, opts.clock);
    this.peer = new BridgePeer(opts.endpoint, bounds, {
      request: (method, params) => this.serve(method, params),
      notification: (method, params) => this.notified(method, params),
      problem: (problem) => opts.onProblem?.(problem),
    });
  }

  /** The bridge's phase: `"handshake"`, `"ready"` or `"torn-down"`. */
  get phase(): BridgePhase {
    return this.lifecycle.phase;
  }

  /** What the view sent in `ui/initialize` (`appInfo`, `appCapabilities`), once it did. */
  get view(): UiInitializeParams | undefined {
    return this.init;
  }

  /** The view's latest `ui/update-model-context` (each replaces the previous), for the next turn of the agent. */
  get modelContext(): ModelContextUpdate | undefined {
    return this.latest;
  }

  /** The view's last reported size. */
  get size(): { width?: number; height?: number } | undefined {
    return this.lastSize;
  }

  /** The host context as the view has it. */
  get hostContext(): HostContext {
    return { ...this.context };
  }

  /** The capabilities answered in `ui/initialize`: derived from the callbacks, then `options.hostCapabilities`. */
  get hostCapabilities(): HostCapabilities {
    const o = this.options;
    const caps: HostCapabilities = {};
    if (o.onOpenLink) caps.openLinks = {};
    if (o.onDownloadFile) caps.downloadFile = {};
    if (o.client?.callTool) caps.serverTools = {};
    if (o.client?.readResource) caps.serverResources = {};
    if (o.onLog) caps.logging = {};
    if (o.sandbox) caps.sandbox = o.sandbox;
    if (o.onModelContext) caps.updateModelContext = { text: {}, structuredContent: {} };
    if (o.onMessage) caps.message = { text: {} };
    if (o.onSampling) caps.sampling = {};
    return { ...caps, ...(o.hostCapabilities ?? {}) };
  }

  /** Sends `ui/notifications/tool-input-partial` (best-effort partial arguments, before the input). */
  sendToolInputPartial(args: { [key: string]: unknown }): void {
    this.send(M.toolInputPartial, { arguments: args });
  }

  /** Sends `ui/notifications/tool-input`: the call's arguments, once per call. */
  sendToolInput(args: { [key: string]: unknown }): void {
    this.send(M.toolInput, { arguments: args });
  }

  /** Sends `ui/notifications/tool-result`: the call's full result, after its input. */
  sendToolResult(result: CallToolResult): void {
    this.send(M.toolResult, { ...result });
  }

  /** Sends `ui/notifications/tool-cancelled`. */
  sendToolCancelled(reason?: string): void {
    this.send(M.toolCancelled, reason === undefined ? {} : { reason });
  }

  /**
   * Begins a tool call for the view and returns its handle (prefer it to the `send*` methods whenever a call can
   * be cancelled or outlive the view): a late send of an ended, superseded or torn-down call is dropped, never
   * delivered. A call still open (input sent, no result) is cancelled first (`reason: "superseded"`).
   */
  toolCall(): ToolCallCycle {
    if (this.lifecycle.phase === "torn-down") {
      throw new McpkitError("PROTOCOL", "the view was torn down; no call can begin", {
        details: { phase: this.lifecycle.phase },
      });
    }
    const call = this.lifecycle.call;
    if (this.lifecycle.phase === "ready" && (call === "partial" || call === "input")) {
      this.send(M.toolCancelled, { reason: "superseded" });
    }
    const sender = {
      lifecycle: this.lifecycle,
      send: (method: string, params: { [key: string]: unknown }) => this.send(method, params),
      problem: (problem: BridgeProblem) => this.options.onProblem?.(problem),
    };
    return new ToolCallCycle(sender, this.lifecycle.begin());
  }

  /** Merges `changes` into the host context and sends `host-context-changed` with the keys that changed only. */
  setHostContext(changes: HostContext): void {
    const diff: { [key: string]: unknown } = {};
    for (const [key, value] of Object.entries(changes)) {
      if (JSON.stringify(this.context[key]) !== JSON.stringify(value)) diff[key] = value;
    }
    Object.assign(this.context, diff);
    if (Object.keys(diff).length > 0 && this.lifecycle.phase === "ready")
      this.send(M.hostContextChanged, diff);
  }

  /** Sends a list change of the view's server (`tools`, `resources` or `prompts`) to the view. */
  sendListChanged(family: "tools" | "resources" | "prompts"): void {
    this.send(`notifications/${family}/list_changed`);
  }

  /** Calls a tool the view registered (`appCapabilities.tools`). */
  async callViewTool(name: string, args: { [key: string]: unknown } = {}): Promise<CallToolResult> {
    this.allowed("tools/call");
    return (await this.peer.request("tools/call", { name, arguments: args })) as CallToolResult;
  }

  /** Lists the tools the view registered. */
  async listViewTools(): Promise<{ tools: Tool[] }> {
    this.allowed("tools/list");
    return (await this.peer.request("tools/list", {})) as { tools: Tool[] };
  }

  /** Pings the view. */
  async ping(): Promise<void> {
    this.allowed("ping");
    await this.peer.request("ping", {});
  }

  /**
   * Sends `ui/resource-teardown` and waits for the view's answer, at most `teardownTimeoutMs` (default 5,000), then
   * stops the bridge. It resolves in every case (an error answer such as `-32601`, no answer, a closed bridge), so
   * the caller always goes on to remove the iframe; `answered` says whether the view agreed, `error` why not.
   * Nothing can be sent afterwards.
   *
   * @example
   * const { answered } = await host.teardown("closed by the user");
   * iframe.remove(); // whatever the view did
   */
  async teardown(reason?: string): Promise<TeardownOutcome> {
    this.allowed(M.resourceTeardown);
    this.lifecycle.advance(M.resourceTeardown);
    try {
      const params = reason === undefined ? {} : { reason };
      await this.peer.request(M.resourceTeardown, params, this.teardownMs);
      return { answered: true };
    } catch (error) {
      const cause = error instanceof Error ? error : new Error(String(error));
      this.options.onProblem?.({
        kind: "lifecycle",
        message: `${M.resourceTeardown} was not answered (${cause.message}): torn down anyway`,
        method: M.resourceTeardown,
      });
      return { answered: false, error: cause };
    } finally {
      this.peer.close();
    }
  }

  /** Stops the bridge without a teardown (the view is gone); pending requests reject with `CLOSED`. */
  close(): void {
    this.peer.close();
  }

  private allowed(method: string): void {
    const problem = this.lifecycle.check(method);
    if (problem !== undefined) {
      throw new McpkitError("PROTOCOL", problem, { details: { method, phase: this.lifecycle.phase } });
    }
  }

  private send(method: string, params?: { [key: string]: unknown }): void {
    this.allowed(method);
    this.lifecycle.advance(method);
    this.peer.notify(method, params);
  }

  private serve(method: string, params: { [key: string]: unknown }): Promise<unknown> {
    if (method === "ping") return Promise.resolve({});
    if (method === M.initialize) return Promise.resolve(this.handshake(params));
    if (!this.answered) {
      return Promise.reject(new JsonRpcError(ErrorCode.InvalidRequest, `${method} before ui/initialize`));
    }
    if (this.lifecycle.phase === "torn-down") {
      return Promise.reject(new JsonRpcError(ErrorCode.InvalidRequest, "the view was torn down"));
    }
    return hostRequest(
      {
        options: this.options,
        currentMode: () => this.context.displayMode ?? "inline",
        viewModes: () => this.init?.appCapabilities.availableDisplayModes,
        setMode: (mode) => {
          if (mode !== this.context.displayMode) this.context.displayMode = mode;
        },
        setModelContext: (update) => {
          this.latest = update;
        },
        tools: () => this.serverTools(),
      },
      method,
      params,
    );
  }

  private handshake(params: { [key: string]: unknown }): object {
    if (this.answered) throw new JsonRpcError(ErrorCode.InvalidRequest, "ui/initialize was already answered");
    const { protocolVersion, appInfo, appCapabilities } = params;
    const info = appInfo as { [key: string]: unknown } | undefined;
    if (
      typeof protocolVersion !== "string" ||
      typeof info !== "object" ||
      info === null ||
      typeof info.name !== "string" ||
      typeof info.version !== "string" ||
      (appCapabilities !== undefined && (typeof appCapabilities !== "object" || appCapabilities === null))
    ) {
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        "ui/initialize needs protocolVersion, appInfo and appCapabilities",
      );
    }
    // As the reference host: a supported version is answered as asked, any other with the latest (or refused).
    const supported = SUPPORTED_BRIDGE_VERSIONS.includes(protocolVersion);
    if (!supported && this.options.strictVersion === true) {
      throw new JsonRpcError(ErrorCode.InvalidParams, `unsupported bridge version ${protocolVersion}`, {
        supported: [...SUPPORTED_BRIDGE_VERSIONS],
        requested: protocolVersion,
      });
    }
    this.init = {
      protocolVersion,
      appInfo: info as unknown as Implementation,
      appCapabilities: (appCapabilities ?? {}) as AppCapabilities,
    };
    this.answered = true;
    return {
      protocolVersion: supported ? protocolVersion : BRIDGE_PROTOCOL_VERSION,
      hostInfo: this.options.hostInfo,
      hostCapabilities: this.hostCapabilities,
      hostContext: this.hostContext,
    };
  }

  private notified(method: string, params: { [key: string]: unknown }): void {
    const o = this.options;
    switch (method) {
      case M.initialized:
        if (this.init === undefined || this.lifecycle.phase !== "handshake") {
          o.onProblem?.({ kind: "lifecycle", message: `${method} out of order was ignored`, method });
          return;
        }
        this.lifecycle.ready();
        this.resolveInitialized(this.init);
        return;
      case M.sizeChanged: {
        const size: { width?: number; height?: number } = {};
        if (typeof params.width === "number") size.width = params.width;
        if (typeof params.height === "number") size.height = params.height;
        this.lastSize = size;
        o.onSizeChanged?.(size);
        return;
      }
      case "notifications/message":
        o.onLog?.(params);
        return;
      case M.requestTeardown:
        o.onRequestTeardown?.();
        return;
      case M.sandboxProxyReady:
        this.proxyReady();
        return;
      case M.sandboxResourceReady:
        o.onProblem?.({ kind: "lifecycle", message: `${method} goes from host to proxy: ignored`, method });
        return;
      default:
        // The view's own list changes need nothing from the bridge.
        return;
    }
  }

  /** The sandbox proxy loaded: it gets the view's document once (the lifecycle starts with the view, after it). */
  private proxyReady(): void {
    const resource = this.options.sandboxResource;
    const method = M.sandboxProxyReady;
    const why =
      resource === undefined
        ? `${method} without a sandboxResource to send: ignored`
        : this.resourceSent
          ? `${method} after the view's document was sent: ignored`
          : undefined;
    if (why !== undefined || resource === undefined) {
      this.options.onProblem?.({ kind: "lifecycle", message: why ?? "", method });
      return;
    }
    this.resourceSent = true;
    this.peer.notify(M.sandboxResourceReady, { ...resource });
  }

  private serverTools(): Promise<readonly Tool[]> {
    if (this.toolsCache === undefined) {
      const { tools, client } = this.options;
      if (typeof tools === "function") return Promise.resolve(tools());
      if (tools !== undefined) this.toolsCache = Promise.resolve(tools);
      else if (client?.listAllTools) this.toolsCache = client.listAllTools();
      else this.toolsCache = Promise.resolve([]);
      this.toolsCache.catch(() => {
        this.toolsCache = undefined;
      });
    }
    return this.toolsCache;
  }
}
