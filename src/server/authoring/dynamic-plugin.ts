import type { ListFamily } from "../core/listen.js";
import type { PluginHost, ServerPlugin } from "../core/plugin.js";
import {
  PromptRegistry,
  ResourceRegistry,
  ResourceTemplateRegistry,
  ToolRegistry,
} from "./dynamic-registries.js";
import type { Validation } from "./registrations.js";
import type { Registry } from "./registry.js";

/**
 * Dynamic registration as a plugin (`"dynamic"`, made by `ServerBuilder.buildDynamic()`): it holds the
 * registries a `DynamicServer` exposes, and tells subscribers of their changes through its host's
 * `notifyListChanged`, one notification per family and synchronous run. The server's handler serves the same
 * registries (the builder's, as for `build()`).
 */
export class DynamicPlugin implements ServerPlugin {
  readonly name = "dynamic";
  /** The tools, by name. */
  readonly tools: ToolRegistry;
  /** The prompts, by name. */
  readonly prompts: PromptRegistry;
  /** The fixed resources, by URI. */
  readonly resources: ResourceRegistry;
  /** The resource templates, by URI template. */
  readonly resourceTemplates: ResourceTemplateRegistry;
  private host: PluginHost | undefined;
  private readonly pending = new Set<ListFamily>();

  constructor(registry: Registry, families: ReadonlySet<ListFamily>, validation: Validation) {
    const holds = (family: ListFamily) => families.has(family);
    this.tools = new ToolRegistry(registry.tools, holds("tools"), validation);
    this.prompts = new PromptRegistry(registry.prompts, holds("prompts"), validation);
    this.resources = new ResourceRegistry(registry.resources, holds("resources"));
    this.resourceTemplates = new ResourceTemplateRegistry(registry.templates, holds("resources"));
    registry.onChange = (family) => this.changed(family);
  }

  setup(host: PluginHost): void {
    this.host = host;
  }

  /** Queues one list-changed notification per family for the end of the current synchronous run. */
  private changed(family: ListFamily): void {
    const host = this.host;
    if (host === undefined || this.pending.has(family)) return;
    this.pending.add(family);
    queueMicrotask(() => {
      this.pending.delete(family);
      host
        .notifyListChanged(family)
        .catch((error: unknown) =>
          host.logger.warn(`could not send notifications/${family}/list_changed`, error),
        );
    });
  }
}
