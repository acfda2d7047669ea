import { optionError } from "../jsonrpc/config-check.js";
import type { CallToolResult, JsonSchema } from "../protocol/types/tools.js";
import {
  type InferArgs,
  type InferStructured,
  type RequestContext,
  resourceNotFound,
  type SchemaInput,
  type ServerBuilder,
  type ServerHandler,
  type ServerPlugin,
  type ToolCallback,
  type ToolOptions,
} from "../server/index.js";
import { APP_MIME_TYPE, APPS_EXTENSION_ID } from "./constants.js";
import type { AppDefinition } from "./definition.js";
import type { UiClientCapability } from "./types.js";

/**
 * Registers an app on a builder: its tool (with `callback`, as `builder.tool` does) and its `ui://` resource,
 * whose read answers the app's content. Returns the builder. The tool's `content` should stay meaningful for
 * hosts without Apps.
 *
 * @example
 * appTool(builder, clock, () => ({ content: [{ type: "text", text: new Date().toISOString() }] }));
 */
export function appTool<I extends SchemaInput, O extends SchemaInput | undefined = undefined>(
  builder: ServerBuilder,
  app: AppDefinition<I, O>,
  callback: ToolCallback<InferArgs<I>, InferStructured<O>>,
  options?: ToolOptions,
): ServerBuilder {
  // The definition was checked when it was made; the builder's own checks still run on the tool.
  (builder.tool as (definition: unknown, callback: unknown, options?: ToolOptions) => ServerBuilder).call(
    builder,
    app.tool,
    callback,
    options,
  );
  builder.resource(app.resource as never, () => ({ contents: [app.content as never] }));
  return builder;
}

/** An app served by {@link appsHandler}: a definition with a raw JSON Schema tool, and its call. */
export interface AppRegistration {
  app: AppDefinition<JsonSchema>;
  /** Runs the app's tool. */
  call(args: { [key: string]: unknown }, context: RequestContext): CallToolResult | Promise<CallToolResult>;
}

/**
 * For `createServer` users: `base` with the apps merged in. `tools/list` and `resources/list` put the apps first
 * on their first page (your cursors untouched); `tools/call` of an app tool and `resources/read` of an app's URI
 * are answered here; everything else goes to `base`. Throws `INVALID_CONFIG` for a name or URI given twice.
 *
 * @example
 * createServer({ serverInfo, handler: appsHandler([{ app: clock, call: () => now() }]) });
 */
export function appsHandler(apps: readonly AppRegistration[], base: ServerHandler = {}): ServerHandler {
  const byName = new Map<string, AppRegistration>();
  const byUri = new Map<string, AppRegistration>();
  for (const entry of apps) {
    if (byName.has(entry.app.tool.name)) invalidTwice("tool", entry.app.tool.name);
    if (byUri.has(entry.app.resource.uri)) invalidTwice("resource", entry.app.resource.uri);
    byName.set(entry.app.tool.name, entry);
    byUri.set(entry.app.resource.uri, entry);
  }
  const { listTools, callTool, listResources, readResource } = base;
  return {
    ...base,
    async listTools(request, context) {
      const own = listTools ? await listTools(request, context) : { tools: [] };
      if (request.cursor !== undefined) return own;
      return { ...own, tools: [...apps.map((a) => ({ ...a.app.tool }) as never), ...own.tools] };
    },
    async callTool(request, context) {
      const entry = byName.get(request.name);
      if (entry !== undefined) return entry.call(request.arguments, context);
      if (callTool) return callTool(request, context);
      return { content: [{ type: "text", text: `Unknown tool: ${request.name}` }], isError: true };
    },
    async listResources(request, context) {
      const own = listResources ? await listResources(request, context) : { resources: [] };
      if (request.cursor !== undefined) return own;
      return { ...own, resources: [...apps.map((a) => ({ ...a.app.resource })), ...own.resources] };
    },
    async readResource(request, context) {
      const entry = byUri.get(request.uri);
      if (entry !== undefined) return { contents: [{ ...entry.app.content }] as never };
      if (readResource) return readResource(request, context);
      throw resourceNotFound(request.uri);
    },
  };
}

function invalidTwice(kind: string, name: string): never {
  throw optionError(`apps ${kind} ${name}`, "is given twice");
}

/**
 * The apps as a server plugin (docs/plugins.md): the server's handler, whatever it is, gets the apps merged in
 * as {@link appsHandler} merges them. Throws `INVALID_CONFIG` for a name or URI given twice.
 *
 * @example
 * createServer({ serverInfo, handler, plugins: [appsPlugin([{ app: clock, call: () => now() }])] });
 */
export function appsPlugin(apps: readonly AppRegistration[]): ServerPlugin {
  // Checked now, so that a name or URI given twice fails where the plugin is made.
  appsHandler(apps);
  return { name: APPS_EXTENSION_ID, handler: (base) => appsHandler(apps, base) };
}

/**
 * What the client declared under `extensions["io.modelcontextprotocol/ui"]`, from the handler's context: the
 * 2025-11-25 session's `initialize`, or the 2026-07-28 request's own `_meta`. `undefined` when it declared nothing.
 *
 * @example
 * const ui = uiCapability(ctx);
 * if (ui?.mimeTypes?.includes("text/html;profile=mcp-app")) { ... }
 */
export function uiCapability(
  context: Pick<RequestContext, "clientCapabilities">,
): UiClientCapability | undefined {
  const value = context.clientCapabilities.extensions?.[APPS_EXTENSION_ID];
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as UiClientCapability)
    : undefined;
}

/** True when the client can render apps: it declared the extension with `mimeTypes` naming the app MIME type. */
export function supportsApps(context: Pick<RequestContext, "clientCapabilities">): boolean {
  const mimeTypes = uiCapability(context)?.mimeTypes;
  return Array.isArray(mimeTypes) && mimeTypes.includes(APP_MIME_TYPE);
}

/** The client capability to declare for Apps: `{ extensions: { "io.modelcontextprotocol/ui": { mimeTypes } } }`. */
export function uiClientCapability(): { [APPS_EXTENSION_ID]: { mimeTypes: string[] } } {
  return { [APPS_EXTENSION_ID]: { mimeTypes: [APP_MIME_TYPE] } };
}
