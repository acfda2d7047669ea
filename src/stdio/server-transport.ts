import type { Readable, Writable } from "node:stream";
import { exceedsUtf8, unencodableResponse } from "../jsonrpc/codec.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import { nonNegativeInteger } from "../jsonrpc/config-check.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import { limitDetails, limitMessage } from "../jsonrpc/limit-error.js";
import {
  isObject,
  isRequest,
  isResponse,
  type JsonRpcErrorResponse,
  type JsonRpcMessage,
  type RequestId,
} from "../jsonrpc/message.js";
import { checkStaticIdentity, type Server } from "../server/port.js";
import type {
  MessageInfo,
  Transport,
  TransportCloseReason,
  TransportHandlers,
} from "../transports/transport.js";
import { FramePacer } from "./frame-pacer.js";
import {
  decodeRequestFrame,
  encodeFrame,
  FrameDecoder,
  type FrameDecoding,
  InvalidUtf8Frame,
  inboundLimitError,
} from "./framing.js";
import { type StdioPolicyInput, type StdioSecurityPolicy, stdioPolicy } from "./policy.js";
import { PollWindow, pollWindowOption } from "./poll-window.js";

/** Options of {@link StdioServerTransport}. */
export interface StdioServerTransportOptions {
  /** Where frames come from (default `process.stdin`). */
  input?: Readable;
  /** Where frames go (default `process.stdout`). Nothing but protocol frames may be written to it. */
  output?: Writable;
  /**
   * Frame limits, as a policy or policy input (see `stdioPolicy`). The server side uses `maxFrameBytes`,
   * `maxPendingStdoutBytes` (bytes read from the input and still waiting for their newline),
   * `maxFramesPerTurn` and `maxOutboundFrameBytes`; the launcher-only keys are ignored. Default: the `default`
   * preset.
   */
  policy?: StdioPolicyInput | StdioSecurityPolicy;
  /**
   * Once the input has ended, how long requests already received get to be answered before the transport
   * closes (default 5,000 ms; 0 closes at once).
   */
  drainTimeoutMs?: number;
  /**
   * How long the event loop keeps polling after each write, so that a request that follows at once is read
   * without a sleep and wake-up: 0 to 10 ms, 0 never polls (default 0.1; adaptive: a peer that does not write
   * within the window makes it back off).
   */
  pollAfterWriteMs?: number;
  /**
   * The identity of whoever launched this server, fixed for the whole connection (default: none). Every request
   * carries it to its handler as `RequestContext.identity`, as the HTTP `authenticate` hook's answer does; it
   * is never read from the input (`params`, `arguments`, `_meta`). The same shape as that answer: a principal
   * string, `{ principal: string, ...anything }` (an optional `authorizationContext` must be plain JSON), or
   * plain JSON. Anything that names no principal is refused with `McpkitError` `INVALID_CONFIG`.
   */
  identity?: unknown;
}

type State = "new" | "open" | "draining" | "closed";

/** A write waiting for the output's `drain` event. */
interface DrainWaiter {
  resolve(): void;
  reject(error: Error): void;
}

/**
 * The server side of the stdio transport: newline-delimited JSON-RPC frames on an input stream
 * (`process.stdin`) and an output stream (`process.stdout`), bounded by the stdio policy's frame limits.
 *
 * - A malformed inbound frame (invalid UTF-8, bad JSON, a non-object, not a JSON-RPC message) is answered with a
 *   JSON-RPC error (-32700 or -32600), carrying the id of a malformed request whose id could be read; the
 *   connection goes on.
 * - An inbound frame over `maxFrameBytes`, or more than `maxPendingStdoutBytes` waiting for a newline, closes
 *   the transport with `McpkitError` `MESSAGE_TOO_LARGE` naming the limit (`details.option`, `details.limit`,
 *   `details.size`).
 * - An outbound message over `maxOutboundFrameBytes` rejects `send()` with `MESSAGE_TOO_LARGE` and is not
 *   written; when it is a response, the peer gets a -32603 error for that id instead, so it does not wait.
 * - Output backpressure is respected: while the output has not drained, further writes wait and the input is
 *   paused.
 * - At most `maxFramesPerTurn` (100) inbound frames are handled per turn of the event loop: past it the input
 *   pauses and the rest of the chunk waits for the next turn, so a flood of small frames cannot hold up timers
 *   and other I/O.
 * - After each write the event loop keeps polling for up to `pollAfterWriteMs` (0.1 ms, backing off while the
 *   peer does not write that fast), so that a request that follows at once is read without a sleep first.
 * - When the input ends, requests already received are answered (for up to `drainTimeoutMs`), then the
 *   transport closes with `{ kind: "remote" }`. An I/O error on either stream closes it with `kind: "error"`.
 * - At the end (`close()`, the input's end, a failure) it stops reading and writing. It never ends or destroys
 *   the output (`process.stdout` may still hold frames to flush); an injected input is only paused, while the
 *   default `process.stdin` is destroyed so that an open stdin does not keep the process alive.
 *
 * Only frames ever reach the output: a server on `process.stdout` must log to stderr (`console.error`,
 * `console.warn`), never `console.log`.
 *
 * @example
 * const transport = new StdioServerTransport();
 * const connection = await server.connect(transport);
 * await connection.closed;
 */
export class StdioServerTransport implements Transport {
  private readonly input: Readable;
  private readonly output: Writable;
  /** The input is `process.stdin`, taken by default: released (destroyed) at the end. */
  private readonly ownsInput: boolean;
  private readonly policy: StdioSecurityPolicy;
  private readonly drainTimeoutMs: number;
  /** Frames the input at most `maxFramesPerTurn` frames per turn of the event loop. */
  private readonly pacer: FramePacer;
  private handlers: TransportHandlers | undefined;
  private state: State = "new";
  /** While a write waits for `drain`, the writes after it wait behind it, in order; otherwise none waits. */
  private backlog: Promise<void> | undefined;
  private drainWaiter: DrainWaiter | undefined;
  private drainTimer: ReturnType<typeof setTimeout> | undefined;
  /** Requests received and not yet answered (by id; a count, for duplicate ids). */
  private readonly unanswered = new Map<RequestId, number>();
  /** Polls for the next request a moment after each write instead of sleeping at once (see `PollWindow`). */
  private readonly poll: PollWindow;
  /** What every inbound message carries: the launch-static identity, when there is one. */
  private readonly info: MessageInfo | undefined;

  constructor(options: StdioServerTransportOptions = {}) {
    this.policy = stdioPolicy((options.policy ?? {}) as StdioPolicyInput);
    this.drainTimeoutMs = nonNegativeInteger(options.drainTimeoutMs, 5_000, "drainTimeoutMs");
    checkStaticIdentity(options.identity, "identity");
    this.info = options.identity === undefined ? undefined : Object.freeze({ identity: options.identity });
    this.poll = new PollWindow(pollWindowOption(options.pollAfterWriteMs));
    this.ownsInput = options.input === undefined;
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    const decoder = new FrameDecoder(
      { maxFrameBytes: this.policy.maxFrameBytes, maxPendingBytes: this.policy.maxPendingStdoutBytes },
      (frame) => this.onFrame(frame),
    );
    this.pacer = new FramePacer(decoder, this.policy.maxFramesPerTurn, {
      hold: () => this.input.pause(),
      // Output backpressure holds the input too: only its drain resumes it then.
      release: () => {
        if (this.state === "open" && this.drainWaiter === undefined) this.input.resume();
      },
      fail: (error) =>
        this.finish({
          kind: "error",
          error: inboundLimitError(error, { frame: "an inbound frame", pending: "input" }),
        }),
    });
  }

  /** The launch-static identity every inbound message carries (the `identity` option); undefined without. */
  get identity(): unknown {
    return this.info?.identity;
  }

  /** The policy in force (its frame limits are the ones used). */
  get limits(): StdioSecurityPolicy {
    return this.policy;
  }

  /** Starts reading stdin and delivering messages to `handlers`. Called once. */
  async start(handlers: TransportHandlers): Promise<void> {
    if (this.state !== "new") throw new McpkitError("PROTOCOL", "transport already started");
    this.handlers = handlers;
    this.state = "open";
    this.input.on("data", this.onData);
    this.input.on("end", this.onInputEnd);
    this.input.on("close", this.onInputEnd);
    this.input.on("error", this.onInputError);
    this.output.on("error", this.onOutputError);
    this.output.on("close", this.onOutputClose);
    this.output.on("drain", this.onDrain);
    if (this.input.readableEnded || this.input.destroyed) queueMicrotask(this.onInputEnd);
    else this.input.resume();
  }

  // Not `async`: a frame written at once settles with a shared resolved promise, no frame or hop per message.
  send(message: JsonRpcMessage): Promise<void> {
    if (this.state === "closed" || this.state === "new") return Promise.reject(closedError());
    let frame: string;
    try {
      frame = encodeFrame(message, this.policy.maxOutboundFrameBytes);
    } catch (error) {
      if (isResponse(message) && message.id !== undefined) {
        // The peer still gets an answer for that id, so it does not wait for one that never comes.
        const limit = this.policy.maxOutboundFrameBytes;
        void Promise.resolve(
          this.enqueue(boundedErrorFrame(unsendableResponse(message.id, error, limit), limit)),
        )
          .catch(() => {})
          .finally(() => this.answered(message));
      }
      return Promise.reject(error);
    }
    let pending: Promise<void> | undefined;
    try {
      pending = this.enqueue(frame);
    } catch (error) {
      this.answered(message);
      return Promise.reject(error);
    }
    if (pending === undefined) {
      this.answered(message);
      return WRITTEN;
    }
    return pending.finally(() => this.answered(message));
  }

  /** Stops reading stdin and ends the transport. Idempotent. */
  async close(): Promise<void> {
    this.finish({ kind: "local" });
  }

  // Arrow properties: the same function objects are added and removed as stream listeners.

  private readonly onData = (chunk: Buffer | string): void => {
    if (this.state !== "open") return;
    this.poll.read();
    this.pacer.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
  };

  private readonly onInputEnd = (): void => {
    if (this.state !== "open") return;
    // Frames held for a later turn came before the end: they are handled first.
    if (this.pacer.holding) {
      this.pacer.afterHeld(this.onInputEnd);
      return;
    }
    this.state = "draining";
    this.stopReading();
    if (this.unanswered.size === 0 || this.drainTimeoutMs === 0) {
      this.finish({ kind: "remote" });
      return;
    }
    this.drainTimer = setTimeout(() => this.finish({ kind: "remote" }), this.drainTimeoutMs);
  };

  private readonly onInputError = (error: Error): void => {
    this.finish({ kind: "error", error: ioError("the input stream failed", error) });
  };

  private readonly onOutputError = (error: Error): void => {
    this.finish({ kind: "error", error: ioError("the output stream failed", error) });
  };

  private readonly onOutputClose = (): void => {
    this.finish({ kind: "error", error: ioError("the output stream closed") });
  };

  private readonly onDrain = (): void => {
    const waiter = this.drainWaiter;
    this.drainWaiter = undefined;
    if (this.state === "open" && !this.pacer.holding) this.input.resume();
    waiter?.resolve();
  };

  private onFrame(frame: string | InvalidUtf8Frame): void {
    // The decoder may hold several frames of one chunk; none is delivered after the end.
    if (this.state !== "open") return;
    const decoded: FrameDecoding =
      frame instanceof InvalidUtf8Frame
        ? { ok: false, error: new JsonRpcError(ErrorCode.ParseError, "Parse error"), id: undefined }
        : decodeRequestFrame(frame);
    if (!decoded.ok) {
      const response: JsonRpcErrorResponse = { jsonrpc: "2.0", error: decoded.error.toJSON() };
      if (decoded.id !== undefined) response.id = decoded.id;
      void this.enqueue(boundedErrorFrame(response, this.policy.maxOutboundFrameBytes))?.catch(() => {});
      return;
    }
    const message = decoded.message;
    this.track(message);
    try {
      this.handlers?.message(message, this.info);
    } catch (error) {
      this.finish({
        kind: "error",
        error: new McpkitError("TRANSPORT", "the message handler threw", { cause: error }),
      });
    }
  }

  /**
   * Counts requests awaiting an answer; a cancelled request is not waited for, nor a `subscriptions/listen`
   * (a stream that lasts until its client goes: with the input ended, it has).
   */
  private track(message: JsonRpcMessage): void {
    if (isRequest(message) && message.method !== "subscriptions/listen") {
      this.unanswered.set(message.id, (this.unanswered.get(message.id) ?? 0) + 1);
    } else if (
      "method" in message &&
      message.method === "notifications/cancelled" &&
      isObject(message.params)
    ) {
      const id = message.params.requestId;
      if (typeof id === "string" || typeof id === "number") this.unanswered.delete(id);
    }
  }

  private answered(message: JsonRpcMessage): void {
    if (!isResponse(message) || message.id === undefined) return;
    const count = this.unanswered.get(message.id);
    if (count === undefined) return;
    if (count > 1) this.unanswered.set(message.id, count - 1);
    else this.unanswered.delete(message.id);
    if (this.state === "draining" && this.unanswered.size === 0) this.finish({ kind: "remote" });
  }

  /**
   * Writes one frame after the frames before it; waits for `drain` when the output is full. With nothing
   * waiting, the frame is written at once and `undefined` returned: no promise, no hop.
   */
  private enqueue(frame: string): Promise<void> | undefined {
    const backlog = this.backlog;
    if (backlog === undefined) {
      const written = this.write(frame);
      if (written !== undefined) this.holdBehind(written);
      return written;
    }
    const written = backlog.then(() => this.write(frame));
    this.holdBehind(written);
    return written;
  }

  /** Makes the writes that follow wait for `written`; the backlog clears once the last of them is done. */
  private holdBehind(written: Promise<void>): void {
    const tail: Promise<void> = written.then(
      () => this.clearBacklog(tail),
      () => this.clearBacklog(tail),
    );
    this.backlog = tail;
  }

  private clearBacklog(tail: Promise<void>): void {
    if (this.backlog === tail) this.backlog = undefined;
  }

  private write(frame: string): Promise<void> | undefined {
    if (this.state === "closed") return Promise.reject(closedError());
    const flushed = this.output.write(frame);
    this.poll.extend();
    if (flushed) return undefined;
    // Backpressure: read nothing more until the peer has taken what we wrote.
    if (this.state === "open") this.input.pause();
    return new Promise((resolve, reject) => {
      this.drainWaiter = { resolve, reject };
    });
  }

  private stopReading(): void {
    this.input.off("data", this.onData);
    this.input.pause();
  }

  private finish(reason: TransportCloseReason): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.poll.stop();
    this.pacer.stop();
    if (this.drainTimer !== undefined) clearTimeout(this.drainTimer);
    this.stopReading();
    this.input.off("end", this.onInputEnd);
    this.input.off("close", this.onInputEnd);
    this.output.off("close", this.onOutputClose);
    this.output.off("drain", this.onDrain);
    // An unheard stream error would crash the process: one shared no-op listener replaces ours (one per stream,
    // however many transports come and go on process.stdin/stdout).
    for (const [stream, listener] of [
      [this.input, this.onInputError],
      [this.output, this.onOutputError],
    ] as const) {
      if (!stream.listeners("error").includes(ignoreStreamError)) stream.on("error", ignoreStreamError);
      stream.off("error", listener);
    }
    this.unanswered.clear();
    // An open stdin would keep the process alive (and its peer writing) after the end: release it.
    if (this.ownsInput) this.input.destroy();
    const waiter = this.drainWaiter;
    this.drainWaiter = undefined;
    waiter?.reject(closedError());
    this.handlers?.close(reason);
  }
}

/** Options of {@link serveStdio}: the transport's, plus a signal that ends serving. */
export interface ServeStdioOptions extends StdioServerTransportOptions {
  /** Closes the transport when it fires; `serveStdio` then resolves with `{ kind: "local" }`. */
  signal?: AbortSignal;
}

/**
 * Serves `server` on stdin/stdout (or the given streams) until the input ends. Resolves with the close reason
 * (`remote` when stdin ended, `local` after `signal` fired); rejects with the error when the transport failed
 * (an oversized frame: `McpkitError` `MESSAGE_TOO_LARGE`; an I/O error: `TRANSPORT`).
 *
 * Handlers must log to stderr, never to stdout: stdout carries protocol frames only.
 *
 * @example
 * // server.mjs, launched by an MCP client
 * await serveStdio(server);
 * // launched on behalf of a known user: every handler sees it as `context.identity`
 * await serveStdio(server, { identity: { principal: process.env.LAUNCHING_USER ?? "local" } });
 */
export async function serveStdio(
  server: Server,
  options: ServeStdioOptions = {},
): Promise<TransportCloseReason> {
  const { signal, ...transportOptions } = options;
  const transport = new StdioServerTransport(transportOptions);
  const connection = await server.connect(transport);
  const stop = () => void connection.close();
  if (signal?.aborted) stop();
  else signal?.addEventListener("abort", stop, { once: true });
  const reason = await connection.closed;
  signal?.removeEventListener("abort", stop);
  if (reason.kind === "error")
    throw reason.error ?? new McpkitError("TRANSPORT", "the stdio transport failed");
  return reason;
}

/** What `send` returns for a frame written at once. */
const WRITTEN: Promise<void> = Promise.resolve();

/** Keeps a late error on a stream this transport no longer uses from crashing the process. */
function ignoreStreamError(): void {}

function closedError(): McpkitError {
  return new McpkitError("CLOSED", "transport is closed");
}

function ioError(message: string, cause?: Error): McpkitError {
  return new McpkitError("TRANSPORT", message, cause === undefined ? {} : { cause });
}

/** The -32603 answer sent in place of a response that could not be sent (too large, or not encodable). */
function unsendableResponse(id: RequestId, error: unknown, limit: number): JsonRpcErrorResponse {
  const tooLarge = error instanceof McpkitError && error.code === "MESSAGE_TOO_LARGE";
  if (!tooLarge) return { jsonrpc: "2.0", id, error: unencodableResponse(id).error };
  const facts = { option: "maxOutboundFrameBytes", limit, size: Number(error.details?.size) };
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: ErrorCode.InternalError,
      message: limitMessage("Response too large for the server's stdio frame", facts),
      data: limitDetails(facts, { reason: "response_too_large" }),
    },
  };
}

/**
 * An error response the transport writes itself, kept within `maxOutboundFrameBytes` when it can be: when the
 * request's id alone makes it pass the bound (an id almost as long as the inbound frame limit), it goes without
 * the id. (Under a bound smaller than the error itself, it keeps the id: nothing would fit.)
 */
function boundedErrorFrame(response: JsonRpcErrorResponse, limit: number): string {
  const text = JSON.stringify(response);
  if (!exceedsUtf8(text, limit)) return `${text}\n`;
  const { id: _unsendable, ...anonymous } = response;
  const shorter = JSON.stringify(anonymous);
  return `${exceedsUtf8(shorter, limit) ? text : shorter}\n`;
}
