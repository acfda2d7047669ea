import { McpkitError } from "../jsonrpc/errors.js";
import { customMethodProblem } from "../protocol/methods.js";
import type { LoggingLevel, ResultBase } from "../protocol/types/common.js";
import type { CompleteParams, CompleteResult } from "../protocol/types/completion.js";
import type { GetPromptResult, ListPromptsResult, Prompt } from "../protocol/types/prompts.js";
import type {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from "../protocol/types/resources.js";
import type { SubscriptionFilter } from "../protocol/types/subscriptions.js";
import type { CallToolResult, ListToolsResult, Tool } from "../protocol/types/tools.js";
import { ClientCore } from "./core.js";
import { OutputSchemas } from "./output-schemas.js";
import type { ListenOptions, Subscription } from "./subscription-types.js";
import type { CallToolOptions, ListAllOptions, RequestOptions, WithCacheHints } from "./types.js";

/** The params of a list request: an optional cursor from the previous page's `nextCursor`. */
export interface ListParams {
  cursor?: string;
}

/**
 * An MCP client for both eras. `connect()` prefers 2026-07-28 (`server/discover`) and falls back to 2025-11-25
 * (`initialize`) only on the signals the spec names; the era is then fixed. Every operation has one deadline
 * (`requestTimeoutMs`, or per call `timeoutMs`/`signal`); results come back as received, unknown members and
 * 2026 cache hints included, and are never cached.
 *
 * @example
 * const client = new Client({ transport, clientInfo: { name: "my-app", version: "1.0.0" } });
 * await client.connect();
 * const { tools } = await client.listTools();
 * const result = await client.callTool("add", { a: 1, b: 2 }, { timeoutMs: 5_000 });
 * await client.close();
 */
export class Client extends ClientCore {
  private readonly outputSchemas = this.config.validateStructuredContent
    ? new OutputSchemas(this.config.jsonSchemaValidator)
    : undefined;

  /**
   * Fetches one page of tools.
   *
   * @example
   * const { tools, nextCursor } = await client.listTools();
   */
  async listTools(
    params: ListParams = {},
    options?: RequestOptions,
  ): Promise<WithCacheHints<ListToolsResult>> {
    const result = (await this.send("tools/list", { ...params }, options)) as WithCacheHints<ListToolsResult>;
    if (Array.isArray(result.tools)) this.outputSchemas?.remember(result.tools);
    return result;
  }

  /**
   * Fetches every page of tools under one deadline, bounded by `maxPages` and `maxItems`.
   *
   * @example
   * const tools = await client.listAllTools({ maxPages: 10 });
   */
  async listAllTools(options: ListAllOptions = {}): Promise<Tool[]> {
    const tools = await this.collect<Tool>("tools/list", "tools", options);
    this.outputSchemas?.remember(tools);
    return tools;
  }

  /**
   * Calls a tool. A tool that failed for the model resolves with `isError: true`; a JSON-RPC error rejects
   * with `JsonRpcError`. When a 2026 server asks for input, the client's resolver (or per-kind handlers)
   * answers and the call is retried, round after round, within the one deadline; without a resolver the call
   * rejects with `McpkitError` `INPUT_REQUIRED` carrying the result (or use `request()` to get it back as is).
   * With `validateStructuredContent`, a `structuredContent` that breaks the listed `outputSchema` rejects with
   * `McpkitError` `INVALID_RESULT`.
   *
   * @example
   * const result = await client.callTool("search", { q: "mcp" }, { onProgress: (p) => show(p.progress) });
   */
  callTool(
    name: string,
    args?: { [key: string]: unknown },
    options?: CallToolOptions,
  ): Promise<CallToolResult> {
    const params = args === undefined ? { name } : { name, arguments: args };
    const sent = this.send("tools/call", params, options) as Promise<CallToolResult>;
    const schemas = this.outputSchemas;
    if (schemas === undefined) return sent;
    return sent.then(async (result) => {
      await schemas.check(name, result);
      return result;
    });
  }

  /**
   * Fetches one page of resources.
   *
   * @example
   * const { resources } = await client.listResources();
   */
  async listResources(
    params: ListParams = {},
    options?: RequestOptions,
  ): Promise<WithCacheHints<ListResourcesResult>> {
    return (await this.send("resources/list", { ...params }, options)) as WithCacheHints<ListResourcesResult>;
  }

  /**
   * Fetches every page of resources under one deadline.
   *
   * @example
   * const resources = await client.listAllResources();
   */
  listAllResources(options: ListAllOptions = {}): Promise<Resource[]> {
    return this.collect<Resource>("resources/list", "resources", options);
  }

  /**
   * Reads a resource. A missing resource rejects with the server's `JsonRpcError` (-32602, or -32002 from
   * older servers); test it with `isResourceNotFound`.
   *
   * @example
   * const { contents } = await client.readResource("file:///README.md");
   */
  async readResource(uri: string, options?: RequestOptions): Promise<WithCacheHints<ReadResourceResult>> {
    return (await this.send("resources/read", { uri }, options)) as WithCacheHints<ReadResourceResult>;
  }

  /**
   * Fetches one page of resource templates.
   *
   * @example
   * const { resourceTemplates } = await client.listResourceTemplates();
   */
  async listResourceTemplates(
    params: ListParams = {},
    options?: RequestOptions,
  ): Promise<WithCacheHints<ListResourceTemplatesResult>> {
    const result = await this.send("resources/templates/list", { ...params }, options);
    return result as WithCacheHints<ListResourceTemplatesResult>;
  }

  /**
   * Fetches every page of resource templates under one deadline.
   *
   * @example
   * const templates = await client.listAllResourceTemplates();
   */
  listAllResourceTemplates(options: ListAllOptions = {}): Promise<ResourceTemplate[]> {
    return this.collect<ResourceTemplate>("resources/templates/list", "resourceTemplates", options);
  }

  /**
   * Fetches one page of prompts.
   *
   * @example
   * const { prompts } = await client.listPrompts();
   */
  async listPrompts(
    params: ListParams = {},
    options?: RequestOptions,
  ): Promise<WithCacheHints<ListPromptsResult>> {
    return (await this.send("prompts/list", { ...params }, options)) as WithCacheHints<ListPromptsResult>;
  }

  /**
   * Fetches every page of prompts under one deadline.
   *
   * @example
   * const prompts = await client.listAllPrompts();
   */
  listAllPrompts(options: ListAllOptions = {}): Promise<Prompt[]> {
    return this.collect<Prompt>("prompts/list", "prompts", options);
  }

  /**
   * Renders a prompt with its arguments.
   *
   * @example
   * const { messages } = await client.getPrompt("review", { file: "a.ts" });
   */
  async getPrompt(
    name: string,
    args?: { [key: string]: string },
    options?: RequestOptions,
  ): Promise<GetPromptResult> {
    const params = args === undefined ? { name } : { name, arguments: args };
    return (await this.send("prompts/get", params, options)) as GetPromptResult;
  }

  /**
   * Asks for completions of a prompt or resource-template argument.
   *
   * @example
   * const { completion } = await client.complete({
   *   ref: { type: "ref/prompt", name: "review" },
   *   argument: { name: "file", value: "src/" },
   * });
   */
  async complete(params: CompleteParams, options?: RequestOptions): Promise<CompleteResult> {
    return (await this.send("completion/complete", { ...params }, options)) as CompleteResult;
  }

  /**
   * 2025-11-25 only: sets the level of `notifications/message` the server sends. In 2026-07-28 it rejects with
   * `UNSUPPORTED` without sending; use the `logLevel` client option there.
   *
   * @example
   * await client.setLoggingLevel("warning");
   */
  async setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<ResultBase> {
    this.requireLegacy("logging/setLevel");
    return this.send("logging/setLevel", { level }, options);
  }

  /**
   * 2025-11-25 only: checks that the server answers. In 2026-07-28 it rejects with `UNSUPPORTED` without
   * sending.
   *
   * @example
   * await client.ping({ timeoutMs: 1_000 });
   */
  async ping(options?: RequestOptions): Promise<ResultBase> {
    this.requireLegacy("ping");
    return this.send("ping", {}, options);
  }

  /**
   * Sends any request with the era's metadata and the same deadline rules, for methods without a helper.
   * `initialize` belongs to `connect()` and `subscriptions/listen` to `listenSubscriptions()`; both are refused.
   * In 2026-07-28 the input rounds run as for the helpers; a client without a resolver gets an `input_required`
   * result back as is (test it with `isInputRequiredResult`) instead of an `INPUT_REQUIRED` error.
   *
   * @example
   * const result = await client.request("vendor/method", { x: 1 }, { meta: { traceparent } });
   */
  async request(
    method: string,
    params: { [key: string]: unknown } = {},
    options?: RequestOptions,
  ): Promise<ResultBase> {
    if (method === "initialize" || method === "subscriptions/listen") {
      const by = method === "initialize" ? "connect()" : "listenSubscriptions()";
      throw new McpkitError("UNSUPPORTED", `${method} is sent by ${by}`, { details: { method } });
    }
    return this.send(method, params, options, "return");
  }

  /**
   * Sends a custom notification to the server (both eras; in 2026-07-28 its `_meta` carries the client's
   * envelope). Core notification names reject with `UNSUPPORTED` without sending: the client sends those
   * itself (`sendRootsListChanged` for roots).
   *
   * @example
   * await client.notify("acme/seen", { id: "42" });
   */
  async notify(method: string, params?: { [key: string]: unknown }): Promise<void> {
    if (customMethodProblem(method) !== undefined) {
      throw new McpkitError("UNSUPPORTED", `cannot send the notification ${String(method)} this way`, {
        details: { method, reason: "reserved_method" },
      });
    }
    if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) {
      throw new McpkitError("UNSUPPORTED", "notification params must be an object", { details: { method } });
    }
    return this.sendNotification(method, params);
  }

  /**
   * 2025-11-25 only: tells the server the client's roots changed (`notifications/roots/list_changed`); needs
   * `capabilities.roots.listChanged: true`. 2026-07-28 has no such notification (the server asks for roots in
   * each request's input rounds, so it always gets the current ones): there it rejects with `UNSUPPORTED`
   * without sending, as it does without the capability.
   *
   * @example
   * roots.push(newRoot);
   * await client.sendRootsListChanged();
   */
  async sendRootsListChanged(): Promise<void> {
    this.requireLegacy("notifications/roots/list_changed");
    if (this.config.capabilities.roots?.listChanged !== true) {
      throw new McpkitError(
        "UNSUPPORTED",
        "sendRootsListChanged needs capabilities.roots.listChanged: true",
        {
          details: { method: "notifications/roots/list_changed" },
        },
      );
    }
    return this.sendNotification("notifications/roots/list_changed", undefined);
  }

  /**
   * 2026-07-28 only: opens a `subscriptions/listen` for the notifications `filter` opts in to, and resolves
   * with its handle once the request is on its way. The first event is always the server's acknowledgment
   * (the part of the filter it honours). The listen is long-lived: no `requestTimeoutMs`; it ends when its
   * owner closes it, the server completes or cancels it, the transport is lost, or the client closes. At
   * most `maxSubscriptions` (64) run at once; one more rejects with `CAPACITY`. In 2025-11-25 it rejects with
   * `UNSUPPORTED`: use `subscribeResource` and `onNotification` there.
   *
   * @example
   * const sub = await client.listenSubscriptions({ toolsListChanged: true });
   * const first = await sub.next(5_000); // { type: "acknowledged", notifications: { toolsListChanged: true } }
   * for await (const event of sub) if (event.type === "notification") await refreshTools();
   */
  async listenSubscriptions(filter: SubscriptionFilter, options?: ListenOptions): Promise<Subscription> {
    return this.listen(filter, options);
  }

  /**
   * 2025-11-25 only: asks for `notifications/resources/updated` about `uri` (they reach `onNotification`). In
   * 2026-07-28 it rejects with `UNSUPPORTED` without sending: use `listenSubscriptions` there.
   *
   * @example
   * await client.subscribeResource("file:///notes.md");
   */
  async subscribeResource(uri: string, options?: RequestOptions): Promise<ResultBase> {
    this.requireLegacy("resources/subscribe");
    return this.send("resources/subscribe", { uri }, options);
  }

  /**
   * 2025-11-25 only: stops `notifications/resources/updated` about `uri`. In 2026-07-28 it rejects with
   * `UNSUPPORTED` without sending.
   *
   * @example
   * await client.unsubscribeResource("file:///notes.md");
   */
  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<ResultBase> {
    this.requireLegacy("resources/unsubscribe");
    return this.send("resources/unsubscribe", { uri }, options);
  }
}
