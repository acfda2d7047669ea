import type { Prompt } from "../protocol/types/prompts.js";
import type { Resource, ResourceTemplate } from "../protocol/types/resources.js";
import type { Tool } from "../protocol/types/tools.js";
import type { Grant } from "./access.js";
import type { Namespace } from "./names.js";
import { type ToolFilter, toolFilter } from "./policy.js";
import type { Upstream, UpstreamLists } from "./upstream.js";

/** What the gateway lists: every upstream's items, namespaced, as its policy lets through. */
export interface Catalogue {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  templates: ResourceTemplate[];
}

/**
 * Builds the downstream lists from the upstreams' own, remembering each upstream's part until its lists change
 * (an upstream's `lists` object is replaced on every change, so identity tells). Items whose namespaced name is
 * not a valid name (too long) are left out, as is a second item of one name from one upstream.
 */
export class CatalogueBuilder {
  private readonly parts = new WeakMap<UpstreamLists, Catalogue>();
  private readonly filters = new WeakMap<Upstream, ToolFilter>();

  constructor(private readonly names: Namespace) {}

  /** The aggregated lists of `upstreams`, in config order, as far as `grant` lets the caller see them. */
  build(upstreams: Iterable<Upstream>, grant: Grant): Catalogue {
    const all: Catalogue = { tools: [], prompts: [], resources: [], templates: [] };
    for (const upstream of upstreams) {
      if (!grant.upstream(upstream.name)) continue;
      const part = this.partOf(upstream);
      all.tools.push(...part.tools.filter((tool) => grant.tool(upstream.name, tool.name)));
      all.prompts.push(...part.prompts);
      all.resources.push(...part.resources);
      all.templates.push(...part.templates);
    }
    return all;
  }

  /** True when the policy of `upstream` serves `tool`. */
  serves(upstream: Upstream, tool: Tool): boolean {
    return this.filterOf(upstream)(tool);
  }

  private filterOf(upstream: Upstream): ToolFilter {
    let filter = this.filters.get(upstream);
    if (filter === undefined) {
      filter = toolFilter(upstream.config.policy);
      this.filters.set(upstream, filter);
    }
    return filter;
  }

  private partOf(upstream: Upstream): Catalogue {
    const lists = upstream.lists;
    const cached = this.parts.get(lists);
    if (cached !== undefined) return cached;
    const { name } = upstream;
    const serves = this.filterOf(upstream);
    const part: Catalogue = {
      tools: renamed(lists.tools.filter(serves), (item) => this.names.name(name, item)),
      prompts: renamed(lists.prompts, (item) => this.names.name(name, item)),
      resources: lists.resources.map((r) => ({ ...r, uri: this.names.uri(name, r.uri) })),
      templates: lists.templates.map((t) => ({ ...t, uriTemplate: this.names.uri(name, t.uriTemplate) })),
    };
    this.parts.set(lists, part);
    return part;
  }
}

function renamed<T extends { name: string }>(
  items: readonly T[],
  rename: (item: string) => string | undefined,
): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const item of items) {
    const name = rename(item.name);
    if (name === undefined || seen.has(name)) continue;
    seen.add(name);
    out.push({ ...item, name });
  }
  return out;
}
