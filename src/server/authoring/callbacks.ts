import type { JsonValue } from "../../jsonrpc/message.js";
import type { CompleteResult } from "../../protocol/types/completion.js";
import type { RequestContext } from "../core/context.js";
import type { InputRequired } from "../state/input.js";
import type { TaskRun } from "../tasks/run.js";
import type { PromptResult, ResourceResult, ToolResult } from "./authoring.js";
import type { ResourceListCallback } from "./registrations.js";
import type { TemplateVariables } from "./template-variables.js";

/**
 * Runs a tool. Throw a `JsonRpcError` for a protocol error; anything else thrown is logged with its stack and
 * becomes an `isError` result: its message, or a generic text under the `gateway` preset (`policy`).
 * Return `inputRequired(...)` to ask the client for input first, `runAsTask(work)` to run as a task.
 */
export type ToolCallback<Args = { [key: string]: unknown }, Structured = JsonValue> = (
  args: Args,
  context: RequestContext,
) =>
  | ToolResult<Structured>
  | InputRequired
  | TaskRun
  | Promise<ToolResult<Structured> | InputRequired | TaskRun>;
/** Reads a fixed resource (or asks for input first with `inputRequired(...)`). */
export type ResourceCallback = (
  uri: string,
  context: RequestContext,
) => ResourceResult | InputRequired | Promise<ResourceResult | InputRequired>;
/** Reads a resource matched by a template; `variables` are the template's values (see {@link TemplateVariables}). */
export type TemplateCallback<T extends string = string> = (
  uri: string,
  variables: TemplateVariables<T>,
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

export type { ResourceListCallback };

/** Options of a resource template: completions, and the resources it lists. */
export interface ResourceTemplateOptions extends CompletionOptions {
  /**
   * Lists the template's resources for `resources/list`, merged after the fixed resources and paged with them.
   * It runs for each page that reaches it, and may return at most `maxRegistrations` resources (more is a bug of
   * the server: `-32603`, logged).
   */
  list?: ResourceListCallback;
}
