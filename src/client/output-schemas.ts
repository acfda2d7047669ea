import { McpkitError } from "../jsonrpc/errors.js";
import { isObject } from "../jsonrpc/message.js";
import type { CallToolResult, JsonSchema } from "../protocol/types/tools.js";
import {
  describeIssues,
  issuesOfThrow,
  type JsonSchemaValidatorFactory,
  type ValidationIssue,
  type ValueValidator,
} from "../protocol/validation.js";
import { loadJsonSchemaValidator } from "../validation/load.js";

/** Most tools whose `outputSchema` a client remembers; the oldest is forgotten first. */
export const MAX_REMEMBERED_OUTPUT_SCHEMAS = 1_024;

interface Entry {
  readonly schema: JsonSchema;
  validator: ValueValidator | undefined;
}

/**
 * The `outputSchema` of each tool the client has listed, bounded, and the check of a `tools/call` result's
 * `structuredContent` against it. A tool never listed (or forgotten) is not checked.
 */
export class OutputSchemas {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly factory: JsonSchemaValidatorFactory | undefined,
    private readonly capacity = MAX_REMEMBERED_OUTPUT_SCHEMAS,
  ) {}

  /** How many tools are remembered. */
  get size(): number {
    return this.entries.size;
  }

  /** Remembers the output schemas of a `tools/list` page (a tool listed without one is forgotten). */
  remember(tools: readonly unknown[]): void {
    for (const tool of tools) {
      if (!isObject(tool) || typeof tool.name !== "string") continue;
      this.entries.delete(tool.name);
      if (!isObject(tool.outputSchema)) continue;
      this.entries.set(tool.name, { schema: tool.outputSchema, validator: undefined });
      if (this.entries.size > this.capacity) {
        const oldest = this.entries.keys().next().value as string;
        this.entries.delete(oldest);
      }
    }
  }

  /**
   * Checks a successful result's `structuredContent`; rejects with `McpkitError` `INVALID_RESULT` naming every
   * failing path (`details`: `tool`, `issues`, `result`). A result with `isError`, or without structured content,
   * is not checked (the spec requires structured content only from a tool that succeeded).
   */
  async check(name: string, result: CallToolResult): Promise<void> {
    const entry = this.entries.get(name);
    if (entry === undefined || result.isError === true || !("structuredContent" in result)) return;
    if (entry.validator === undefined) {
      const factory = this.factory ?? (await loadJsonSchemaValidator());
      try {
        entry.validator = factory(entry.schema);
      } catch (error) {
        throw new McpkitError("INVALID_RESULT", `tool "${name}" has an outputSchema the validator refuses`, {
          details: { tool: name, result },
          cause: error,
        });
      }
    }
    let issues: readonly ValidationIssue[];
    try {
      issues = entry.validator(result.structuredContent);
    } catch (error) {
      issues = issuesOfThrow(result.structuredContent, error);
    }
    if (issues.length === 0) return;
    throw new McpkitError(
      "INVALID_RESULT",
      `tool "${name}" returned structuredContent that does not match its outputSchema:\n${describeIssues(issues)}`,
      { details: { tool: name, issues, result } },
    );
  }
}
