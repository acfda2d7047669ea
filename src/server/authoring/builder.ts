import { checkKeys, positiveInteger } from "../../jsonrpc/config-check.js";
import { isObject } from "../../jsonrpc/message.js";
import type { StandardSchemaWithJson } from "../../protocol/standard-schema.js";
import type { JsonSchemaValidatorFactory } from "../../protocol/validation.js";
import { loadJsonSchemaValidator } from "../../validation/load.js";
import type { RequestContext } from "../core/context.js";
import type { ServerHandler } from "../core/handler.js";
import type { ListFamily } from "../core/listen.js";
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
} from "../custom/custom.js";
import { type Extension, isExtension, notificationTable, requestTable } from "../custom/extension.js";
import { claimGuards } from "../custom/extension-resources.js";
import { extensionClaims, mergeCustomSurface } from "../custom/methods.js";
import { type ServerOptions, serverConfig } from "../options.js";
import { createServer, type Server } from "../server.js";
import type { InputRequired } from "../state/input.js";
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
import type { CompletionOptions, ResourceTemplateOptions, ToolCallback } from "./callbacks.js";
import { type DynamicOptions, DynamicServer } from "./dynamic.js";
import { DynamicPlugin } from "./dynamic-plugin.js";
import {
  type AnyPromptDefinition,
  type AnyToolDefinition,
  type Completer,
  invalid,
  promptEntry,
  resourceEntry,
  templateEntry,
  toolEntry,
  type Validation,
} from "./registrations.js";
import { DEFAULT_MAX_REGISTRATIONS, Registry } from "./registry.js";
import { registryHandler } from "./registry-handler.js";
import type { TemplateVariables } from "./template-variables.js";
import { ToolFailures } from "./tool-failures.js";

/** @inline */
type Answer<T> = Promise<T> | T;

export type {
  CompletionCallback,
  CompletionOptions,
  PromptCallback,
  ResourceCallback,
  ResourceListCallback,
  ResourceTemplateOptions,
  TemplateCallback,
  ToolCallback,
} from "./callbacks.js";

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
  /**
   * Items one family may hold: tools, prompts, resources and resource templates each (default 10,000). One more
   * throws `McpkitError` `CAPACITY`, in the builder and at run time alike; a template's `list` callback may
   * return as many resources.
   */
  maxRegistrations?: number;
}

const BUILDER_KEYS = ["pageSize", "validate", "jsonSchemaValidator", "maxRegistrations"] as const;
const FAMILIES: readonly ListFamily[] = ["tools", "prompts", "resources"];

/**
 * Builds a server from tools, resources, templates and prompts, each with its function. `build()` freezes it:
 * the server never changes afterwards (keep mutable state in your own objects). `buildDynamic()` gives a server
 * whose registrations change at run time instead (see {@link DynamicServer}).
 *
 * @example
 * const server = new ServerBuilder({ serverInfo: { name: "calc", version: "1.0.0" } })
 *   .tool({ name: "add", inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } } },
 *     ({ a, b }) => ({ content: [{ type: "text", text: String(Number(a) + Number(b)) }] }))
 *   .build();
 */
export class ServerBuilder {
  private readonly registry: Registry;
  private readonly requests: { [method: string]: CustomRequest } = Object.create(null);
  private readonly notifications: { [method: string]: CustomNotification } = Object.create(null);
  private readonly extensions: Extension[] = [];
  private usesDefaultValidator = false;
  private readonly validation: Validation;
  private built = false;

  constructor(private readonly options: BuilderOptions) {
    this.registry = new Registry(
      positiveInteger(options.maxRegistrations, DEFAULT_MAX_REGISTRATIONS, "maxRegistrations"),
    );
    this.validation = {
      validate: options.validate ?? true,
      factory: options.jsonSchemaValidator,
      usesDefault: () => {
        this.usesDefaultValidator = true;
      },
    };
  }

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
    const entry = toolEntry(definition as AnyToolDefinition, callback, options, this.validation);
    this.registry.tools.add(entry.definition.name, entry);
    return this;
  }

  /** Registers a resource at a fixed URI. */
  resource<V extends Answer<ResourceResult | InputRequired>>(
    definition: ResourceDefinition & ResultCheck<V, ResourceResult>,
    callback: (uri: string, context: RequestContext) => V,
  ): this {
    this.open();
    const entry = resourceEntry(definition, callback);
    this.registry.resources.add(entry.definition.uri, entry);
    return this;
  }

  /**
   * Registers a resource template (RFC 6570: `{id}`, `{+path}`, `{/segments*}`, `{?query,params}`, ...; see
   * docs/tools.md); reads of matching URIs go to `callback` with the template's variables, typed from the
   * template's text. `options.list` makes the template's resources appear in `resources/list`.
   *
   * @example
   * builder.resourceTemplate(
   *   { uriTemplate: "notes://{id}", name: "note" },
   *   (uri, { id }) => ({ contents: [{ uri, text: notes.get(id) ?? "" }] }),
   *   { list: () => ({ resources: [...notes.keys()].map((id) => ({ uri: `notes://${id}`, name: id })) }) },
   * );
   */
  resourceTemplate<U extends string, V extends Answer<ResourceResult | InputRequired>>(
    definition: ResourceTemplateDefinition & { uriTemplate: U } & ResultCheck<V, ResourceResult>,
    callback: (uri: string, variables: TemplateVariables<U>, context: RequestContext) => V,
    options: ResourceTemplateOptions = {},
  ): this {
    this.open();
    const entry = templateEntry(definition, callback, {
      complete: options.complete as { [argument: string]: Completer } | undefined,
      list: options.list,
    });
    this.registry.templates.add(entry.definition.uriTemplate, entry);
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
    const complete = options.complete as { [argument: string]: Completer } | undefined;
    const entry = promptEntry(definition as AnyPromptDefinition, callback, complete, this.validation);
    this.registry.prompts.add(entry.definition.name, entry);
    return this;
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
    const { serverOptions, size } = this.close();
    this.guardResources(serverOptions);
    const { tools, prompts, resources, templates } = this.registry;
    const families = new Set<ListFamily>();
    if (tools.size > 0) families.add("tools");
    if (prompts.size > 0) families.add("prompts");
    if (resources.size > 0 || templates.size > 0) families.add("resources");
    const completable = [...prompts.list(), ...templates.list()].some(
      (s) => Object.keys(s.entry.complete).length > 0,
    );
    const failures = new ToolFailures();
    const server = createServer({
      ...serverOptions,
      ...this.customSurface(serverOptions),
      handler: registryHandler(this.registry, size, families, completable, failures),
    });
    failures.bind(server.config);
    this.preload();
    return server;
  }

  /**
   * Builds a server whose tools, prompts, resources and templates change at run time: `server.tools.add(...)`,
   * `.remove(name)`, a handle's `.enable()`, `.disable()`, `.update(...)` (see {@link DynamicServer}). It holds
   * every family unless `families` names fewer, and advertises `listChanged` for each one it holds (unless the
   * `listChanged` option turns one off): every change then sends `notifications/<family>/list_changed` by itself.
   *
   * @example
   * const server = new ServerBuilder({ serverInfo: { name: "s", version: "1.0.0" } }).buildDynamic();
   * const echo = server.tools.add({ name: "echo", inputSchema: { type: "object" } }, () => ({ content: [] }));
   * echo.disable(); // clients get notifications/tools/list_changed
   */
  buildDynamic(options: DynamicOptions = {}): DynamicServer {
    if (!isObject(options)) throw invalid("buildDynamic options must be an object");
    checkKeys(options, ["families"], (key, problem) => invalid(`buildDynamic option ${key} ${problem}`));
    const held = options.families ?? FAMILIES;
    if (!Array.isArray(held) || !held.every((f) => FAMILIES.includes(f))) {
      throw invalid('buildDynamic option families must list "tools", "prompts" or "resources"');
    }
    const families = new Set<ListFamily>(held);
    const { tools, prompts, resources, templates } = this.registry;
    const used: [ListFamily, number][] = [
      ["tools", tools.size],
      ["prompts", prompts.size],
      ["resources", resources.size + templates.size],
    ];
    for (const [family, count] of used) {
      if (count > 0 && !families.has(family))
        throw invalid(`${family} are registered but families leaves them out`);
    }
    const { serverOptions, size } = this.close();
    this.guardResources(serverOptions);
    const listChanged: { [family in ListFamily]?: boolean } = {};
    for (const family of families) listChanged[family] = this.options.listChanged?.[family] ?? true;
    const completions = families.has("prompts") || families.has("resources");
    const failures = new ToolFailures();
    const handler: ServerHandler = registryHandler(this.registry, size, families, completions, failures);
    // Changes at run time join the server as a plugin (the first of the options' own).
    const dynamic = new DynamicPlugin(this.registry, families, {
      ...this.validation,
      usesDefault: () => {
        loadJsonSchemaValidator().catch(() => {});
      },
    });
    const config = serverConfig({
      ...serverOptions,
      ...this.customSurface(serverOptions),
      listChanged,
      handler,
      // Anything but an array is left for the server's own check to refuse.
      plugins: Array.isArray(serverOptions.plugins)
        ? [dynamic, ...serverOptions.plugins]
        : (serverOptions.plugins ?? [dynamic]),
    });
    failures.bind(config);
    this.preload();
    return new DynamicServer(config, dynamic);
  }

  /**
   * Keeps the registered resources and templates apart from the extensions' own resources (`INVALID_CONFIG`
   * naming both), now and, for a dynamic server, at every later registration.
   */
  private guardResources(serverOptions: Omit<ServerOptions, "handler">): void {
    const claims = extensionClaims(this.customSurface(serverOptions).extensions);
    if (claims.length === 0) return;
    const guards = claimGuards(claims);
    this.registry.resources.guard((uri) => guards.resource(uri));
    this.registry.templates.guard((uriTemplate, entry) =>
      guards.template(uriTemplate, (uri) => entry.matcher.match(uri) !== undefined),
    );
  }

  /** The custom methods, notifications and extensions of the options and of the builder, merged. */
  private customSurface(serverOptions: Omit<ServerOptions, "handler">) {
    return mergeCustomSurface(serverOptions, {
      requests: this.requests,
      notifications: this.notifications,
      extensions: this.extensions,
    });
  }

  /** Ends the building: the server's own options, and the page size (checked). */
  private close(): { serverOptions: Omit<ServerOptions, "handler">; size: number } {
    this.open();
    this.built = true;
    const serverOptions: { [key: string]: unknown } = { ...this.options };
    for (const key of BUILDER_KEYS) delete serverOptions[key];
    const size = positiveInteger(this.options.pageSize, Number.MAX_SAFE_INTEGER, "pageSize");
    return { serverOptions: serverOptions as Omit<ServerOptions, "handler">, size };
  }

  /** Starts loading the default validator now, so the first call does not wait for it (a failure shows there). */
  private preload(): void {
    if (this.usesDefaultValidator) loadJsonSchemaValidator().catch(() => {});
  }

  private open(): void {
    if (this.built) throw invalid("the builder has already built its server");
  }
}
