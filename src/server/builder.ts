import { JsonRpcError, McpkitError, toError } from "../jsonrpc/errors.js";
import { isObject } from "../jsonrpc/message.js";
import type { CompleteResult } from "../protocol/types/completion.js";
import type { GetPromptResult, Prompt } from "../protocol/types/prompts.js";
import type { ReadResourceResult, Resource, ResourceTemplate } from "../protocol/types/resources.js";
import type { CallToolResult, Tool } from "../protocol/types/tools.js";
import type { RequestContext } from "./context.js";
import { invalidParams, resourceNotFound } from "./errors.js";
import type { ServerHandler } from "./handler.js";
import { type InputRequired, isInputRequired } from "./input.js";
import type { ServerOptions } from "./options.js";
import { page } from "./pagination.js";
import { createServer, type Server } from "./server.js";
import { UriTemplate } from "./uri-template.js";

/**
 * Runs a tool. Throw a `JsonRpcError` for a protocol error; anything else thrown becomes an `isError` result.
 * Return `inputRequired(...)` to ask the client for input first.
 */
export type ToolCallback = (
  args: { [key: string]: unknown },
  context: RequestContext,
) => CallToolResult | InputRequired | Promise<CallToolResult | InputRequired>;
/** Reads a fixed resource (or asks for input first with `inputRequired(...)`). */
export type ResourceCallback = (
  uri: string,
  context: RequestContext,
) => ReadResourceResult | InputRequired | Promise<ReadResourceResult | InputRequired>;
/** Reads a resource matched by a template; `variables` are the template's values. */
export type TemplateCallback = (
  uri: string,
  variables: { [name: string]: string },
  context: RequestContext,
) => ReadResourceResult | InputRequired | Promise<ReadResourceResult | InputRequired>;
/** Renders a prompt (or asks for input first with `inputRequired(...)`). */
export type PromptCallback = (
  args: { [name: string]: string },
  context: RequestContext,
) => GetPromptResult | InputRequired | Promise<GetPromptResult | InputRequired>;
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

/** Options of {@link ServerBuilder}: the server's options without `handler`, plus `pageSize`. */
export interface BuilderOptions extends Omit<ServerOptions, "handler"> {
  /** Items per page of the list methods (default: everything in one page). */
  pageSize?: number;
}

interface Registered<D, C> {
  definition: D;
  callback: C;
  complete: { [argument: string]: CompletionCallback };
}

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
  private readonly tools = new Map<string, Registered<Tool, ToolCallback>>();
  private readonly resources = new Map<string, Registered<Resource, ResourceCallback>>();
  private readonly templates: Registered<ResourceTemplate, TemplateCallback>[] = [];
  private readonly matchers: UriTemplate[] = [];
  private readonly prompts = new Map<string, Registered<Prompt, PromptCallback>>();
  private built = false;

  constructor(private readonly options: BuilderOptions) {}

  /** Registers a tool. Its `inputSchema` must be an object schema; it is sent untouched. */
  tool(definition: Tool, callback: ToolCallback): this {
    this.open();
    if (!isObject(definition.inputSchema) || definition.inputSchema.type !== "object") {
      throw invalid(`tool "${definition.name}" needs an inputSchema with "type": "object"`);
    }
    return this.add(this.tools, definition.name, "tool", { definition, callback, complete: {} });
  }

  /** Registers a resource at a fixed URI. */
  resource(definition: Resource, callback: ResourceCallback): this {
    this.open();
    return this.add(this.resources, definition.uri, "resource", { definition, callback, complete: {} });
  }

  /** Registers a resource template (`{name}` variables); reads of matching URIs go to `callback`. */
  resourceTemplate(
    definition: ResourceTemplate,
    callback: TemplateCallback,
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

  /** Registers a prompt; declared `required` arguments are checked before `callback` runs. */
  prompt(definition: Prompt, callback: PromptCallback, options: CompletionOptions = {}): this {
    this.open();
    return this.add(this.prompts, definition.name, "prompt", {
      definition,
      callback,
      complete: { ...options.complete },
    });
  }

  /** Freezes the registrations into a {@link Server}. */
  build(): Server {
    this.open();
    this.built = true;
    const { pageSize, ...serverOptions } = this.options;
    const size = pageSize ?? Number.MAX_SAFE_INTEGER;
    if (!Number.isInteger(size) || size <= 0) throw invalid("pageSize must be a positive integer");
    return createServer({ ...serverOptions, handler: this.handler(size) });
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
      handler.callTool = async ({ name, arguments: args }, context) => {
        const tool = tools.get(name);
        if (!tool) throw invalidParams(`Unknown tool: ${name}`);
        let result: CallToolResult | InputRequired;
        try {
          result = await tool.callback(args, context);
        } catch (error) {
          if (error instanceof JsonRpcError) throw error;
          return { content: [{ type: "text", text: toError(error).message }], isError: true };
        }
        if (isInputRequired(result)) return result;
        // The spec: a tool that declares an outputSchema must return structured content (unless it failed).
        if (
          tool.definition.outputSchema !== undefined &&
          result.isError !== true &&
          !("structuredContent" in result)
        ) {
          throw new Error(`tool "${name}" declares an outputSchema but returned no structuredContent`);
        }
        return result;
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
        if (fixed) return fixed.callback(uri, context);
        for (let i = 0; i < matchers.length; i++) {
          const variables = matchers[i]?.match(uri);
          const template = templates[i];
          if (variables && template) return template.callback(uri, variables, context);
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
      handler.getPrompt = ({ name, arguments: args }, context) => {
        const prompt = prompts.get(name);
        if (!prompt) throw invalidParams(`Unknown prompt: ${name}`);
        for (const argument of prompt.definition.arguments ?? []) {
          if (argument.required && args[argument.name] === undefined) {
            throw invalidParams(`missing required argument "${argument.name}"`);
          }
        }
        return prompt.callback(args, context);
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
