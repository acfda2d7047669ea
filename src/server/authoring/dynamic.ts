import type { ServerConfig } from "../core/options.js";
import { Server } from "../server.js";
import type { DynamicPlugin } from "./dynamic-plugin.js";
import type {
  PromptRegistry,
  ResourceRegistry,
  ResourceTemplateRegistry,
  ToolRegistry,
} from "./dynamic-registries.js";

/** Options of `ServerBuilder.buildDynamic()`. */
export interface DynamicOptions {
  /**
   * The families the server holds, and so advertises (default: all three). Adding to a family it does not hold
   * throws `INVALID_CONFIG`.
   */
  families?: readonly ("tools" | "prompts" | "resources")[];
}

/**
 * A server whose tools, prompts, resources and resource templates change while it runs (from
 * `ServerBuilder.buildDynamic()`). Each family is a registry: `add(definition, callback)` returns a handle with
 * `enable()`, `disable()`, `update(changes)` and `remove()`; `get`, `has`, `remove(key)`, `list()` and `size`
 * read it. Keys stay unique (names; URIs for resources and templates).
 *
 * - A change sends `notifications/tools/list_changed` (or prompts, resources: templates count as resources)
 *   when `listChanged` is advertised for the family, which `buildDynamic` does by default: to every initialized
 *   2025-11-25 session and to every 2026-07-28 `subscriptions/listen` stream whose filter took the family.
 *   Changes made in one synchronous run (a loop of `add`) send one notification per family, just after it.
 * - A call in flight keeps the item it started with; the next call sees the change. A removed or disabled tool
 *   or prompt answers like an unknown one (`-32602` "Unknown tool: <name>"); a resource, "Resource not found".
 * - Each family holds at most `maxRegistrations` items (default 10,000): one more throws `McpkitError`
 *   `CAPACITY`. Definitions are checked and validated (`validate`, `jsonSchemaValidator`) as the builder's are.
 *
 * @example
 * const server = new ServerBuilder({ serverInfo: { name: "s", version: "1.0.0" } }).buildDynamic();
 * const tool = server.tools.add({ name: "ping", inputSchema: { type: "object" } }, () => ({ content: [] }));
 * tool.update({ description: "Answers pong" });
 * server.tools.remove("ping");
 */
export class DynamicServer extends Server {
  /** The tools, by name. */
  readonly tools: ToolRegistry;
  /** The prompts, by name. */
  readonly prompts: PromptRegistry;
  /** The fixed resources, by URI. */
  readonly resources: ResourceRegistry;
  /** The resource templates, by URI template. */
  readonly resourceTemplates: ResourceTemplateRegistry;

  /** @internal Use `ServerBuilder.buildDynamic()`: `dynamic` is the plugin among `config`'s that holds the registries. */
  constructor(config: ServerConfig, dynamic: DynamicPlugin) {
    super(config);
    this.tools = dynamic.tools;
    this.prompts = dynamic.prompts;
    this.resources = dynamic.resources;
    this.resourceTemplates = dynamic.resourceTemplates;
  }
}
