import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import type { JsonValue } from "../../jsonrpc/message.js";
import type { GetPromptResult } from "../../protocol/types/prompts.js";
import type { CallToolResult, Tool } from "../../protocol/types/tools.js";
import { describeIssues } from "../../protocol/validation.js";
import type { RequestContext } from "../core/context.js";
import { isThenable } from "../core/invoke.js";
import type { Check, CheckResult } from "../custom/schemas.js";
import { type InputRequired, isInputRequired } from "../state/input.js";
import { taskRequired } from "../tasks/dispatch.js";
import { isTaskRun, runAsTask, type TaskRun } from "../tasks/run.js";
import type { ToolFailures } from "./tool-failures.js";

type Answer<T> = Promise<T> | T;

/** A registered tool: its wire definition, its function, and its checks (absent when validation is off). */
export interface RegisteredTool {
  readonly definition: Tool;
  readonly callback: (args: never, context: RequestContext) => Answer<unknown>;
  readonly input: Check | undefined;
  readonly output: Check | undefined;
}

/** A registered prompt's checks: the Standard Schema of its arguments (absent for raw `arguments`). */
export interface PromptChecks {
  readonly args: Check | undefined;
}

type ToolAnswer = CallToolResult | InputRequired | TaskRun;

/**
 * Runs one tool call: arguments checked first (a failure is an `isError` result naming every failing path, and
 * the function does not run), then the function (a throw is answered by `failures`), then its
 * `structuredContent` against the `outputSchema` (a
 * failure is the server's bug: `-32603` to the client, the details logged). A `runAsTask` answer gets its
 * work's result checked the same way, inline or as a task (a mismatch fails the task). Synchronous while every
 * step is (a synchronous tool without an `outputSchema` costs no promise); may throw instead of rejecting, so
 * call it where a throw is a rejection (an `async` caller).
 */
export function runTool(
  tool: RegisteredTool,
  args: { [key: string]: unknown },
  context: RequestContext,
  failures: ToolFailures,
): Answer<ToolAnswer> {
  if (tool.definition.execution?.taskSupport === "required" && !context.taskAugmented) {
    throw taskRequired(context.era, tool.definition.name);
  }
  if (tool.input === undefined) return callTool(tool, args, context, failures);
  const pending = tool.input(args);
  return pending instanceof Promise
    ? pending.then((checked) => callChecked(tool, checked, context, failures))
    : callChecked(tool, pending, context, failures);
}

/** The function with checked arguments, or the `isError` result naming what failed. */
function callChecked(
  tool: RegisteredTool,
  checked: CheckResult,
  context: RequestContext,
  failures: ToolFailures,
): Answer<ToolAnswer> {
  if (!checked.ok) {
    const text = `Invalid arguments for tool "${tool.definition.name}":\n${describeIssues(checked.issues)}`;
    return { content: [{ type: "text", text }], isError: true };
  }
  return callTool(tool, checked.value, context, failures);
}

/**
 * Calls the function: a throw is answered by `failures` (an `isError` result, logged; a `JsonRpcError` is thrown
 * on); its answer is settled.
 */
function callTool(
  tool: RegisteredTool,
  input: unknown,
  context: RequestContext,
  failures: ToolFailures,
): Answer<ToolAnswer> {
  let result: unknown;
  try {
    result = tool.callback(input as never, context);
  } catch (error) {
    return failures.answer(tool.definition.name, error);
  }
  // Awaited only when it is a thenable: a synchronous answer is settled at once.
  if (isThenable(result)) {
    return Promise.resolve(result).then(
      (value) => settleTool(tool, value as ToolAnswer, failures),
      (error: unknown) => failures.answer(tool.definition.name, error),
    );
  }
  return settleTool(tool, result as ToolAnswer, failures);
}

function settleTool(tool: RegisteredTool, result: ToolAnswer, failures: ToolFailures): Answer<ToolAnswer> {
  if (isInputRequired(result)) return result;
  if (isTaskRun(result)) {
    if (tool.definition.outputSchema === undefined) return result;
    const { work } = result;
    // A task's result is checked like an inline one: a mismatch fails the task (`-32603`, details logged); what
    // the work itself throws is the tool's failure, answered as the policy says.
    return runAsTask(async (task) => {
      const answer = await work(task);
      try {
        return await checkOutput(tool, answer);
      } catch (error) {
        throw failures.internal(tool.definition.name, error);
      }
    });
  }
  return checkOutput(tool, result);
}

/**
 * A result checked against the tool's `outputSchema` (a failed result as it is); throws on a mismatch.
 * Synchronous unless the schema's check is asynchronous.
 */
function checkOutput(tool: RegisteredTool, result: CallToolResult): Answer<CallToolResult> {
  if (result.isError === true) return result;
  // The spec: a tool that declares an outputSchema must return structured content (unless it failed).
  if (tool.definition.outputSchema === undefined) return result;
  if (!("structuredContent" in result)) {
    throw new Error(
      `tool "${tool.definition.name}" declares an outputSchema but returned no structuredContent`,
    );
  }
  if (tool.output === undefined) return result;
  const pending = tool.output(result.structuredContent);
  return pending instanceof Promise
    ? pending.then((checked) => checkedOutput(tool, result, checked))
    : checkedOutput(tool, result, pending);
}

function checkedOutput(tool: RegisteredTool, result: CallToolResult, checked: CheckResult): CallToolResult {
  if (!checked.ok) {
    throw new Error(
      `tool "${tool.definition.name}" returned structuredContent that does not match its outputSchema:\n${describeIssues(checked.issues)}`,
    );
  }
  if (checked.value === result.structuredContent) return result;
  return { ...result, structuredContent: checked.value as JsonValue };
}

/** Checks a prompt's arguments against its schema: `-32602` naming every failing path, or the parsed value. */
export async function checkPromptArgs(
  name: string,
  checks: PromptChecks,
  args: { [name: string]: string },
): Promise<unknown> {
  if (checks.args === undefined) return args;
  const pending = checks.args(args);
  const checked: CheckResult = pending instanceof Promise ? await pending : pending;
  if (checked.ok) return checked.value;
  throw new JsonRpcError(
    ErrorCode.InvalidParams,
    `Invalid params: invalid arguments for prompt "${name}":\n${describeIssues(checked.issues)}`,
    { issues: checked.issues.map((issue) => ({ path: issue.path, message: issue.message })) },
  );
}

/** A prompt's answer, typed for the wire. */
export type PromptAnswer = Answer<GetPromptResult | InputRequired>;
