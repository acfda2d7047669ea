import { McpkitError } from "../../jsonrpc/errors.js";
import type { CompleteParams, CompleteResult } from "../../protocol/types/completion.js";
import type { GetPromptResult, ListPromptsResult } from "../../protocol/types/prompts.js";
import type {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
} from "../../protocol/types/resources.js";
import type { SubscriptionFilter } from "../../protocol/types/subscriptions.js";
import type { CallToolResult, ListToolsResult } from "../../protocol/types/tools.js";
import type { InputRequired } from "../state/input.js";
import type { RequestContext } from "./context.js";
import type { PluginAnswer } from "./plugin-answer.js";

/** The params of a list request: the handler owns the meaning of `cursor`. */
export interface ListRequest {
  cursor?: string;
}

/** @inline */
type Answer<T> = Promise<T> | T;

/**
 * The low-level server interface: one optional callback per client method, each receiving the request's params
 * (without `_meta`) and its {@link RequestContext}. Cursors are yours: return `nextCursor` to page.
 *
 * Callback families are atomic: tools need `listTools` and `callTool`, resources need `listResources` and
 * `readResource` (`listResourceTemplates` optional), prompts need `listPrompts` and `getPrompt`. A family
 * present advertises its capability.
 *
 * A callback answers with a result object (extra members are sent as they are), or throws a `JsonRpcError` to
 * answer with that error. Anything else thrown becomes `-32603` "Internal error" (details never leave the
 * process). Results may set `ttlMs`/`cacheScope` to override the server's cache defaults in 2026-07-28.
 * `callTool`, `getPrompt` and `readResource` may also return `inputRequired(requests, state?)` to ask the
 * client for input first (see `RequestContext.inputResponses`); `callTool` may return `runAsTask(work)`.
 *
 * @example
 * const handler: ServerHandler = {
 *   listTools: () => ({ tools: [{ name: "add", inputSchema: { type: "object" } }] }),
 *   callTool: ({ name, arguments: args }) => ({ content: [{ type: "text", text: String(args.a + args.b) }] }),
 * };
 */
export interface ServerHandler {
  /** `tools/list`: one page of tools. */
  listTools?(request: ListRequest, context: RequestContext): Answer<ListToolsResult>;
  /** `tools/call`: runs a tool. */
  callTool?(
    request: { name: string; arguments: { [key: string]: unknown } },
    context: RequestContext,
  ): Answer<CallToolResult | InputRequired | PluginAnswer>;
  /** `resources/list`: one page of resources. */
  listResources?(request: ListRequest, context: RequestContext): Answer<ListResourcesResult>;
  /** `resources/read`: the contents at a URI. */
  readResource?(
    request: { uri: string },
    context: RequestContext,
  ): Answer<ReadResourceResult | InputRequired>;
  /** `resources/templates/list`: one page of resource templates. */
  listResourceTemplates?(request: ListRequest, context: RequestContext): Answer<ListResourceTemplatesResult>;
  /** `prompts/list`: one page of prompts. */
  listPrompts?(request: ListRequest, context: RequestContext): Answer<ListPromptsResult>;
  /** `prompts/get`: a prompt's messages for the given arguments. */
  getPrompt?(
    request: { name: string; arguments: { [key: string]: string } },
    context: RequestContext,
  ): Answer<GetPromptResult | InputRequired>;
  /** `completion/complete`: values for a prompt argument or a template variable. */
  complete?(request: CompleteParams, context: RequestContext): Answer<CompleteResult>;
  /**
   * 2026-07-28 `subscriptions/listen`: the part of the filter this server serves to this subscriber (default:
   * `honourable`). `notifications` is the filter the client sent; `honourable` is its part the server's
   * capabilities allow. Return `honourable` or less (a flag dropped, fewer URIs): the acknowledgement names it and
   * the subscription gets only that. A filter outside `honourable` is a bug of the handler: the listen gets
   * `-32603`, logged. Throw a `JsonRpcError` to refuse the subscription with it. Runs under the executor
   * (deadline, admission), before the subscription opens.
   *
   * @example
   * subscriptionFilter({ honourable }, ctx) {
   *   if (isAdmin(ctx.identity)) return honourable;
   *   const { resourceSubscriptions: _dropped, ...lists } = honourable; // only admins follow resources
   *   return lists;
   * },
   */
  subscriptionFilter?(
    request: { notifications: SubscriptionFilter; honourable: SubscriptionFilter },
    context: RequestContext,
  ): Answer<SubscriptionFilter>;
}

/**
 * Every callback name of {@link ServerHandler}: what a plugin's `handler(base)` hook wraps to see each one.
 *
 * @example
 * for (const name of HANDLER_CALLBACKS) if (base[name]) console.log(`${name} is served`);
 */
export const HANDLER_CALLBACKS = [
  "listTools",
  "callTool",
  "listResources",
  "readResource",
  "listResourceTemplates",
  "listPrompts",
  "getPrompt",
  "complete",
  "subscriptionFilter",
] as const satisfies readonly (keyof ServerHandler)[];

/** The families of {@link ServerHandler} and the callbacks each needs. */
export const CALLBACK_FAMILIES = {
  tools: ["listTools", "callTool"],
  resources: ["listResources", "readResource"],
  prompts: ["listPrompts", "getPrompt"],
} as const satisfies { [family: string]: readonly (keyof ServerHandler)[] };

/** A family of callbacks that come together: `tools`, `resources` or `prompts`. */
export type CallbackFamily = keyof typeof CALLBACK_FAMILIES;

/** Which families a handler serves. Throws `INVALID_CONFIG` naming the family and callback of a partial one. */
export function checkHandler(handler: ServerHandler): { [family in CallbackFamily]: boolean } {
  const known = new Set<string>(HANDLER_CALLBACKS);
  for (const key of Object.keys(handler)) {
    const value = (handler as { [key: string]: unknown })[key];
    if (known.has(key) && value !== undefined && typeof value !== "function") {
      throw new McpkitError("INVALID_CONFIG", `handler.${key} must be a function`, { details: { key } });
    }
  }
  const present = (name: keyof ServerHandler) => typeof handler[name] === "function";
  const result = { tools: false, resources: false, prompts: false };
  for (const family of Object.keys(CALLBACK_FAMILIES) as CallbackFamily[]) {
    const callbacks = CALLBACK_FAMILIES[family];
    const have = callbacks.filter(present);
    if (have.length === 0) continue;
    const missing = callbacks.find((name) => !present(name));
    if (missing) {
      throw new McpkitError(
        "INVALID_CONFIG",
        `invalid callback family "${family}": missing callback "${missing}"`,
        { details: { reason: "invalid_callback_family", family, missing } },
      );
    }
    result[family] = true;
  }
  if (present("listResourceTemplates") && !result.resources) {
    throw new McpkitError(
      "INVALID_CONFIG",
      'invalid callback family "resources": missing callback "listResources"',
      { details: { reason: "invalid_callback_family", family: "resources", missing: "listResources" } },
    );
  }
  return result;
}
