import { isObject } from "../../jsonrpc/message.js";
import { type HeaderParam, headerParamsOf } from "../../protocol/routing-headers.js";

/** A tool `tools/list` returned whose `x-mcp-header` annotations are invalid: it is dropped. */
export interface DroppedTool {
  readonly name: string;
  readonly problem: string;
}

/**
 * The `x-mcp-header` annotations of the tools a client has seen, bounded: at most `capacity` tools, the least
 * recently used forgotten first. Only valid schemas are kept; a tool without annotations is kept too (as an
 * empty list), so that the index knows it needs no `Mcp-Param-*` header.
 *
 * @example
 * const index = new ToolSchemaIndex(1_024);
 * const { tools, dropped } = index.admit(result.tools);
 * index.params("search"); // [{ name: "Region", path: ["region"], type: "string" }]
 */
export class ToolSchemaIndex {
  private readonly entries = new Map<string, readonly HeaderParam[]>();

  constructor(readonly capacity: number) {}

  /** How many tools are remembered. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Checks the tools of one `tools/list` page: remembers the valid ones and returns them, in order, with the
   * dropped ones and why. An entry that is not an object with a string name is left as it is (the client's
   * result check reports it).
   */
  admit(tools: readonly unknown[]): { tools: unknown[]; dropped: DroppedTool[] } {
    const kept: unknown[] = [];
    const dropped: DroppedTool[] = [];
    for (const tool of tools) {
      if (!isObject(tool) || typeof tool.name !== "string") {
        kept.push(tool);
        continue;
      }
      // A tool without a schema object carries no annotation to mirror (the client's result check judges it).
      const found = isObject(tool.inputSchema)
        ? headerParamsOf(tool.inputSchema)
        : { ok: true as const, params: [] };
      if (!found.ok) {
        dropped.push({ name: tool.name, problem: found.problem });
        this.entries.delete(tool.name);
        continue;
      }
      this.remember(tool.name, found.params);
      kept.push(tool);
    }
    return { tools: kept, dropped };
  }

  /** The annotations of a known tool (and marks it recently used); undefined for an unknown tool. */
  params(name: string): readonly HeaderParam[] | undefined {
    const params = this.entries.get(name);
    if (params === undefined) return undefined;
    this.entries.delete(name);
    this.entries.set(name, params);
    return params;
  }

  /** Forgets one tool. */
  forget(name: string): void {
    this.entries.delete(name);
  }

  private remember(name: string, params: readonly HeaderParam[]): void {
    this.entries.delete(name);
    this.entries.set(name, params);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }
}
