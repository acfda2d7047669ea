import { type HttpAuthProvider, StreamableHttpClientTransport } from "../http/index.js";
import { nodeHttp } from "../node/index.js";
import { launchStdio } from "../stdio/index.js";
import type { Transport } from "../transports/transport.js";
import type { CliArgs } from "./args.js";

/** The transport to a target, and what the server wrote to stderr (stdio, when not passed through). */
export interface OpenedTarget {
  transport: Transport;
  /** The last bytes of the server's stderr, for a failure report; empty for HTTP or with `--verbose`. */
  stderrTail(): string;
  /** How a stdio server process ended (`exited with code 3`), once it has; undefined for HTTP. */
  exitNote(): string | undefined;
}

/** Most bytes of a stdio server's stderr kept for a failure report. */
const STDERR_TAIL_CHARS = 4_000;

/**
 * Builds the transport for the command line's target: Streamable HTTP on `node:http` for a URL (with the
 * `--header`s and the `--login` OAuth provider; plain http to a non-loopback host only with `--allow-http`), or a
 * launched subprocess for
 * `-- program args` (its stderr kept quietly, or passed through with `--verbose`).
 *
 * @example
 * const { transport } = openTarget(args);
 */
export function openTarget(args: CliArgs, authProvider?: HttpAuthProvider): OpenedTarget {
  const { target } = args;
  if (target.kind === "http") {
    const transport = new StreamableHttpClientTransport({
      url: target.url,
      headers: args.headers,
      ...(authProvider === undefined ? {} : { authProvider }),
      http: nodeHttp(),
      // The operation deadline is --timeout; the HTTP layer must not give up sooner on a slow, silent tool.
      policy: {
        allowNonLoopbackHttp: args.allowHttp,
        requestTimeoutMs: args.timeoutMs,
        receiveTimeoutMs: args.timeoutMs,
      },
      logger: { warn: () => {} },
    });
    return { transport, stderrTail: () => "", exitNote: () => undefined };
  }
  let tail = "";
  const transport = args.verbose
    ? launchStdio({ command: target.command, args: target.args, policy: { stderr: "inherit" } })
    : launchStdio({
        command: target.command,
        args: target.args,
        policy: { stderr: "capture" },
        onStderr: (text) => {
          tail = (tail + text).slice(-STDERR_TAIL_CHARS);
        },
      });
  const exitNote = () => {
    const exit = transport.exit;
    if (exit === undefined) return undefined;
    return exit.signal !== null ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
  };
  return { transport, stderrTail: () => tail, exitNote };
}
