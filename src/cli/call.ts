import type { Client } from "../client/client.js";
import {
  type ClientTask,
  callToolToCompletion,
  cancelTask,
  isCreateTaskResult,
  toClientTask,
  waitForTask,
} from "../client/tasks.js";
import type { ProgressParams } from "../protocol/types/index.js";
import type { CallToolResult } from "../protocol/types/tools.js";
import type { CliArgs } from "./args.js";
import { toolArguments } from "./coerce.js";
import { ExitCode, type ExitStatus, UsageError } from "./exit-codes.js";
import type { Output } from "./io.js";
import { ProgressLine } from "./progress.js";
import { renderCallResult } from "./render.js";
import type { Session } from "./session.js";

/**
 * `call NAME [--args JSON | key=value ...]`: calls a tool, showing its progress on stderr while it runs.
 * `key=value` pairs are converted with the tool's input schema (listed first); `--args` is sent as given.
 * Exit status 1 when the tool reports an error (`isError: true`).
 */
export async function call(session: Session, args: CliArgs, out: Output): Promise<ExitStatus> {
  const { client } = session;
  const [name = "", ...pairs] = args.operands;
  let toolArgs = args.argsJson;
  let inputSchema: { readonly [key: string]: unknown } | undefined;
  let asTask = false;
  if (toolArgs === undefined) {
    const tools = await client.listAllTools({ signal: out.io.interrupt });
    const tool = tools.find((t) => t.name === name);
    if (tool === undefined) throw new UsageError(`the server has no tool "${name}" (see: tools)`);
    inputSchema = tool.inputSchema;
    toolArgs = toolArguments(name, pairs, inputSchema);
    const support = tool.execution?.taskSupport;
    asTask = support === "optional" || support === "required";
  }
  const progress = new ProgressLine(out.io.stderr, name);
  out.transient = progress;
  const signal = out.io.interrupt;
  const options = {
    signal,
    onProgress: (p: ProgressParams) => progress.update(p),
    ...(inputSchema === undefined ? {} : { toolInputSchema: inputSchema }),
  };
  const onStatus = (task: ClientTask) => progress.status(task);
  let result: CallToolResult;
  try {
    // A task-capable tool runs as a task: its status is shown, Ctrl-C cancels it.
    result = asTask
      ? await callToolToCompletion(client, name, toolArgs, { ...options, onStatus })
      : await client.callTool(name, toolArgs, options);
    if (isCreateTaskResult(result)) result = await unsolicited(client, result, signal, onStatus);
  } finally {
    progress.clear();
    out.transient = undefined;
  }
  out.result(result, () => renderCallResult(result));
  if (result.isError === true) {
    out.note(`mcpkit: the tool "${name}" reported an error`);
    return ExitCode.TOOL_ERROR;
  }
  return ExitCode.OK;
}

/** A server that answered a plain call with a task (2026-07-28 may): wait for it, cancel it on Ctrl-C. */
async function unsolicited(
  client: Client,
  handle: CallToolResult,
  signal: AbortSignal,
  onStatus: (task: ClientTask) => void,
): Promise<CallToolResult> {
  const task = toClientTask(handle);
  try {
    return await waitForTask(client, task, { signal, onStatus });
  } catch (error) {
    if (signal.aborted) await cancelTask(client, task.taskId).catch(() => {});
    throw error;
  }
}
