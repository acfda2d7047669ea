import { McpkitError, toError } from "../jsonrpc/errors.js";
import { isObject, type JsonValue } from "../jsonrpc/message.js";
import type { StandardSchemaWithJson } from "../protocol/standard-schema.js";
import type { CompleteResult } from "../protocol/types/completion.js";
import type { GetPromptResult, Prompt } from "../protocol/types/prompts.js";
import type { ReadResourceResult, Resource, ResourceTemplate } from "../protocol/types/resources.js";
import type { Tool } from "../protocol/types/tools.js";
import type { JsonSchemaValidatorFactory } from "../protocol/validation.js";
import { loadJsonSchemaValidator } from "../validation/load.js";
import type {
  InferArgs,
  InferPromptArgs,
  InferStructured,
  PromptDefinition,
  PromptResult,
  ResourceDefinition,
  ResourceResult,
  ResourceTemplateDefinition,
  ResultCheck,
  SchemaInput,
  ToolDefinition,
  ToolOptions,
  ToolResult,
} from "./authoring.js";
import type { RequestContext } from "./context.js";
import {
  type CustomNotification,
  type CustomNotificationHandler,
  type CustomParams,
  type CustomRequest,
  type CustomRequestHandler,
  type CustomRequestOptions,
  type CustomResult,
  defineNotification,
  defineRequest,
  type InferParams,
  type NotificationEntry,
  type ParamsSchema,
  type RequestEntry,
} from "./custom.js";
import { mergeCustomSurface } from "./custom-methods.js";
import { invalidParams, resourceNotFound } from "./errors.js";
import { type Extension, isExtension, notificationTable, requestTable } from "./extension.js";
import type { ServerHandler } from "./handler.js";
import type { InputRequired } from "./input.js";
import type { ServerOptions } from "./options.js";
import { page } from "./pagination.js";
import {
  type Check,
  checkFor,
  isStandardSchema,
  promptArguments,
  standardCheck,
  wireSchema,
} from "./schemas.js";
import { createServer, type Server } from "./server.js";
import { checkPromptArgs, type PromptChecks, type RegisteredTool, runTool } from "./typed-calls.js";
import { UriTemplate } from "./uri-template.js";

/** @inline */
type Answer<T> = Promise<T> | T;

/**
 * Runs a tool. Throw a `JsonRpcError` for a protocol error; anything else thrown becomes an `isError` result.
 * Return `inputRequired(...)` to ask the client for input first.
 */
export type ToolCallback<Args = { [key: string]: unknown }, Structured = JsonValue> = (
  args: Args,
  context: RequestContext,
) => ToolResult<Structured> | InputRequired | Promise<ToolResult<Structured> | InputRequired>;
/** Reads a fixed resource (or asks for input first with `inputRequired(...)`). */
export type ResourceCallback = (
  uri: string,
  context: RequestContext,
) => ResourceResult | InputRequired | Promise<ResourceResult | InputRequired>;
/** Reads a resource matched by a template; `variables` are the template's values. */
export type TemplateCallback = (
  uri: string,
  variables: { [name: string]: string },
  context: RequestContext,
) => ResourceResult | InputRequired | Promise<ResourceResult | InputRequired>;
/** Renders a prompt (or asks for input first with `inputRequired(...)`). */
export type PromptCallback<Args = { [name: string]: string }> = (
  args: Args,
  context: RequestContext,
) => PromptResult | InputRequired | Promise<PromptResult | InputRequired>;
/** Suggests values for one argument; `args` holds the other arguments already filled in. */
export type CompletionCallback = (
  value: string,
  args: { [name: string]: string },
  context: RequestContext,
) => string[] | CompleteResult["completion"] | Promise<string[] | CompleteResult["completion"]>;

/** Per-argument completions of a prompt or resource template. */
export interface CompletionOptions {
  complete?: { [argument: string]: CompletionCallback };
}

/** Options of {@link ServerBuilder}: the server's options without `handler`, plus `pageSize` and validation. */
export interface BuilderOptions extends Omit<ServerOptions, "handler"> {
  /** Items per page of the list methods (default: everything in one page). */
  pageSize?: number;
  /**
   * Validate tool arguments before the function runs, `structuredContent` against the `outputSchema` after, and
   * schema-typed prompt arguments (default `true`; a tool's own `validate` option wins).
   */
  validate?: boolean;
  /**
   * Compiles raw JSON Schemas (default: `jsonSchemaValidator` of `mcpkit/validation`, `@cfworker/json-schema`,
   * loaded on first use). Standard Schemas are always checked by their own library.
   */
  jsonSchemaValidator?: JsonSchemaValidatorFactory;
}

interface Registered<D, C> {
  definition: D;
  callback: C;
  complete: { [argument: string]: CompletionCallback };
}

type AnyCallback = (...args: never[]) => unknown;
type PromptEntry = Registered<Prompt, AnyCallback> & PromptChecks;

/**
 * Builds a server from tools, resources, templates and prompts, each with its function. `build()` freezes it:
 * the server never changes afterwards (keep mutable state in your own objects).
 *
 * @example
 * const server = new ServerBuilder({ serverInfo: { name: "calc", version: "1.0.0" } })
 *   .tool({ name: "add", inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } } },
 *     ({ a, b }) => ({ content: [{ type: "text", text: String(Number(a) + Number(b)) }] }))
 *   .build();
 */
export class ServerBuilder {
  private readonly tools = new Map<string, RegisteredTool>();
  private readonly resources = new Map<string, Registered<Resource, ResourceCallback>>();
  private readonly templates: Registered<ResourceTemplate, TemplateCallback>[] = [];
  private readonly matchers: UriTemplate[] = [];
  private readonly prompts = new Map<string, PromptEntry>();
  private readonly requests: { [method: string]: CustomRequest } = Object.create(null);
  private readonly notifications: { [method: string]: CustomNotification } = Object.create(null);
  private readonly extensions: Extension[] = [];
  private usesDefaultValidator = false;
  private built = false;

  constructor(private readonly options: BuilderOptions) {}

  /**
   * Registers a tool. `inputSchema` is a raw JSON Schema with `"type": "object"` at its root (sent untouched;
   * the function gets a JSON object) or a Standard Schema with Standard JSON Schema, such as a zod 4.2+,
   * ArkType 2.1.28+ or Valibot (`toStandardJsonSchema`) object (sent as its JSON Schema 2020-12; the function
   * gets its typed output). An `outputSchema` of either kind types `structuredContent`. Arguments are validated
   * before the function runs and `structuredContent` after, unless `validate` is off.
   *
   * @example
   * builder.tool(
   *   { name: "add", inputSchema: z.object({ a: z.number(), b: z.number() }) },
   *   ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
   * );
   */
  tool<
    I extends SchemaInput,
    O extends SchemaInput | undefined = undefined,
    C extends ToolCallback<InferArgs<I>, InferStructured<O>> = ToolCallback<InferArgs<I>, InferStructured<O>>,
  >(
    definition: ToolDefinition<I, O> & ResultCheck<ReturnType<C>, ToolResult>,
    callback: C & NoInfer<ToolCallback<InferArgs<I>, InferStructured<O>>>,
    options: ToolOptions = {},
  ): this {
    this.open();
    const name = definition.name;
    if (typeof name !== "string" || name === "") throw invalid("a tool needs a non-empty name");
    if (this.tools.has(name)) throw invalid(`tool "${name}" is registered twice`);
    const { inputSchema, outputSchema, ...rest } = definition as ToolDefinition<I, O>;
    const wire: Tool = {
      ...(rest as Omit<Tool, "inputSchema">),
      name,
      inputSchema: wireSchema(inputSchema, "input", `tool "${name}" inputSchema`),
    };
    if (!isObject(wire.inputSchema) || wire.inputSchema.type !== "object") {
      throw invalid(`tool "${name}" needs an inputSchema with "type": "object"`);
    }
    if (outputSchema !== undefined) {
      wire.outputSchema = wireSchema(outputSchema, "output", `tool "${name}" outputSchema`);
    }
    const validate = options.validate ?? this.options.validate ?? true;
    this.tools.set(name, {
      definition: clone(wire),
      callback: callback as RegisteredTool["callback"],
      input: validate ? this.check(inputSchema, name) : undefined,
      output: validate && outputSchema !== undefined ? this.check(outputSchema, name) : undefined,
    });
    return this;
  }

  /** Registers a resource at a fixed URI. */
  resource<V extends Answer<ResourceResult | InputRequired>>(
    definition: ResourceDefinition & ResultCheck<V, ResourceResult>,
    callback: (uri: string, context: RequestContext) => V,
  ): this {
    this.open();
    return this.add(this.resources, definition.uri, "resource", { definition, callback, complete: {} });
  }

  /** Registers a resource template (`{name}` variables); reads of matching URIs go to `callback`. */
  resourceTemplate<V extends Answer<ResourceResult | InputRequired>>(
    definition: ResourceTemplateDefinition & ResultCheck<V, ResourceResult>,
    callback: (uri: string, variables: { [name: string]: string }, context: RequestContext) => V,
    options: CompletionOptions = {},
  ): this {
    this.open();
    if (this.templates.some((t) => t.definition.uriTemplate === definition.uriTemplate)) {
      throw invalid(`resource template "${definition.uriTemplate}" is registered twice`);
    }
    let matcher: UriTemplate;
    try {
      matcher = new UriTemplate(definition.uriTemplate);
    } catch (error) {
      throw invalid(toError(error).message);
    }
    this.templates.push({ definition: clone(definition), callback, complete: { ...options.complete } });
    this.matchers.push(matcher);
    return this;
  }

  /**
   * Registers a prompt, with raw `arguments` (declared `required` ones are checked before `callback` runs) or an
   * `argsSchema`: a Standard Schema of an object whose properties become the prompt's `arguments` and whose
   * output the function gets (invalid arguments: `-32602` naming every failing path).
   *
   * @example
   * builder.prompt({ name: "review", argsSchema: z.object({ file: z.string().describe("Path") }) }, ({ file }) => ({
   *   messages: [{ role: "user", content: { type: "text", text: `Review ${file}` } }],
   * }));
   */
  prompt<
    A extends StandardSchemaWithJson | undefined = undefined,
    V extends Answer<PromptResult | InputRequired> = Answer<PromptResult | InputRequired>,
  >(
    definition: PromptDefinition<A> & ResultCheck<V, PromptResult>,
    callback: (args: InferPromptArgs<A>, context: RequestContext) => V,
    options: CompletionOptions = {},
  ): this {
    this.open();
    const { argsSchema, ...rest } = definition as PromptDefinition<A>;
    const wire = rest as Prompt;
    let args: Check | undefined;
    if (argsSchema !== undefined) {
      const what = `prompt "${definition.name}" argsSchema`;
      if (!isStandardSchema(argsSchema)) throw invalid(`${what} must be a Standard Schema`);
      if (wire.arguments !== undefined)
        throw invalid(`prompt "${definition.name}" has both arguments and argsSchema`);
      wire.arguments = promptArguments(wireSchema(argsSchema, "input", what), what);
      if (this.options.validate ?? true) args = standardCheck(argsSchema);
    }
    const entry: PromptEntry = {
      definition: wire,
      callback: callback as AnyCallback,
      complete: { ...options.complete },
      args,
    };
    return this.add(this.prompts, definition.name, "prompt", entry);
  }

  /**
   * Registers a custom request method (served in both eras; core MCP names are refused), with an optional
   * params schema (a Standard Schema types and checks the params: bad ones get `-32602`) and cacheability. The
   * handler gets the same `RequestContext`, executor and projection as the core methods, and may return
   * `inputRequired(...)`.
   *
   * @example
   * builder.request("acme/search", { params: z.object({ q: z.string() }) }, ({ q }) => ({ hits: [q] }));
   */
  request<R extends CustomResult = CustomResult>(
    method: string,
    handler: CustomRequestHandler<CustomParams, R>,
  ): this;
  request<S extends ParamsSchema | undefined, R extends CustomResult = CustomResult>(
    method: string,
    options: CustomRequestOptions<S>,
    handler: CustomRequestHandler<InferParams<S>, R>,
  ): this;
  request(method: string, first: unknown, second?: unknown): this {
    this.open();
    const entry =
      second === undefined ? first : defineRequest(first as CustomRequestOptions, second as never);
    if (Object.hasOwn(this.options.requests ?? {}, method) || Object.hasOwn(this.requests, method)) {
      throw invalid(`custom request "${method}" is registered twice`);
    }
    Object.assign(this.requests, requestTable({ [method]: entry as RequestEntry }, "request"));
    return this;
  }

  /**
   * Registers a handler of a client-to-server notification (custom names, or
   * `notifications/roots/list_changed`), with an optional params schema (params that fail it are dropped and
   * logged).
   *
   * @example
   * builder.notification("acme/seen", ({ id }) => markSeen(String(id)));
   */
  notification(method: string, handler: CustomNotificationHandler): this;
  notification<S extends ParamsSchema | undefined>(
    method: string,
    options: { params?: S },
    handler: CustomNotificationHandler<InferParams<S>>,
  ): this;
  notification(method: string, first: unknown, second?: unknown): this {
    this.open();
    const entry =
      second === undefined ? first : defineNotification(first as { params?: ParamsSchema }, second as never);
    if (
      Object.hasOwn(this.options.notifications ?? {}, method) ||
      Object.hasOwn(this.notifications, method)
    ) {
      throw invalid(`custom notification "${method}" is registered twice`);
    }
    Object.assign(
      this.notifications,
      notificationTable({ [method]: entry as NotificationEntry }, "notification"),
    );
    return this;
  }

  /**
   * Adds an extension made by `defineExtension`: advertised under `capabilities.extensions` in the eras it
   * serves, with its methods and notifications.
   *
   * @example
   * builder.extension(defineExtension({ id: "com.example/search", requests: { "search/query": query } }));
   */
  extension(extension: Extension): this {
    this.open();
    if (!isExtension(extension)) throw invalid("extension() takes an extension made by defineExtension()");
    this.extensions.push(extension);
    return this;
  }

  /** Freezes the registrations into a {@link Server}. */
  build(): Server {
    this.open();
    this.built = true;
    const { pageSize, validate: _validate, jsonSchemaValidator: _factory, ...serverOptions } = this.options;
    const size = pageSize ?? Number.MAX_SAFE_INTEGER;
    if (!Number.isInteger(size) || size <= 0) throw invalid("pageSize must be a positive integer");
    const custom = mergeCustomSurface(serverOptions, {
      requests: this.requests,
      notifications: this.notifications,
      extensions: this.extensions,
    });
    const server = createServer({ ...serverOptions, ...custom, handler: this.handler(size) });
    // Start loading the default validator now, so the first call does not wait for it (a failure shows there).
    if (this.usesDefaultValidator) loadJsonSchemaValidator().catch(() => {});
    return server;
  }

  private handler(size: number): ServerHandler {
    const tools = new Map(this.tools);
    const resources = new Map(this.resources);
    const templates = [...this.templates];
    const matchers = [...this.matchers];
    const prompts = new Map(this.prompts);
    const handler: ServerHandler = {};
    if (tools.size > 0) {
      const list = [...tools.values()].map((t) => t.definition);
      handler.listTools = ({ cursor }) => {
        const { items, nextCursor } = page(list, cursor, size);
        return nextCursor === undefined ? { tools: items } : { tools: items, nextCursor };
      };
      handler.callTool = ({ name, arguments: args }, context) => {
        const tool = tools.get(name);
        if (!tool) throw invalidParams(`Unknown tool: ${name}`);
        return runTool(tool, args, context);
      };
    }
    if (resources.size > 0 || templates.length > 0) {
      const list = [...resources.values()].map((r) => r.definition);
      const templateList = templates.map((t) => t.definition);
      handler.listResources = ({ cursor }) => {
        const { items, nextCursor } = page(list, cursor, size);
        return nextCursor === undefined ? { resources: items } : { resources: items, nextCursor };
      };
      handler.listResourceTemplates = ({ cursor }) => {
        const { items, nextCursor } = page(templateList, cursor, size);
        return nextCursor === undefined
          ? { resourceTemplates: items }
          : { resourceTemplates: items, nextCursor };
      };
      handler.readResource = ({ uri }, context) => {
        const fixed = resources.get(uri);
        if (fixed) return fixed.callback(uri, context) as Answer<ReadResourceResult | InputRequired>;
        for (let i = 0; i < matchers.length; i++) {
          const variables = matchers[i]?.match(uri);
          const template = templates[i];
          if (variables && template) {
            return template.callback(uri, variables, context) as Answer<ReadResourceResult | InputRequired>;
          }
        }
        throw resourceNotFound(uri);
      };
    }
    if (prompts.size > 0) {
      const list = [...prompts.values()].map((p) => p.definition);
      handler.listPrompts = ({ cursor }) => {
        const { items, nextCursor } = page(list, cursor, size);
        return nextCursor === undefined ? { prompts: items } : { prompts: items, nextCursor };
      };
      handler.getPrompt = async ({ name, arguments: args }, context) => {
        const prompt = prompts.get(name);
        if (!prompt) throw invalidParams(`Unknown prompt: ${name}`);
        if (prompt.args === undefined) {
          for (const argument of prompt.definition.arguments ?? []) {
            if (argument.required && args[argument.name] === undefined) {
              throw invalidParams(`missing required argument "${argument.name}"`);
            }
          }
        }
        const input = await checkPromptArgs(name, prompt, args);
        const callback = prompt.callback as (args: unknown, context: RequestContext) => unknown;
        return (await callback(input, context)) as GetPromptResult | InputRequired;
      };
    }
    const completable = [...prompts.values(), ...templates].some((r) => Object.keys(r.complete).length > 0);
    if (completable) {
      handler.complete = async ({ ref, argument, context: extra }, context) => {
        const owner =
          ref.type === "ref/prompt"
            ? prompts.get(ref.name)
            : templates.find((t) => t.definition.uriTemplate === ref.uri);
        if (!owner) throw invalidParams("unknown completion reference");
        const callback = owner.complete[argument.name];
        if (!callback) return { completion: { values: [] } };
        const answer = await callback(argument.value, extra?.arguments ?? {}, context);
        const completion = Array.isArray(answer) ? { values: answer } : answer;
        // The spec caps one answer at 100 values; say there are more instead of sending them.
        if (completion.values.length > 100) {
          return {
            completion: {
              ...completion,
              values: completion.values.slice(0, 100),
              total: completion.values.length,
              hasMore: true,
            },
          };
        }
        return { completion };
      };
    }
    return handler;
  }

  private add<D, C>(
    map: Map<string, Registered<D, C>>,
    key: string,
    kind: string,
    entry: Registered<D, C>,
  ): this {
    if (typeof key !== "string" || key === "") throw invalid(`a ${kind} needs a non-empty name`);
    if (map.has(key)) throw invalid(`${kind} "${key}" is registered twice`);
    map.set(key, { ...entry, definition: clone(entry.definition) });
    return this;
  }

  private check(schema: unknown, tool: string): Check {
    const factory = this.options.jsonSchemaValidator;
    if (!isStandardSchema(schema) && factory === undefined) this.usesDefaultValidator = true;
    try {
      return checkFor(schema, factory);
    } catch (error) {
      throw invalid(`tool "${tool}": the JSON Schema validator rejected a schema: ${toError(error).message}`);
    }
  }

  private open(): void {
    if (this.built) throw invalid("the builder has already built its server");
  }
}

function clone<T>(value: T): T {
  return Object.freeze(structuredClone(value));
}

function invalid(message: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", message);
}
