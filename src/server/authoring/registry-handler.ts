import type { GetPromptResult } from "../../protocol/types/prompts.js";
import type { ReadResourceResult } from "../../protocol/types/resources.js";
import type { RequestContext } from "../core/context.js";
import { invalidParams, resourceNotFound } from "../core/errors.js";
import type { ServerHandler } from "../core/handler.js";
import type { ListFamily } from "../core/listen.js";
import type { InputRequired } from "../state/input.js";
import type { Registry, Table } from "./registry.js";
import { resourcesPage } from "./resource-pages.js";
import type { ToolFailures } from "./tool-failures.js";
import { checkPromptArgs, runTool } from "./typed-calls.js";

type Answer<T> = Promise<T> | T;

/** The spec caps one completion answer at 100 values. */
const MAX_COMPLETION_VALUES = 100;

/**
 * The handler that serves a registry: the list methods page its tables (`pageSize` items a page), calls look up
 * the item when they arrive (a call in flight keeps the item it started with, whatever changes meanwhile; a
 * removed or disabled item is unknown to the next call). `families` says which families to serve, and
 * `completions` whether to answer `completion/complete`; `failures` answers a tool function that threw.
 */
export function registryHandler(
  registry: Registry,
  pageSize: number,
  families: ReadonlySet<ListFamily>,
  completions: boolean,
  failures: ToolFailures,
): ServerHandler {
  const { tools, prompts, resources, templates } = registry;
  const handler: ServerHandler = {};
  if (families.has("tools")) {
    handler.listTools = ({ cursor }) => {
      const { items, nextCursor } = definitions(tools, cursor, pageSize);
      return nextCursor === undefined ? { tools: items } : { tools: items, nextCursor };
    };
    handler.callTool = ({ name, arguments: args }, context) => {
      const tool = tools.lookup(name);
      if (!tool) throw invalidParams(`Unknown tool: ${name}`);
      return runTool(tool, args, context, failures);
    };
  }
  if (families.has("resources")) {
    // Template list callbacks may list many resources each: a page holds `limit` of them at most.
    const resourcePageSize = Math.min(pageSize, registry.limit);
    handler.listResources = ({ cursor }, context) =>
      resourcesPage(resources, templates, cursor, resourcePageSize, registry.limit, context);
    handler.listResourceTemplates = ({ cursor }) => {
      const { items, nextCursor } = definitions(templates, cursor, pageSize);
      return nextCursor === undefined
        ? { resourceTemplates: items }
        : { resourceTemplates: items, nextCursor };
    };
    handler.readResource = ({ uri }, context) => {
      const fixed = resources.lookup(uri);
      if (fixed)
        return fixed.callback(uri as never, context as never) as Answer<ReadResourceResult | InputRequired>;
      for (const { entry } of templates.list()) {
        const variables = entry.matcher.match(uri);
        if (variables) {
          return entry.callback(uri as never, variables as never, context as never) as Answer<
            ReadResourceResult | InputRequired
          >;
        }
      }
      throw resourceNotFound(uri);
    };
  }
  if (families.has("prompts")) {
    handler.listPrompts = ({ cursor }) => {
      const { items, nextCursor } = definitions(prompts, cursor, pageSize);
      return nextCursor === undefined ? { prompts: items } : { prompts: items, nextCursor };
    };
    handler.getPrompt = async ({ name, arguments: args }, context) => {
      const prompt = prompts.lookup(name);
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
  if (completions) {
    handler.complete = async ({ ref, argument, context: extra }, context) => {
      const owner = ref.type === "ref/prompt" ? prompts.lookup(ref.name) : templates.lookup(ref.uri);
      if (!owner) throw invalidParams("unknown completion reference");
      const callback = owner.complete[argument.name];
      if (!callback) return { completion: { values: [] } };
      const answer = await callback(argument.value, extra?.arguments ?? {}, context);
      const completion = Array.isArray(answer) ? { values: answer } : answer;
      // Say there are more instead of sending them.
      if (completion.values.length > MAX_COMPLETION_VALUES) {
        return {
          completion: {
            ...completion,
            values: completion.values.slice(0, MAX_COMPLETION_VALUES),
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

/** One page of a table's definitions. */
function definitions<D>(
  table: Table<{ readonly definition: D }>,
  cursor: string | undefined,
  size: number,
): { items: D[]; nextCursor?: string } {
  const { items, nextCursor } = table.page(cursor, size);
  const out = items.map((slot) => slot.entry.definition);
  return nextCursor === undefined ? { items: out } : { items: out, nextCursor };
}
