import { Client, type ConnectionInfo, type ServerNotification } from "../client/index.js";
import type { ElicitParams, ElicitResult, LoggingMessageParams } from "../protocol/types/index.js";
import { TASKS_EXTENSION } from "../protocol/types/tasks.js";
import type { Transport, TransportCloseReason } from "../transports/transport.js";
import type { CliArgs } from "./args.js";
import { askForm } from "./elicit.js";
import type { Output } from "./io.js";
import { LineReader } from "./line-reader.js";
import { safe } from "./table.js";
import { tapTransport } from "./tap-transport.js";
import type { OpenedTarget } from "./target.js";
import { VERSION } from "./version.js";

/** The CLI's name and version, as sent to servers. */
export const CLI_INFO = { name: "mcpkit-cli", version: VERSION } as const;

/** A connected client and the hooks a command can redirect. */
export interface Session {
  client: Client;
  info: ConnectionInfo;
  /** Where server notifications go (default: dropped; `listen` prints them). */
  onNotification: (notification: ServerNotification) => void;
  /** Where log messages go (default: stderr). */
  onLog: (message: LoggingMessageParams) => void;
  /** Resolves when the connection ends, whoever ended it. */
  closed: Promise<TransportCloseReason>;
  /** Closes the client and releases the terminal. */
  close(): Promise<void>;
}

/**
 * Connects to the command line's target. The client declares form elicitation: on a terminal the user fills
 * the form in; otherwise the request is declined with a note on stderr.
 *
 * @example
 * const session = await openSession(args, output, openTarget(args));
 * await session.client.close();
 */
export async function openSession(
  args: CliArgs,
  output: Output,
  opened: OpenedTarget,
  traced: (transport: Transport) => Transport = (transport) => transport,
): Promise<Session> {
  const { io } = output;
  let closedWith!: (reason: TransportCloseReason) => void;
  const closed = new Promise<TransportCloseReason>((resolve) => {
    closedWith = resolve;
  });
  let forms: Promise<void> = Promise.resolve();
  let reader: LineReader | undefined;
  const hooks = {
    onNotification: (_notification: ServerNotification) => {},
    onLog: (message: LoggingMessageParams) => {
      output.stderrLine(logLine(message));
    },
  };
  const client = new Client({
    transport: traced(tapTransport(opened.transport, { closed: (reason) => closedWith(reason) })),
    clientInfo: { ...CLI_INFO },
    // Tasks: a long tool call shows its status and Ctrl-C cancels it (see call.ts).
    capabilities: { elicitation: { form: {} }, extensions: { [TASKS_EXTENSION]: {} } },
    ...(args.era === undefined ? {} : { protocolVersion: args.era }),
    versionFallback: args.fallback,
    ...(args.logLevel === undefined ? {} : { logLevel: args.logLevel }),
    requestTimeoutMs: args.timeoutMs,
    connectTimeoutMs: args.timeoutMs,
    callbackTimeoutMs: args.timeoutMs,
    onElicitation: (params, context) => {
      // One form at a time, on one reader of the terminal (lines typed ahead belong to the next form).
      const answer = forms.then(() => {
        if (params.mode === "url" || !terminal(output)) return refuse(params, output);
        reader ??= new LineReader(io.stdin, io.stderr);
        output.transient?.clear();
        return askForm(params, { reader, output: io.stderr, signal: context.signal });
      });
      forms = answer.then(
        () => {},
        () => {},
      );
      return answer;
    },
    onNotification: (notification) => hooks.onNotification(notification),
    onLog: (message) => hooks.onLog(message),
    logger: {
      warn: (message) => {
        if (args.verbose) io.stderr.write(`mcpkit: ${message}\n`);
      },
    },
  });
  const info = await client.connect({ signal: io.interrupt });
  if (args.logLevel !== undefined && info.era === "2025-11-25" && info.capabilities.logging !== undefined) {
    await client.setLoggingLevel(args.logLevel, { signal: io.interrupt });
  }
  const session: Session = {
    client,
    info,
    get onNotification() {
      return hooks.onNotification;
    },
    set onNotification(handler) {
      hooks.onNotification = handler;
    },
    get onLog() {
      return hooks.onLog;
    },
    set onLog(handler) {
      hooks.onLog = handler;
    },
    closed,
    close: async () => {
      reader?.close();
      await client.close();
    },
  };
  return session;
}

/** `[warning] db: connection slow` */
export function logLine(message: LoggingMessageParams): string {
  const data = typeof message.data === "string" ? message.data : JSON.stringify(message.data);
  return safe(`[${message.level}]${message.logger === undefined ? "" : ` ${message.logger}:`} ${data}`);
}

function terminal(output: Output): boolean {
  return output.io.stdin.isTTY === true;
}

/** Without a terminal there is nobody to ask: decline, and say so. URL mode is never declared, so declined. */
function refuse(params: ElicitParams, output: Output): ElicitResult {
  if (params.mode !== "url") {
    output.stderrLine(
      `mcpkit: the server asked for input ("${safe(params.message)}"); declined: stdin is not a terminal`,
    );
  }
  return { action: "decline" };
}
