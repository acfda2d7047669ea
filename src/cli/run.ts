import { type CliArgs, parseCommandLine } from "./args.js";
import { call } from "./call.js";
import { inspect } from "./commands.js";
import { classifyError, ExitCode, type ExitStatus, type Failure } from "./exit-codes.js";
import { type CliIo, Output } from "./io.js";
import { listen } from "./listen.js";
import { type CliLogin, startCliLogin } from "./login.js";
import { openSession, type Session } from "./session.js";
import { safe } from "./table.js";
import { type OpenedTarget, openTarget } from "./target.js";
import { type CliTrace, startCliTrace } from "./trace.js";
import { USAGE } from "./usage.js";
import { VERSION } from "./version.js";

/** Most lines of a stdio server's stderr shown when the connection fails. */
const STDERR_LINES = 10;

/**
 * Runs one `mcpkit` command line and resolves with its exit status. Never throws: every failure is reported
 * on `io.stderr` and mapped to an {@link ExitCode}.
 *
 * @example
 * const status = await runCli(["--", "node", "server.js", "tools"], { stdout, stderr, stdin, interrupt });
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitStatus> {
  let args: CliArgs;
  try {
    const parsed = parseCommandLine(argv);
    if (parsed.kind === "help") {
      io.stdout.write(USAGE);
      return ExitCode.OK;
    }
    if (parsed.kind === "version") {
      io.stdout.write(`${VERSION}\n`);
      return ExitCode.OK;
    }
    args = parsed.args;
  } catch (error) {
    return report(classifyError(error), new Output(io, argv.includes("--json")), undefined);
  }
  const out = new Output(io, args.json);
  let opened: OpenedTarget | undefined;
  let session: Session | undefined;
  let login: CliLogin | undefined;
  let tracing: CliTrace | undefined;
  if (args.command === "inspect") {
    try {
      // Loaded only for `inspect`: the other commands never load the inspector's server.
      const { inspectCommand } = await import("./inspect/command.js");
      return await inspectCommand(
        args,
        out,
        io.inspectorAssets ?? new URL("./inspect/", import.meta.url),
        startCliLogin,
      );
    } catch (error) {
      return report(classifyError(error), out, undefined);
    }
  }
  try {
    if (args.trace) tracing = await startCliTrace();
    if (args.login) login = await startCliLogin(args, out);
    opened = openTarget(args, login?.provider);
    session = await openSession(args, out, opened, tracing?.wrap);
    const command = args.command === "call" ? call : args.command === "listen" ? listen : inspect;
    return await command(session, args, out);
  } catch (error) {
    if (io.interrupt.aborted) {
      if (args.command === "listen") return ExitCode.OK;
      out.note("mcpkit: interrupted");
      return ExitCode.INTERRUPTED;
    }
    return report(classifyError(error), out, opened);
  } finally {
    await session?.close().catch(() => {});
    await login?.close().catch(() => {});
    if (tracing !== undefined) io.stderr.write(tracing.render());
  }
}

function report(failure: Failure, out: Output, opened: OpenedTarget | undefined): ExitStatus {
  const { stderr } = out.io;
  if (out.json) {
    const error = { kind: failure.kind, status: failure.status, message: failure.message, ...failure.fields };
    stderr.write(`${JSON.stringify({ error })}\n`);
    return failure.status;
  }
  stderr.write(`mcpkit: ${safe(failure.message)}\n`);
  if (failure.status === ExitCode.USAGE) stderr.write("(mcpkit --help for usage)\n");
  const exit = failure.status === ExitCode.CONNECTION ? opened?.exitNote() : undefined;
  if (exit !== undefined) stderr.write(`the server process ${exit}\n`);
  const tail = opened?.stderrTail().trimEnd() ?? "";
  if (tail !== "" && (failure.status === ExitCode.CONNECTION || failure.status === ExitCode.PROTOCOL)) {
    const lines = tail.split(/\r?\n/).slice(-STDERR_LINES);
    stderr.write(`the server's stderr ended with:\n${lines.map((line) => `  ${safe(line)}`).join("\n")}\n`);
  }
  return failure.status;
}
