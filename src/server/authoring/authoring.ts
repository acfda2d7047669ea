import type { JsonValue } from "../../jsonrpc/message.js";
import type { StandardSchemaV1, StandardSchemaWithJson } from "../../protocol/standard-schema.js";
import type { CacheHints, Icon, MetaObject } from "../../protocol/types/common.js";
import type {
  AudioContent,
  BlobResourceContents,
  EmbeddedResource,
  ImageContent,
  ResourceLink,
  TextContent,
  TextResourceContents,
} from "../../protocol/types/content.js";
import type { PromptArgument, PromptMessage } from "../../protocol/types/prompts.js";
import type { Resource, ResourceTemplate } from "../../protocol/types/resources.js";
import type { JsonSchema, ToolAnnotations, ToolExecution } from "../../protocol/types/tools.js";
import type { TaskRun } from "../tasks/run.js";

/**
 * The authoring types of {@link ServerBuilder}: what you write, closed so that a misspelt member
 * (`descripton`, `argumnets`, `isErorr`) is a compile error. The wire types (`Tool`, `CallToolResult`, ...) stay
 * open: they describe what a peer may send, unknown members included.
 */

/** `T` without its index signature: only the members it names. */
export type Known<T> = {
  [K in keyof T as string extends K ? never : number extends K ? never : symbol extends K ? never : K]: T[K];
};

/** A schema a tool or prompt accepts: raw JSON Schema 2020-12, or a Standard Schema with Standard JSON Schema. */
export type SchemaInput = JsonSchema | StandardSchemaWithJson;

/** What a handler gets for a schema: the Standard Schema's output type, or a JSON object for raw JSON Schema. */
export type InferArgs<S> = S extends StandardSchemaWithJson
  ? StandardSchemaV1.InferOutput<S>
  : { [key: string]: unknown };

/** What a handler returns as `structuredContent` for an `outputSchema` (any JSON value for raw JSON Schema). */
export type InferStructured<S> = S extends StandardSchemaWithJson
  ? StandardSchemaV1.InferInput<S>
  : JsonValue;

/** A tool as you define it. `inputSchema` (and `outputSchema`) are raw JSON Schema or a Standard Schema. */
export interface ToolDefinition<
  I extends SchemaInput = JsonSchema,
  O extends SchemaInput | undefined = undefined,
> {
  name: string;
  title?: string;
  description?: string;
  /** Raw JSON Schema with `"type": "object"` at its root, or a Standard Schema of an object. */
  inputSchema: I;
  /** Raw JSON Schema or a Standard Schema: the tool's results carry matching `structuredContent`. */
  outputSchema?: O;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /**
   * Whether the tool runs as a task (`runAsTask`): `"forbidden"` (default), `"optional"` (a task when the client
   * can take one, inline otherwise) or `"required"` (a client that cannot take a task gets `-32021` in
   * 2026-07-28, `-32601` in 2025-11-25, before the function runs).
   */
  execution?: Known<ToolExecution>;
  _meta?: MetaObject;
}

/** A content block as you write it (members the spec defines only). */
export type ContentBlockDefinition =
  | Known<TextContent>
  | Known<ImageContent>
  | Known<AudioContent>
  | Known<ResourceLink>
  | (Omit<Known<EmbeddedResource>, "resource"> & {
      resource: Known<TextResourceContents> | Known<BlobResourceContents>;
    });

/** What a tool returns. With an `outputSchema`, `structuredContent` is typed by it (and required unless `isError`). */
export interface ToolResult<S = JsonValue> {
  content: ContentBlockDefinition[];
  structuredContent?: S;
  isError?: boolean;
  _meta?: MetaObject;
}

/** A prompt argument as you declare it. */
export type PromptArgumentDefinition = Known<PromptArgument>;

/**
 * A prompt as you define it: either `arguments` (names, all strings) or `argsSchema`, a Standard Schema of an
 * object whose properties become the prompt's arguments (their `description`, `title` and whether required).
 */
export interface PromptDefinition<A extends StandardSchemaWithJson | undefined = undefined> {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgumentDefinition[];
  argsSchema?: A;
  icons?: Icon[];
  _meta?: MetaObject;
}

/** What a prompt's handler gets: the schema's output type, or the raw string arguments. */
export type InferPromptArgs<A> = A extends StandardSchemaWithJson
  ? StandardSchemaV1.InferOutput<A>
  : { [name: string]: string };

/** What a prompt returns. */
export interface PromptResult {
  description?: string;
  messages: (Omit<Known<PromptMessage>, "content"> & { content: ContentBlockDefinition })[];
  _meta?: MetaObject;
}

/** A resource as you define it. */
export type ResourceDefinition = Known<Resource>;

/** A resource template as you define it. */
export type ResourceTemplateDefinition = Known<ResourceTemplate>;

/** What a resource read returns; `ttlMs` / `cacheScope` override the server's 2026 cache hints. */
export interface ResourceResult extends Partial<CacheHints> {
  contents: (Known<TextResourceContents> | Known<BlobResourceContents>)[];
  _meta?: MetaObject;
}

/** Per-tool options of {@link ServerBuilder.tool}. */
export interface ToolOptions {
  /** Validate this tool's arguments and `structuredContent` (default: the builder's `validate`, `true`). */
  validate?: boolean;
}

/** The members of a returned value `V` (awaited) that its result type `T` does not name. */
export type ExtraMembers<V, T> =
  V extends PromiseLike<infer U>
    ? ExtraMembers<U, T>
    : V extends { readonly requests: unknown; readonly state: unknown } | TaskRun
      ? never
      : // A value typed with an index signature (a wire type, open to unknown members) names no typo to catch.
        string extends keyof V
        ? never
        : Exclude<keyof V, keyof T>;

/**
 * Checks what a builder callback returns (`V`, inferred) against its result type `T`: a member `T` does not
 * name (`isErorr`), sync or async, makes the definition fail to compile with
 * `{ "unknown result member": "isErorr" }`. An `inputRequired(...)` answer passes.
 */
export type ResultCheck<V, T> = [ExtraMembers<V, T>] extends [never]
  ? unknown
  : { "unknown result member": ExtraMembers<V, T> };
