import { McpkitError, toError } from "../../jsonrpc/errors.js";
import { isObject } from "../../jsonrpc/message.js";
import type { StandardSchemaWithJson } from "../../protocol/standard-schema.js";
import type { Prompt } from "../../protocol/types/prompts.js";
import type { Resource, ResourceTemplate } from "../../protocol/types/resources.js";
import type { Tool } from "../../protocol/types/tools.js";
import type { JsonSchemaValidatorFactory } from "../../protocol/validation.js";
import type { RequestContext } from "../core/context.js";
import {
  type Check,
  checkFor,
  isStandardSchema,
  promptArguments,
  standardCheck,
  wireSchema,
} from "../custom/schemas.js";
import type {
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  SchemaInput,
  ToolDefinition,
  ToolOptions,
} from "./authoring.js";
import type { PromptChecks, RegisteredTool } from "./typed-calls.js";
import { UriTemplate } from "./uri-template.js";

type Answer<T> = Promise<T> | T;
type AnyCallback = (...args: never[]) => unknown;

/** A tool definition with any schemas. */
export type AnyToolDefinition = ToolDefinition<SchemaInput, SchemaInput | undefined>;

/** A prompt definition with any (or no) arguments schema. */
export type AnyPromptDefinition = PromptDefinition<StandardSchemaWithJson | undefined>;

/** Suggests values for one argument (see `CompletionCallback` of the builder). */
export type Completer = (
  value: string,
  args: { [name: string]: string },
  context: RequestContext,
) => Answer<string[] | { values: string[]; total?: number; hasMore?: boolean }>;

/**
 * Lists the resources a template stands for, so that they appear in `resources/list` (after the fixed
 * resources; see `ResourceTemplateOptions`).
 *
 * @example
 * const list: ResourceListCallback = () => ({ resources: [{ uri: "notes://1", name: "first note" }] });
 */
export type ResourceListCallback = (
  context: RequestContext,
) => { resources: ResourceDefinition[] } | Promise<{ resources: ResourceDefinition[] }>;

/** A tool as registered: what runs it, plus what it was made from (for `update`). */
export interface ToolEntry extends RegisteredTool {
  readonly source: { definition: AnyToolDefinition; options: ToolOptions };
}

/** A prompt as registered. */
export interface PromptEntry extends PromptChecks {
  readonly definition: Prompt;
  readonly callback: AnyCallback;
  readonly complete: { readonly [argument: string]: Completer };
  readonly source: AnyPromptDefinition;
}

/** A fixed resource as registered. */
export interface ResourceEntry {
  readonly definition: Resource;
  readonly callback: AnyCallback;
}

/** A resource template as registered: its matcher, and its optional lister. */
export interface TemplateEntry {
  readonly definition: ResourceTemplate;
  readonly callback: AnyCallback;
  readonly complete: { readonly [argument: string]: Completer };
  readonly matcher: UriTemplate;
  readonly list: ResourceListCallback | undefined;
}

/** How tools and prompts are checked: the builder's `validate` and `jsonSchemaValidator`. */
export interface Validation {
  readonly validate: boolean;
  readonly factory: JsonSchemaValidatorFactory | undefined;
  /** Told when a raw JSON Schema will use the default validator (so it can start loading). */
  readonly usesDefault: () => void;
}

/**
 * Turns a tool definition into what runs it: the wire definition (a Standard Schema converted to JSON Schema
 * 2020-12), and the argument and result checks unless validation is off. Throws `INVALID_CONFIG`.
 */
export function toolEntry(
  definition: AnyToolDefinition,
  callback: unknown,
  options: ToolOptions,
  validation: Validation,
): ToolEntry {
  if (!isObject(definition)) throw invalid("a tool definition must be an object");
  const name = definition.name;
  if (typeof name !== "string" || name === "") throw invalid("a tool needs a non-empty name");
  if (typeof callback !== "function") throw invalid(`tool "${name}" needs a function`);
  const { inputSchema, outputSchema, ...rest } = definition;
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
  const validate = options.validate ?? validation.validate;
  return {
    definition: frozen(wire),
    callback: callback as RegisteredTool["callback"],
    input: validate ? check(inputSchema, name, validation) : undefined,
    output: validate && outputSchema !== undefined ? check(outputSchema, name, validation) : undefined,
    // Copies: a change the caller makes to its objects later must not leak into `update()`.
    source: { definition: { ...definition }, options: { ...options } },
  };
}

/** Turns a prompt definition into an entry; `argsSchema` becomes the wire `arguments`. Throws `INVALID_CONFIG`. */
export function promptEntry(
  definition: AnyPromptDefinition,
  callback: unknown,
  complete: { [argument: string]: Completer } | undefined,
  validation: Validation,
): PromptEntry {
  if (!isObject(definition)) throw invalid("a prompt definition must be an object");
  if (typeof definition.name !== "string" || definition.name === "") {
    throw invalid("a prompt needs a non-empty name");
  }
  if (typeof callback !== "function") throw invalid(`prompt "${definition.name}" needs a function`);
  const { argsSchema, ...rest } = definition;
  const wire = { ...rest } as Prompt;
  let args: Check | undefined;
  if (argsSchema !== undefined) {
    const what = `prompt "${definition.name}" argsSchema`;
    if (!isStandardSchema(argsSchema)) throw invalid(`${what} must be a Standard Schema`);
    if (wire.arguments !== undefined)
      throw invalid(`prompt "${definition.name}" has both arguments and argsSchema`);
    wire.arguments = promptArguments(wireSchema(argsSchema, "input", what), what);
    if (validation.validate) args = standardCheck(argsSchema);
  }
  return {
    definition: frozen(wire),
    callback: callback as AnyCallback,
    complete: completers(complete, `prompt "${definition.name}"`),
    args,
    source: { ...definition },
  };
}

/** Checks a fixed resource's definition. Throws `INVALID_CONFIG`. */
export function resourceEntry(definition: ResourceDefinition, callback: unknown): ResourceEntry {
  if (!isObject(definition)) throw invalid("a resource definition must be an object");
  if (typeof definition.uri !== "string" || definition.uri === "")
    throw invalid("a resource needs a non-empty uri");
  if (typeof definition.name !== "string") throw invalid(`resource "${definition.uri}" needs a name`);
  if (typeof callback !== "function") throw invalid(`resource "${definition.uri}" needs a function`);
  return { definition: frozen(definition), callback: callback as AnyCallback };
}

/** Checks a template's definition and compiles its matcher. Throws `INVALID_CONFIG` for a bad template. */
export function templateEntry(
  definition: ResourceTemplateDefinition,
  callback: unknown,
  options: {
    complete?: { [argument: string]: Completer } | undefined;
    list?: ResourceListCallback | undefined;
  },
): TemplateEntry {
  if (!isObject(definition)) throw invalid("a resource template definition must be an object");
  const uriTemplate = definition.uriTemplate;
  if (typeof uriTemplate !== "string" || uriTemplate === "") {
    throw invalid("a resource template needs a non-empty uriTemplate");
  }
  if (typeof definition.name !== "string") throw invalid(`resource template "${uriTemplate}" needs a name`);
  if (typeof callback !== "function") throw invalid(`resource template "${uriTemplate}" needs a function`);
  if (options.list !== undefined && typeof options.list !== "function") {
    throw invalid(`resource template "${uriTemplate}": list must be a function`);
  }
  let matcher: UriTemplate;
  try {
    matcher = new UriTemplate(uriTemplate);
  } catch (error) {
    throw invalid(toError(error).message);
  }
  return {
    definition: frozen(definition),
    callback: callback as AnyCallback,
    complete: completers(options.complete, `resource template "${uriTemplate}"`),
    matcher,
    list: options.list,
  };
}

function completers(
  complete: { [argument: string]: Completer } | undefined,
  what: string,
): { [argument: string]: Completer } {
  if (complete === undefined) return {};
  if (!isObject(complete)) throw invalid(`${what}: complete must be an object of functions`);
  for (const [argument, callback] of Object.entries(complete)) {
    if (typeof callback !== "function") throw invalid(`${what}: complete.${argument} must be a function`);
  }
  return { ...complete };
}

function check(schema: unknown, tool: string, validation: Validation): Check {
  if (!isStandardSchema(schema) && validation.factory === undefined) validation.usesDefault();
  try {
    return checkFor(schema, validation.factory);
  } catch (error) {
    throw invalid(`tool "${tool}": the JSON Schema validator rejected a schema: ${toError(error).message}`);
  }
}

function frozen<T>(value: T): T {
  return Object.freeze(structuredClone(value));
}

/** `INVALID_CONFIG` with a message naming the fault. */
export function invalid(message: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", message);
}
