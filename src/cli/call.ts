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
  if (toolArgs === undefined) {
    const tools = await client.listAllTools({ signal: out.io.interrupt });
    const tool = tools.find((t) => t.name === name);
    if (tool === undefined) throw new UsageError(`the server has no tool "${name}" (see: tools)`);
    inputSchema = tool.inputSchema;
    toolArgs = toolArguments(name, pairs, inputSchema);
  }
  const progress = new ProgressLine(out.io.stderr, name);
  out.transient = progress;
  let result: Awaited<ReturnType<typeof client.callTool>>;
  try {
    result = await client.callTool(name, toolArgs, {
      signal: out.io.interrupt,
      onProgress: (p) => progress.update(p),
      ...(inputSchema === undefined ? {} : { toolInputSchema: inputSchema }),
    });
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
