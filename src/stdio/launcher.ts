import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { McpkitError } from "../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../jsonrpc/message.js";
import type {
  MessageInfo,
  Transport,
  TransportCloseReason,
  TransportHandlers,
} from "../transports/transport.js";
import { cleanupFailed, runCleanup, type StdioCleanupReport, type StdioExit, within } from "./cleanup.js";
import { describeExit, describeFailure, exitDetails, notJsonRpc, withStderrTail } from "./end-errors.js";
import { FramePacer } from "./frame-pacer.js";
import {
  decodeFrame,
  encodeFrame,
  FrameDecoder,
  InvalidUtf8Frame,
  inboundLimitError,
  invalidUtf8Error,
} from "./framing.js";
import { type StdioPolicyInput, type StdioSecurityPolicy, stdioPolicy } from "./policy.js";
import { PollWindow, pollWindowOption } from "./poll-window.js";
import { type ProcessOps, systemProcessOps } from "./process-tree.js";
import { type ChildEnvInput, checkDirectory, childEnvironment, resolveCommand } from "./spawn-config.js";
import { forwardStderr, StderrCapture, type StderrHandler } from "./stderr.js";
import { StderrTail } from "./stderr-tail.js";
import { closedStream, drained } from "./stream-waits.js";

/** Options of {@link launchStdio}. */
export interface LaunchStdioOptions {
  /**
   * The program: an absolute path, a path holding a `/` (relative to `cwd`), or a bare name looked up on the
   * `PATH` of `env` (else this process's `PATH`). It runs directly, never through a shell.
   */
  command: string;
  /** Its arguments, passed as they are. */
  args?: readonly string[];
  /** Its working directory (default: this process's). */
  cwd?: string;
  /**
   * Variables for the child. With the policy's `environment: "inherit"` they are added to this process's
   * environment (`undefined` removes one); with `"replace"` they are all the child gets, besides the marker.
   */
  env?: ChildEnvInput;
  /** A {@link stdioPolicy} or its input (default: the `default` preset). */
  policy?: StdioPolicyInput | StdioSecurityPolicy;
  /** Where captured stderr goes; required by, and only allowed with, `stderr: "capture"`. */
  onStderr?: StderrHandler;
  /** A launch-static identity attached to every message received (`MessageInfo.identity`). */
  identity?: unknown;
  /**
   * How long the event loop keeps polling after each write, so that a prompt answer is read without a sleep
   * and wake-up: 0 to 10 ms, 0 never polls (default 0.1; adaptive: a peer that does not answer within the
   * window makes it back off).
   */
  pollAfterWriteMs?: number;
}

/** A transport to a launched subprocess, with what is known about the process. */
export interface LaunchedStdio extends Transport {
  /** The absolute path that was (or will be) run. */
  readonly command: string;
  /** The root process id (also its process group id) once started. */
  readonly pid: number | undefined;
  /** This launch's cleanup marker, as found in `MCPKIT_STDIO_MARKER` of every process it starts. */
  readonly marker: string;
  /** The checked policy in force. */
  readonly policy: StdioSecurityPolicy;
  /** How the root process ended, once it has. */
  readonly exit: StdioExit | undefined;
  /** What the close sequence did, once it has run. */
  readonly cleanupReport: StdioCleanupReport | undefined;
  /** Why the transport ended abnormally (protocol violation, exit, I/O or cleanup failure), if it did. */
  readonly failure: Error | undefined;
  /** Captured stderr bytes dropped past `maxStderrBytes`. */
  readonly droppedStderrBytes: number;
  /**
   * The last stderr text of the server (up to the policy's `stderrTailBytes`, in every `stderr` mode; escape
   * sequences and control characters removed). The error of an early exit or a protocol violation quotes it.
   * mcpkit never logs it.
   */
  readonly stderrTail: string;
  /**
   * Resolves, with the reason `handlers.close` got, once the transport has ended and cleanup has run (or with
   * the start error when `start()` failed; `handlers.close` is not called then).
   */
  readonly closed: Promise<TransportCloseReason>;
}

/** What `send` returns for a frame written at once. */
const WRITTEN: Promise<void> = Promise.resolve();

/** How long stdout and stderr get to reach end-of-file after cleanup before they are destroyed. */
const STREAM_END_MS = 1_000;

/**
 * After end-of-file on stdout, how long the root's exit gets to be reported before the connection ends for the
 * end-of-file itself: a process that exits closes its stdout first, and its exit status says more.
 */
const EOF_EXIT_GRACE_MS = 200;

const LAUNCH_KEYS = new Set([
  "command",
  "args",
  "cwd",
  "env",
  "policy",
  "onStderr",
  "identity",
  "pollAfterWriteMs",
]);

type EndCause =
  | { kind: "close" }
  | { kind: "protocol"; error: McpkitError }
  | { kind: "exit" }
  | { kind: "eof" }
  | { kind: "io"; error: unknown };

interface Launch {
  command: string;
  args: string[];
  cwd: string;
  env: { [name: string]: string };
  marker: string;
  policy: StdioSecurityPolicy;
  onStderr: StderrHandler | undefined;
  info: MessageInfo | undefined;
  pollMs: number;
}

/**
 * Prepares an MCP server subprocess and returns the transport to it; `start()` spawns it in its own process
 * group with a fresh cleanup marker in its environment. After each write the event loop keeps polling for up
 * to `pollAfterWriteMs` (0.1 ms, backing off while the peer does not answer that fast), so that a prompt answer
 * is read without the process going to sleep first. Configuration problems (an unknown key, a command not found, capture without a handler) throw `McpkitError` `INVALID_CONFIG` here, before anything runs; Windows
 * throws `UNSUPPORTED`.
 *
 * @example
 * const transport = launchStdio({ command: "node", args: ["server.js"], policy: { preset: "gateway" } });
 * const client = new Client({ transport, clientInfo: { name: "me", version: "1.0.0" } });
 * await client.connect();
 */
export function launchStdio(options: LaunchStdioOptions): LaunchedStdio {
  return launchWith(options, systemProcessOps);
}

/** {@link launchStdio} over a given process table (tests use stand-ins). */
export function launchWith(options: LaunchStdioOptions, ops: ProcessOps): LaunchedStdio {
  if (ops.platform === "win32") {
    throw new McpkitError(
      "UNSUPPORTED",
      "the stdio launcher needs POSIX process groups; Windows is not supported",
      {
        details: { platform: ops.platform },
      },
    );
  }
  return new StdioProcess(prepare(options), ops);
}

function prepare(options: LaunchStdioOptions): Launch {
  if (typeof options !== "object" || options === null) throw invalid("options", "must be an object");
  for (const key of Object.keys(options)) {
    if (!LAUNCH_KEYS.has(key)) throw invalid(key, "is not a launch option");
  }
  const policy = stdioPolicy((options.policy ?? {}) as StdioPolicyInput);
  const args = options.args ?? [];
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string" && !arg.includes("\0"))) {
    throw invalid("args", "must be an array of strings without NUL bytes");
  }
  const cwd = checkDirectory(options.cwd ?? process.cwd());
  const onStderr = options.onStderr;
  if (onStderr !== undefined && typeof onStderr !== "function") {
    throw invalid("onStderr", "must be a function");
  }
  if (policy.stderr === "capture" && !onStderr) {
    throw invalid("onStderr", 'is required with stderr "capture": captured stderr goes only to a handler');
  }
  if (policy.stderr !== "capture" && onStderr) {
    throw invalid("onStderr", `needs stderr "capture" (the policy says "${policy.stderr}")`);
  }
  const marker = randomUUID();
  const env = childEnvironment(policy.environment, options.env, marker);
  const command = resolveCommand(options.command, cwd, options.env?.PATH ?? process.env.PATH);
  const info = options.identity === undefined ? undefined : { identity: options.identity };
  const pollMs = pollWindowOption(options.pollAfterWriteMs);
  return { command, args: [...args], cwd, env, marker, policy, onStderr, info, pollMs };
}

class StdioProcess implements LaunchedStdio {
  private child: ChildProcess | undefined;
  private handlers: TransportHandlers | undefined;
  private starting: Promise<void> | undefined;
  /** What `close()` returns. */
  private closing: Promise<void> | undefined;
  /** The close sequence, once begun (by `close()`, a violation, the root's exit or a stdin failure). */
  private sequence: Promise<void> | undefined;
  private rootStartTime: number | undefined;
  private reading = true;
  private frames = 0;
  private batch: JsonRpcMessage[] = [];
  private violation: McpkitError | undefined;
  /** While a write waits for `drain`, the writes after it wait behind it, in order; otherwise none waits. */
  private backlog: Promise<void> | undefined;
  private readonly writeStop = new AbortController();
  /** Set with `writeStop`; read per write, where a plain field is cheaper than the signal's getters. */
  private writesStopped = false;
  /** Polls for the answer a moment after each write instead of sleeping at once (see `PollWindow`). */
  private readonly poll: PollWindow;
  /** Frames stdout at most `maxFramesPerTurn` frames per turn of the event loop. */
  private readonly pacer: FramePacer;
  private readonly stderr: StderrCapture | undefined;
  private readonly tail: StderrTail;
  /** Stops forwarding stderr to this process's (`inherit` mode with a tail). */
  private stopForwarding = () => {};
  private exitStatus: StdioExit | undefined;
  private report: StdioCleanupReport | undefined;
  private failureError: Error | undefined;
  /** What started the close sequence, once it has begun. */
  private endKind: EndCause["kind"] | undefined;
  private resolveClosed!: (reason: TransportCloseReason) => void;
  private resolveExited!: (exit: StdioExit) => void;
  private readonly exited = new Promise<StdioExit>((resolve) => {
    this.resolveExited = resolve;
  });
  readonly closed = new Promise<TransportCloseReason>((resolve) => {
    this.resolveClosed = resolve;
  });

  constructor(
    private readonly launch: Launch,
    private readonly ops: ProcessOps,
  ) {
    const { policy, onStderr } = launch;
    const decoder = new FrameDecoder(
      { maxFrameBytes: policy.maxFrameBytes, maxPendingBytes: policy.maxPendingStdoutBytes },
      (frame) => this.frame(frame),
    );
    this.pacer = new FramePacer(decoder, policy.maxFramesPerTurn, {
      hold: () => this.child?.stdout?.pause(),
      release: () => {
        if (this.reading) this.child?.stdout?.resume();
      },
      fail: (error) => {
        this.violation ??= inboundLimitError(error, { frame: "a stdout frame", pending: "stdout" });
        this.deliver();
      },
      settled: () => this.deliver(),
    });
    this.stderr = onStderr ? new StderrCapture(policy.maxStderrBytes, onStderr) : undefined;
    this.tail = new StderrTail(policy.stderrTailBytes);
    this.poll = new PollWindow(launch.pollMs);
  }

  get command(): string {
    return this.launch.command;
  }
  get pid(): number | undefined {
    return this.child?.pid;
  }
  get marker(): string {
    return this.launch.marker;
  }
  get policy(): StdioSecurityPolicy {
    return this.launch.policy;
  }
  get exit(): StdioExit | undefined {
    return this.exitStatus;
  }
  get cleanupReport(): StdioCleanupReport | undefined {
    return this.report;
  }
  get failure(): Error | undefined {
    return this.failureError;
  }
  get droppedStderrBytes(): number {
    return this.stderr?.dropped ?? 0;
  }
  get stderrTail(): string {
    return this.tail.text();
  }

  start(handlers: TransportHandlers): Promise<void> {
    if (this.starting || this.closing) {
      return Promise.reject(new McpkitError("PROTOCOL", "the stdio transport was already started or closed"));
    }
    this.handlers = handlers;
    this.starting = this.spawn();
    return this.starting;
  }

  // Not `async`: a frame written at once settles with a shared resolved promise, no frame or hop per message.
  send(message: JsonRpcMessage): Promise<void> {
    if (!this.child || this.closing || this.sequence) return this.refused();
    let frame: string;
    try {
      frame = encodeFrame(message, this.launch.policy.maxOutboundFrameBytes);
    } catch (error) {
      return Promise.reject(error);
    }
    const backlog = this.backlog;
    // Nothing waiting: written at once, without a hop.
    const written = backlog === undefined ? this.write(frame) : backlog.then(() => this.write(frame));
    if (written === undefined) return WRITTEN;
    const tail: Promise<void> = written.then(
      () => this.clearBacklog(tail),
      () => this.clearBacklog(tail),
    );
    this.backlog = tail;
    return written;
  }

  private clearBacklog(tail: Promise<void>): void {
    if (this.backlog === tail) this.backlog = undefined;
  }

  close(): Promise<void> {
    if (this.closing) return this.closing;
    if (!this.starting) {
      this.closing = Promise.resolve();
      this.resolveClosed({ kind: "local" });
      return this.closing;
    }
    // Closing during start waits for the spawn, so a process that did start is always cleaned up.
    this.closing = this.starting.then(
      () => this.end({ kind: "close" }),
      () => {},
    );
    return this.closing;
  }

  private async spawn(): Promise<void> {
    const { command, args, cwd, env, policy } = this.launch;
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        cwd,
        env,
        detached: true,
        shell: false,
        windowsHide: true,
        // Piped in every mode while a tail is kept: the tail is what explains an early exit.
        stdio: [
          "pipe",
          "pipe",
          policy.stderr === "capture" || this.tail.capacity > 0 ? "pipe" : policy.stderr,
        ],
      });
    } catch (error) {
      throw this.startFailed(error);
    }
    child.stdin?.on("error", (error) => void this.end({ kind: "io", error }));
    child.stdout?.on("data", (chunk: Buffer) => this.receive(chunk));
    // Frames held for a later turn came before the end: they are delivered first.
    child.stdout?.on("end", () => this.pacer.afterHeld(() => void this.stdoutEnded()));
    child.stderr?.on("data", (chunk: Buffer) => {
      this.tail.push(chunk);
      this.stderr?.push(chunk);
    });
    if (policy.stderr === "inherit" && child.stderr) {
      this.stopForwarding = forwardStderr(child.stderr, process.stderr);
    }
    child.on("exit", (code, signal) => {
      this.exitStatus = { code, signal };
      this.resolveExited(this.exitStatus);
      if (this.child) void this.end({ kind: "exit" });
    });
    try {
      await new Promise<void>((resolve, reject) => {
        child.once("spawn", resolve);
        child.once("error", reject);
      });
    } catch (error) {
      for (const stream of child.stdio) stream?.destroy();
      throw this.startFailed(error);
    }
    // Later errors (a failed kill) are covered by cleanup's own checks.
    child.on("error", () => {});
    this.child = child;
    // Read now, while the root cannot have been reaped: a pid read after its exit may name another process.
    if (this.ops.platform === "linux" && child.pid !== undefined) {
      this.rootStartTime = this.ops.stat(child.pid)?.startTime;
    }
  }

  private startFailed(error: unknown): McpkitError {
    const code = (error as { code?: unknown } | null)?.code;
    const why = error instanceof Error ? `: ${error.message}` : "";
    const failure = new McpkitError("TRANSPORT", `could not start ${this.launch.command}${why}`, {
      details: { command: this.launch.command, code },
      cause: error,
    });
    this.failureError = failure;
    this.resolveClosed({ kind: "error", error: failure });
    return failure;
  }

  /** Writes one frame; `undefined` when it is done, a promise when it waits for `drain`. */
  private write(frame: string): Promise<void> | undefined {
    const stdin = this.child?.stdin;
    if (!stdin || this.writesStopped) return this.refused();
    const flushed = stdin.write(frame);
    this.poll.extend();
    if (flushed) return undefined;
    return drained(stdin, this.writeStop.signal, () => this.refused());
  }

  private receive(chunk: Buffer): void {
    if (!this.reading || this.violation) return;
    this.poll.read();
    this.pacer.push(chunk);
  }

  /** Delivers the frames of one run (a chunk, or a later turn's share of one); a violation then ends it all. */
  private deliver(): void {
    const batch = this.batch;
    this.batch = [];
    for (const message of batch) {
      if (!this.reading) break;
      this.handlers?.message(message, this.launch.info);
    }
    if (this.violation && this.reading) void this.end({ kind: "protocol", error: this.violation });
  }

  private frame(frame: string | InvalidUtf8Frame): void {
    this.frames++;
    if (this.violation) return;
    if (frame instanceof InvalidUtf8Frame) {
      this.violation = notJsonRpc(invalidUtf8Error(), frame.lossy, this.frames);
      return;
    }
    try {
      this.batch.push(decodeFrame(frame));
    } catch (error) {
      this.violation = notJsonRpc(error, frame, this.frames);
    }
  }

  /**
   * End of file on the child's stdout: nothing more can be read. A root that is exiting ends the connection
   * through its exit (that is the news); one still running after a short grace has closed its stdout, which
   * ends the connection as well, rather than leaving pending calls to wait for their deadlines.
   */
  private async stdoutEnded(): Promise<void> {
    if (this.sequence || this.exitStatus) return;
    await within(this.exited, EOF_EXIT_GRACE_MS);
    if (this.sequence || this.exitStatus || !this.child) return;
    await this.end({ kind: "eof" });
  }

  /** The one close sequence, whatever started it; runs once. */
  private end(cause: EndCause): Promise<void> {
    if (this.sequence) return this.sequence;
    const child = this.child;
    if (!child) return Promise.resolve();
    this.endKind = cause.kind;
    // After the root exits on its own, what it wrote before exiting is still delivered.
    this.reading = cause.kind === "exit";
    if (!this.reading) this.pacer.stop();
    this.writesStopped = true;
    this.poll.stop();
    this.writeStop.abort();
    child.stdin?.end();
    this.sequence = this.finish(child, cause);
    // Reported through handlers.close and `failure`; only close() hands the rejection to its caller.
    this.sequence.catch(() => {});
    return this.sequence;
  }

  private async finish(child: ChildProcess, cause: EndCause): Promise<void> {
    const pid = child.pid as number;
    const trigger = cause.kind;
    const report = await runCleanup(
      {
        pid,
        rootStartTime: this.rootStartTime,
        marker: this.launch.marker,
        shutdownTimeoutMs: this.launch.policy.shutdownTimeoutMs,
        rootExited: this.exited,
        exit: () => this.exitStatus,
      },
      this.ops,
      trigger,
    );
    this.report = report;
    await within(Promise.all([closedStream(child.stdout), closedStream(child.stderr)]), STREAM_END_MS);
    this.reading = false;
    this.pacer.stop();
    for (const stream of child.stdio) stream?.destroy();
    this.stopForwarding();
    this.stderr?.end();
    const closeReason = this.reasonFor(cause);
    let reported = closeReason;
    let cleanupError: McpkitError | undefined;
    if (cleanupFailed(report)) {
      cleanupError = new McpkitError("TRANSPORT", describeFailure(report), { details: { report } });
      reported = {
        kind: "error",
        error: new McpkitError("CLOSED", `the stdio transport closed and ${describeFailure(report)}`, {
          details: { closeReason, cleanupError, ...exitDetails(this.exitStatus) },
          cause: cleanupError,
        }),
      };
    }
    this.failureError = reported.error;
    this.resolveClosed(reported);
    this.handlers?.close(reported);
    if (cleanupError) throw cleanupError;
  }

  /** Why the transport ended; an end the server caused quotes the tail of its stderr. */
  private reasonFor(cause: EndCause): TransportCloseReason {
    if (cause.kind === "close") return { kind: "local" };
    const quote = this.tail.quote();
    const withTail = (error: McpkitError) => withStderrTail(error, quote, this.tail.text());
    switch (cause.kind) {
      case "protocol":
        return { kind: "error", error: withTail(cause.error) };
      case "exit":
        return {
          kind: "remote",
          error: withTail(
            new McpkitError("CLOSED", `the stdio server ${describeExit(this.exitStatus)}`, {
              details: exitDetails(this.exitStatus),
            }),
          ),
        };
      case "eof":
        return {
          kind: "remote",
          error: withTail(
            new McpkitError(
              "CLOSED",
              "the stdio server closed its stdout while its process was still running",
              {
                details: { ...exitDetails(this.exitStatus), stdout: "end" },
              },
            ),
          ),
        };
      case "io": {
        // A write that fails because the server died: the exit is the news (not a signal cleanup sent it).
        const exit = this.exitStatus;
        const sent = exit?.signal ? this.report?.groupSignals.includes(exit.signal) : false;
        const exited = exit && !sent ? ` (the server ${describeExit(exit)})` : "";
        return {
          kind: "error",
          error: withTail(
            new McpkitError("TRANSPORT", `writing to the stdio server's stdin failed${exited}`, {
              details: exitDetails(this.exitStatus),
              cause: cause.error,
            }),
          ),
        };
      }
    }
  }

  /**
   * The rejection of a send that finds the transport not open. While the server's own end (an exit, a violation,
   * a failed write) is being cleaned up, it waits for the close reason, so that the error says why.
   */
  private refused(): Promise<never> {
    const kind = this.endKind;
    if (kind === undefined || kind === "close" || this.failureError) return Promise.reject(this.notOpen());
    const refuse = () => Promise.reject(this.notOpen());
    // end() stops the writes just before it starts the sequence: read it a moment later.
    return Promise.resolve()
      .then(() => this.sequence)
      .then(refuse, refuse);
  }

  /** The error of a send that finds the transport not open, naming why it is not. */
  private notOpen(): McpkitError {
    const state = this.child ? "closed" : "not started";
    const failure = this.failureError;
    if (failure) {
      return new McpkitError("CLOSED", `the stdio transport is ${state}: ${failure.message}`, {
        cause: failure,
      });
    }
    const exited = this.exitStatus ? `: the stdio server ${describeExit(this.exitStatus)}` : "";
    return new McpkitError("CLOSED", `the stdio transport is ${state}${exited}`);
  }
}

function invalid(key: string, problem: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", `stdio launch ${key} ${problem}`, { details: { key } });
}
