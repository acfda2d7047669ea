import type { JsonValue } from "../../jsonrpc/message.js";
import type { StandardSchemaWithJson } from "../../protocol/standard-schema.js";
import type { Prompt } from "../../protocol/types/prompts.js";
import type { Resource, ResourceTemplate } from "../../protocol/types/resources.js";
import type { Tool } from "../../protocol/types/tools.js";
import type { RequestContext } from "../core/context.js";
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
import type {
  CompletionCallback,
  ResourceListCallback,
  ResourceTemplateOptions,
  ToolCallback,
} from "./callbacks.js";
import {
  type AnyPromptDefinition,
  type AnyToolDefinition,
  type Completer,
  invalid,
  type PromptEntry,
  promptEntry,
  type ResourceEntry,
  resourceEntry,
  type TemplateEntry,
  type ToolEntry,
  templateEntry,
  toolEntry,
  type Validation,
} from "./registrations.js";
import type { Slot, Table } from "./registry.js";
import type { TemplateVariables } from "./template-variables.js";

/** @inline */
type Answer<T> = Promise<T> | T;

/**
 * The members of `T` an `update()` may change: each optional, and given as `undefined` to drop it.
 *
 * @example
 * const changes: UpdateOf<{ title: string }> = { title: undefined }; // drops the title
 */
export type UpdateOf<T> = { [K in keyof T]?: T[K] | undefined };

/** What every registered item's handle does. */
export interface RegistrationHandle {
  /** True while the item is listed and callable (registered, not disabled). */
  readonly enabled: boolean;
  /** True once the item was removed (the handle then only reads). */
  readonly removed: boolean;
  /** Lists the item again. A change only when it was disabled. Throws `INVALID_CONFIG` once removed. */
  enable(): void;
  /** Hides the item: unlisted, and a call gets the unknown-item error. Throws `INVALID_CONFIG` once removed. */
  disable(): void;
  /** Removes the item; its key is free again. Idempotent. */
  remove(): void;
}

/** Changes to a tool: definition members (`undefined` drops one), its function, its `validate` option. */
export type ToolUpdate = UpdateOf<Omit<ToolDefinition<SchemaInput, SchemaInput>, "name" | "inputSchema">> & {
  /** A new name (it must be free). */
  name?: string;
  /** A new input schema, checked and validated as `add` does. */
  inputSchema?: SchemaInput;
  /** A new function. */
  callback?: (
    args: never,
    context: RequestContext,
  ) => ToolResult<unknown> | InputRequired | Promise<ToolResult<unknown> | InputRequired>;
  /** Validate arguments and `structuredContent` (the tool's own option). */
  validate?: boolean;
};

/** A registered tool. */
export interface ToolHandle extends RegistrationHandle {
  readonly name: string;
  /** The definition as clients see it. */
  readonly definition: Tool;
  /** Changes the tool at once (checked as `add` checks it); a new `name` must be free. */
  update(changes: ToolUpdate): void;
}

/** Changes to a prompt: definition members (`undefined` drops one), its function, its completions. */
export type PromptUpdate = UpdateOf<Omit<PromptDefinition<StandardSchemaWithJson>, "name">> & {
  /** A new name (it must be free). */
  name?: string;
  /** A new function. */
  callback?: (
    args: never,
    context: RequestContext,
  ) => PromptResult | InputRequired | Promise<PromptResult | InputRequired>;
  /** New completions, replacing the old ones (`{}` drops them). */
  complete?: { [argument: string]: CompletionCallback };
};

/** A registered prompt. */
export interface PromptHandle extends RegistrationHandle {
  readonly name: string;
  readonly definition: Prompt;
  /** Changes the prompt at once; a new `name` must be free. */
  update(changes: PromptUpdate): void;
}

/** Changes to a resource: definition members (`undefined` drops one), its function. */
export type ResourceUpdate = UpdateOf<Omit<ResourceDefinition, "uri" | "name">> & {
  /** A new URI (it must be free). */
  uri?: string;
  /** A new name. */
  name?: string;
  /** A new function. */
  callback?: (
    uri: string,
    context: RequestContext,
  ) => ResourceResult | InputRequired | Promise<ResourceResult | InputRequired>;
};

/** A registered fixed resource. */
export interface ResourceHandle extends RegistrationHandle {
  readonly uri: string;
  readonly definition: Resource;
  /** Changes the resource at once; a new `uri` must be free. */
  update(changes: ResourceUpdate): void;
}

/** Changes to a resource template: definition members, its function, completions and `list` callback. */
export type ResourceTemplateUpdate = UpdateOf<Omit<ResourceTemplateDefinition, "uriTemplate" | "name">> & {
  /** A new URI template (it must be free, and compile). */
  uriTemplate?: string;
  /** A new name. */
  name?: string;
  /** A new function. */
  callback?: (
    uri: string,
    variables: never,
    context: RequestContext,
  ) => ResourceResult | InputRequired | Promise<ResourceResult | InputRequired>;
  /** New completions, replacing the old ones (`{}` drops them). */
  complete?: { [argument: string]: CompletionCallback };
  /** A new `list` callback; `undefined` drops it. */
  list?: ResourceListCallback | undefined;
};

/** A registered resource template. */
export interface ResourceTemplateHandle extends RegistrationHandle {
  readonly uriTemplate: string;
  readonly definition: ResourceTemplate;
  /** Changes the template at once; a new `uriTemplate` must be free. */
  update(changes: ResourceTemplateUpdate): void;
}

/** The read side every family's registry shares: look up, remove and list by key. */
abstract class FamilyRegistry<E, H> {
  private readonly handles = new WeakMap<Slot<E>, H>();

  constructor(
    protected readonly table: Table<E>,
    private readonly held: boolean,
    private readonly family: string,
  ) {}

  /** Items registered now, enabled or not. */
  get size(): number {
    return this.table.size;
  }

  /** True when an item is registered under `key` (enabled or not). */
  has(key: string): boolean {
    return this.table.get(key) !== undefined;
  }

  /** The handle of the item under `key`, enabled or not. */
  get(key: string): H | undefined {
    const slot = this.table.get(key);
    return slot === undefined ? undefined : this.handle(slot);
  }

  /** Removes the item under `key`; false when there was none. */
  remove(key: string): boolean {
    const slot = this.table.get(key);
    return slot !== undefined && this.table.remove(slot);
  }

  /** Every item's handle, enabled or not, in list order. */
  list(): H[] {
    return this.table.keys().map((key) => this.handle(this.table.get(key) as Slot<E>));
  }

  protected register(key: string, entry: E): H {
    if (!this.held) invalidFamily(this.family);
    return this.handle(this.table.add(key, entry));
  }

  protected handle(slot: Slot<E>): H {
    let handle = this.handles.get(slot);
    if (handle === undefined) {
      handle = this.wrap(slot);
      this.handles.set(slot, handle);
    }
    return handle;
  }

  protected abstract wrap(slot: Slot<E>): H;
}

function invalidFamily(family: string): never {
  throw invalid(`this server does not hold ${family} (see the families option of buildDynamic)`);
}

/** The enable/disable/remove side every handle shares. */
class Handle<E> implements RegistrationHandle {
  constructor(
    protected readonly table: Table<E>,
    protected readonly slot: Slot<E>,
  ) {}
  get enabled(): boolean {
    return this.slot.enabled && !this.slot.removed;
  }
  get removed(): boolean {
    return this.slot.removed;
  }
  enable(): void {
    this.table.setEnabled(this.slot, true);
  }
  disable(): void {
    this.table.setEnabled(this.slot, false);
  }
  remove(): void {
    this.table.remove(this.slot);
  }
}

/** The tools of a dynamic server, by name. */
export class ToolRegistry extends FamilyRegistry<ToolEntry, ToolHandle> {
  constructor(
    table: Table<ToolEntry>,
    held: boolean,
    private readonly validation: Validation,
  ) {
    super(table, held, "tools");
  }

  /** Registers a tool, as `ServerBuilder.tool` does; throws `INVALID_CONFIG` for a taken name, `CAPACITY` when full. */
  add<
    I extends SchemaInput,
    O extends SchemaInput | undefined = undefined,
    C extends ToolCallback<InferArgs<I>, InferStructured<O>> = ToolCallback<InferArgs<I>, InferStructured<O>>,
  >(
    definition: ToolDefinition<I, O> & ResultCheck<ReturnType<C>, ToolResult>,
    callback: C & NoInfer<ToolCallback<InferArgs<I>, InferStructured<O>>>,
    options: ToolOptions = {},
  ): ToolHandle {
    const entry = toolEntry(definition as AnyToolDefinition, callback, options, this.validation);
    return this.register(entry.definition.name, entry);
  }

  protected wrap(slot: Slot<ToolEntry>): ToolHandle {
    const { table, validation } = this;
    return new (class extends Handle<ToolEntry> implements ToolHandle {
      get name() {
        return slot.key;
      }
      get definition() {
        return slot.entry.definition;
      }
      update({ callback, validate, ...changes }: ToolUpdate): void {
        const { source } = slot.entry;
        const definition = merged(source.definition, changes) as unknown as AnyToolDefinition;
        const options = validate === undefined ? source.options : { ...source.options, validate };
        const entry = toolEntry(definition, callback ?? slot.entry.callback, options, validation);
        table.replace(slot, entry.definition.name, entry);
      }
    })(table, slot);
  }
}

/** The prompts of a dynamic server, by name. */
export class PromptRegistry extends FamilyRegistry<PromptEntry, PromptHandle> {
  constructor(
    table: Table<PromptEntry>,
    held: boolean,
    private readonly validation: Validation,
  ) {
    super(table, held, "prompts");
  }

  /** Registers a prompt, as `ServerBuilder.prompt` does. */
  add<
    A extends StandardSchemaWithJson | undefined = undefined,
    V extends Answer<PromptResult | InputRequired> = Answer<PromptResult | InputRequired>,
  >(
    definition: PromptDefinition<A> & ResultCheck<V, PromptResult>,
    callback: (args: InferPromptArgs<A>, context: RequestContext) => V,
    options: { complete?: { [argument: string]: CompletionCallback } } = {},
  ): PromptHandle {
    const complete = options.complete as { [argument: string]: Completer } | undefined;
    const entry = promptEntry(definition as AnyPromptDefinition, callback, complete, this.validation);
    return this.register(entry.definition.name, entry);
  }

  protected wrap(slot: Slot<PromptEntry>): PromptHandle {
    const { table, validation } = this;
    return new (class extends Handle<PromptEntry> implements PromptHandle {
      get name() {
        return slot.key;
      }
      get definition() {
        return slot.entry.definition;
      }
      update({ callback, complete, ...changes }: PromptUpdate): void {
        const definition = merged(slot.entry.source, changes) as unknown as AnyPromptDefinition;
        const completers = (complete ?? slot.entry.complete) as { [argument: string]: Completer };
        const entry = promptEntry(definition, callback ?? slot.entry.callback, completers, validation);
        table.replace(slot, entry.definition.name, entry);
      }
    })(table, slot);
  }
}

/** The fixed resources of a dynamic server, by URI. */
export class ResourceRegistry extends FamilyRegistry<ResourceEntry, ResourceHandle> {
  constructor(table: Table<ResourceEntry>, held: boolean) {
    super(table, held, "resources");
  }

  /** Registers a resource, as `ServerBuilder.resource` does. */
  add<V extends Answer<ResourceResult | InputRequired>>(
    definition: ResourceDefinition & ResultCheck<V, ResourceResult>,
    callback: (uri: string, context: RequestContext) => V,
  ): ResourceHandle {
    const entry = resourceEntry(definition, callback);
    return this.register(entry.definition.uri, entry);
  }

  protected wrap(slot: Slot<ResourceEntry>): ResourceHandle {
    const table = this.table;
    return new (class extends Handle<ResourceEntry> implements ResourceHandle {
      get uri() {
        return slot.key;
      }
      get definition() {
        return slot.entry.definition;
      }
      update({ callback, ...changes }: ResourceUpdate): void {
        const definition = merged(slot.entry.definition, changes) as ResourceDefinition;
        const entry = resourceEntry(definition, callback ?? slot.entry.callback);
        table.replace(slot, entry.definition.uri, entry);
      }
    })(table, slot);
  }
}

/** The resource templates of a dynamic server, by URI template. */
export class ResourceTemplateRegistry extends FamilyRegistry<TemplateEntry, ResourceTemplateHandle> {
  constructor(table: Table<TemplateEntry>, held: boolean) {
    super(table, held, "resources");
  }

  /** Registers a resource template, as `ServerBuilder.resourceTemplate` does. */
  add<U extends string, V extends Answer<ResourceResult | InputRequired>>(
    definition: ResourceTemplateDefinition & { uriTemplate: U } & ResultCheck<V, ResourceResult>,
    callback: (uri: string, variables: TemplateVariables<U>, context: RequestContext) => V,
    options: ResourceTemplateOptions = {},
  ): ResourceTemplateHandle {
    const entry = templateEntry(definition, callback, {
      complete: options.complete as { [argument: string]: Completer } | undefined,
      list: options.list,
    });
    return this.register(entry.definition.uriTemplate, entry);
  }

  protected wrap(slot: Slot<TemplateEntry>): ResourceTemplateHandle {
    const table = this.table;
    return new (class extends Handle<TemplateEntry> implements ResourceTemplateHandle {
      get uriTemplate() {
        return slot.key;
      }
      get definition() {
        return slot.entry.definition;
      }
      update(update: ResourceTemplateUpdate): void {
        const { callback, complete, list, ...changes } = update;
        const current = slot.entry;
        const definition = merged(current.definition, changes) as ResourceTemplateDefinition;
        const entry = templateEntry(definition, callback ?? current.callback, {
          complete: (complete ?? current.complete) as { [argument: string]: Completer },
          list: "list" in update ? list : current.list,
        });
        table.replace(slot, entry.definition.uriTemplate, entry);
      }
    })(table, slot);
  }
}

/** `base` with `changes` applied: a member given as `undefined` is dropped. */
function merged(base: object, changes: { [key: string]: unknown }): { [key: string]: JsonValue | unknown } {
  const out: { [key: string]: unknown } = { ...base };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete out[key];
    else out[key] = value;
  }
  return out;
}
