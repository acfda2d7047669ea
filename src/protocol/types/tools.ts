import type { Icon, JsonValue, MetaObject, Open, Paginated, ResultBase } from "./common.js";
import type { ContentBlock } from "./content.js";

/**
 * A JSON Schema 2020-12 document. mcpkit passes it through untouched: no `$ref` dereferencing, every keyword
 * kept. `inputSchema` must have `"type": "object"` at its root.
 */
export type JsonSchema = { [key: string]: unknown };

/** Hints about a tool's behaviour. Untrusted unless the server is. */
export interface ToolAnnotations extends Open {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A tool the server offers. */
export interface Tool extends Open {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /** 2025-11-25 (and mcpkit in both eras): whether the tool runs as a task (default `"forbidden"`). */
  execution?: ToolExecution;
  _meta?: MetaObject;
}

/** How a tool may run: `taskSupport` says whether it may (`optional`) or must (`required`) run as a task. */
export interface ToolExecution extends Open {
  taskSupport?: "forbidden" | "optional" | "required";
}

export interface ListToolsResult extends ResultBase, Paginated {
  tools: Tool[];
}

/**
 * The result of a tool call. `structuredContent` may be any JSON value: `false`, `0`, `""`, `[]` and `null` are
 * present values; only a missing member means absent. A model-facing failure is a result with `isError: true`.
 */
export interface CallToolResult extends ResultBase {
  content: ContentBlock[];
  structuredContent?: JsonValue;
  isError?: boolean;
}
