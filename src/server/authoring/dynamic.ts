import type { ListFamily } from "../core/listen.js";
import type { ServerConfig } from "../core/options.js";
import { Server } from "../server.js";
import {
  PromptRegistry,
  ResourceRegistry,
  ResourceTemplateRegistry,
  ToolRegistry,
} from "./dynamic-registries.js";
import type { Validation } from "./registrations.js";
import type { Registry } from "./registry.js";

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
  private readonly pending = new Set<ListFamily>();

  /** @internal Use `ServerBuilder.buildDynamic()`. */
  constructor(
    config: ServerConfig,
    registry: Registry,
    families: ReadonlySet<ListFamily>,
    validation: Validation,
  ) {
    super(config);
    const holds = (family: ListFamily) => families.has(family);
    this.tools = new ToolRegistry(registry.tools, holds("tools"), validation);
    this.prompts = new PromptRegistry(registry.prompts, holds("prompts"), validation);
    this.resources = new ResourceRegistry(registry.resources, holds("resources"));
    this.resourceTemplates = new ResourceTemplateRegistry(registry.templates, holds("resources"));
    registry.onChange = (family) => this.changed(family);
  }

  /** Queues one list-changed notification per family for the end of the current synchronous run. */
  private changed(family: ListFamily): void {
    if (this.pending.has(family)) return;
    this.pending.add(family);
    queueMicrotask(() => {
      this.pending.delete(family);
      this.notifyListChanged(family).catch((error: unknown) =>
        this.config.logger.warn(`could not send notifications/${family}/list_changed`, error),
      );
    });
  }
}
