import { parseMessage } from "../jsonrpc/codec.js";
import { McpkitError } from "../jsonrpc/errors.js";
import { ABORT_LIKE, type AbortLike } from "../jsonrpc/lazy-abort.js";
import {
  isObject,
  isRequest,
  isResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../jsonrpc/message.js";
import { type PendingEntry, PendingTable, type ResultObject } from "../jsonrpc/pending.js";
import { shallowCopy } from "../jsonrpc/shallow-copy.js";
import type { ProgressParams } from "../protocol/types/lifecycle.js";
import type { Transport, TransportCloseReason, TransportSendOptions } from "../transports/transport.js";
import type { Deadline } from "./deadline.js";
import { invokeSafely, readProgress } from "./inbound.js";
import type { NotificationRunner } from "./notification-runner.js";
import type { ServerRequestAnswer } from "./server-requests.js";
import type { ClientLogger } from "./types.js";

/** What the channel hands up to its owner. */
export interface ChannelEvents {
  /** A server notification other than progress. */
  notification(notification: JsonRpcNotification): void;
  /** A server-to-client request; the returned answer is sent back (`undefined`: nothing is sent). */
  request(request: JsonRpcRequest): ServerRequestAnswer | Promise<ServerRequestAnswer | undefined>;
  /** The transport ended underneath (not called for our own `close()`). */
  closed(error: McpkitError): void;
  /** The transport reported a failure it survived (see `TransportHandlers.error`); not after the end. */
  transportError?(error: McpkitError): void;
}

/** How one request is sent. */
export interface ExchangeOptions {
  /** The operation's deadline; when it ends first, the entry is removed and the call rejects with its reason. */
  deadline: Deadline;
  /** Adds `_meta.progressToken` (the request id) and routes matching progress here. */
  onProgress?: ((progress: ProgressParams) => void) | undefined;
  /** Called at once for each progress notification of this request (with `onProgress` only), before it runs. */
  onProgressArrived?: (() => void) | undefined;
  /** Send `notifications/cancelled` when the deadline ends before the answer. */
  cancelOnAbort: boolean;
  /** The `_meta` of that `notifications/cancelled`, if any. */
  cancelMeta?: { [key: string]: unknown } | undefined;
  /** `tools/call`: the caller's input schema of the tool, handed to the transport. */
  toolInputSchema?: TransportSendOptions["toolInputSchema"];
  /** Called with the request's id once it is allocated, before anything is sent. */
  onId?: ((id: number) => void) | undefined;
}

/**
 * The request/response engine under the client: one transport, a bounded pending table, progress routing and
 * shape checks on everything received. Malformed and unsolicited messages are dropped and reported.
 */
export class RpcChannel {
  private readonly pending: PendingTable;
  private readonly progress = new Map<number, (progress: ProgressParams) => void>();
  /** The `onProgressArrived` of the requests that have one (made on first use). */
  private arrivals: Map<number, () => void> | undefined;
  private closedError: McpkitError | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly transport: Transport,
    maxPending: number,
    private readonly logger: ClientLogger,
    private readonly events: ChannelEvents,
    /** Runs `onProgress` callbacks within the client's bounds; default: at once, each caught. */
    private readonly runner?: NotificationRunner,
  ) {
    this.pending = new PendingTable({
      capacity: maxPending,
      capacityOption: "maxPendingRequests",
      onUnknownResponse: (response) => this.dropped("a response for an unknown request id", response),
    });
  }

  /** True once closed, by us or by the transport. */
  get isClosed(): boolean {
    return this.closedError !== undefined;
  }

  /** Starts the transport. */
  async start(): Promise<void> {
    await this.transport.start({
      message: (message) => this.receive(message),
      close: (reason) => this.transportClosed(reason),
      error: (error) => {
        if (this.closedError) return;
        const reported =
          error instanceof McpkitError
            ? error
            : new McpkitError("TRANSPORT", "the transport reported a failure", { cause: error });
        this.events.transportError?.(reported);
      },
      logger: this.logger,
    });
  }

  /**
   * Sends one request and resolves with its raw `result`. Not `async`: the answer reaches the caller one hop
   * after it settles, and nothing waits on the transport's own promise unless it rejects.
   */
  request(
    method: string,
    params: { [key: string]: unknown },
    options: ExchangeOptions,
  ): Promise<ResultObject> {
    const { deadline } = options;
    if (this.closedError) return Promise.reject(this.closedError);
    if (deadline.aborted) return Promise.reject(deadline.reason);
    const call = new OutgoingRequest(this, options);
    let id: number;
    try {
      id = this.pending.add(call);
    } catch (error) {
      return Promise.reject(error);
    }
    call.id = id;
    if (options.onId) {
      try {
        options.onId(id);
      } catch (error) {
        // Nothing was sent: the entry goes, and only the error thrown here is reported.
        call.promise.catch(() => {});
        this.pending.reject(id, error);
        return Promise.reject(error);
      }
    }
    let sent = params;
    if (options.onProgress) {
      this.progress.set(id, options.onProgress);
      if (options.onProgressArrived) {
        this.arrivals ??= new Map();
        this.arrivals.set(id, options.onProgressArrived);
      }
      const meta = shallowCopy(isObject(params._meta) ? params._meta : undefined);
      meta.progressToken = id;
      sent = shallowCopy(params);
      sent._meta = meta;
    }
    deadline.addEventListener("abort", call.onAbort);
    try {
      // A plain JavaScript transport may return nothing from send: nothing to wait for then.
      const sending: Promise<void> | undefined = this.transport.send(
        { jsonrpc: "2.0", id, method, params: sent },
        new SendHints(deadline, options.toolInputSchema),
      );
      sending?.then(undefined, call.onSendFailed);
    } catch (error) {
      call.onSendFailed(error);
    }
    return call.promise;
  }

  /** @internal The deadline of a pending request ended first: forget it, and tell the server when asked to. */
  abandon(id: number, reason: unknown, options: ExchangeOptions): void {
    if (!this.pending.reject(id, reason)) return;
    if (options.cancelOnAbort) this.sendCancelled(id, reason, options.cancelMeta);
  }

  /** @internal The transport refused a pending request: it fails with the send's error. */
  sendFailed(id: number, error: unknown): void {
    this.pending.reject(id, sendFailure(error));
  }

  /** @internal A pending request settled: stop listening to its deadline and routing its progress. */
  settled(call: OutgoingRequest): void {
    call.options.deadline.removeEventListener("abort", call.onAbort);
    if (call.options.onProgress) this.progress.delete(call.id);
    if (call.options.onProgressArrived) this.arrivals?.delete(call.id);
  }

  /** Sends one notification. */
  async notify(method: string, params?: { [key: string]: unknown }): Promise<void> {
    if (this.closedError) throw this.closedError;
    const message: JsonRpcNotification =
      params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
    try {
      await this.transport.send(message);
    } catch (error) {
      throw sendFailure(error);
    }
  }

  /** Closes the transport and fails every pending request with `error`. Idempotent. */
  close(error: McpkitError): Promise<void> {
    if (this.closing) return this.closing;
    this.closedError ??= error;
    this.pending.rejectAll(this.closedError);
    this.progress.clear();
    this.closing = this.transport.close().catch((cause: unknown) => {
      throw new McpkitError("TRANSPORT", "closing the transport failed", { cause });
    });
    return this.closing;
  }

  private receive(raw: JsonRpcMessage): void {
    let message: JsonRpcMessage;
    try {
      message = parseMessage(raw);
    } catch (error) {
      this.dropped("a message that is not valid JSON-RPC", raw, error);
      return;
    }
    if (isResponse(message)) {
      this.pending.settle(message);
    } else if (isRequest(message)) {
      this.answer(message);
    } else if (message.method === "notifications/progress") {
      this.routeProgress(message.params);
    } else {
      this.events.notification(message);
    }
  }

  private routeProgress(params: unknown): void {
    const progress = readProgress(params);
    if (progress === undefined) {
      this.dropped("a malformed notifications/progress", params);
      return;
    }
    const handler =
      typeof progress.progressToken === "number" ? this.progress.get(progress.progressToken) : undefined;
    if (handler === undefined) {
      this.logger.debug?.("dropped progress for an unknown token", { progressToken: progress.progressToken });
      return;
    }
    if (this.arrivals !== undefined) this.arrivals.get(progress.progressToken as number)?.();
    if (this.runner) this.runner.run("onProgress", handler, progress);
    else invokeSafely(this.logger, "onProgress", handler, progress);
  }

  private answer(request: JsonRpcRequest): void {
    if (this.closedError) return;
    const answer = this.events.request(request);
    if ("then" in answer) {
      answer.then(
        (late) => {
          if (late !== undefined) this.sendAnswer(request, late);
        },
        (error: unknown) =>
          this.logger.warn("could not answer a server request", { method: request.method, error }),
      );
    } else {
      this.sendAnswer(request, answer);
    }
  }

  private sendAnswer(request: JsonRpcRequest, answer: ServerRequestAnswer): void {
    if (this.closedError) return;
    const response: JsonRpcResponse =
      "result" in answer
        ? { jsonrpc: "2.0", id: request.id, result: answer.result }
        : { jsonrpc: "2.0", id: request.id, error: answer.error };
    this.transport.send(response).catch((error: unknown) => {
      this.logger.warn("could not answer a server request", { method: request.method, error });
    });
  }

  private sendCancelled(id: number, reason: unknown, meta: { [key: string]: unknown } | undefined): void {
    if (this.closedError) return;
    const params: { [key: string]: unknown } = {
      requestId: id,
      reason: reason instanceof Error ? reason.message : "cancelled",
    };
    if (meta) params._meta = { ...meta };
    this.transport
      .send({ jsonrpc: "2.0", method: "notifications/cancelled", params })
      .catch((error: unknown) => this.logger.debug?.("could not send notifications/cancelled", { error }));
  }

  private transportClosed(reason: TransportCloseReason): void {
    if (this.closedError) return;
    const error = transportClosedError(reason);
    this.closedError = error;
    this.pending.rejectAll(error);
    this.progress.clear();
    this.events.closed(error);
  }

  private dropped(what: string, message: unknown, error?: unknown): void {
    const details: { [key: string]: unknown } = { message };
    if (error !== undefined) details.error = error;
    invokeSafely(
      this.logger,
      "logger",
      (d: typeof details) => this.logger.warn(`dropped ${what}`, d),
      details,
    );
  }
}

/**
 * One request awaiting its answer: its pending-table entry (the table settles it), its deadline listener and its
 * send-failure handler, in one object instead of a closure each. Settling cleans up, then settles `promise`.
 */
class OutgoingRequest implements PendingEntry {
  id = 0;
  readonly promise: Promise<ResultObject>;
  private fulfil!: (result: ResultObject) => void;
  private fail!: (error: unknown) => void;
  readonly onAbort = (): void => this.channel.abandon(this.id, this.options.deadline.reason, this.options);
  readonly onSendFailed = (error: unknown): void => this.channel.sendFailed(this.id, error);

  constructor(
    private readonly channel: RpcChannel,
    readonly options: ExchangeOptions,
  ) {
    this.promise = new Promise<ResultObject>((resolve, reject) => {
      this.fulfil = resolve;
      this.fail = reject;
    });
  }

  resolve(result: ResultObject): void {
    this.channel.settled(this);
    this.fulfil(result);
  }

  reject(error: unknown): void {
    this.channel.settled(this);
    this.fail(error);
  }
}

/** The transport's hints for one request; the deadline's `AbortSignal` is made only if the transport reads it. */
class SendHints implements TransportSendOptions {
  declare readonly toolInputSchema?: NonNullable<TransportSendOptions["toolInputSchema"]>;

  constructor(
    private readonly deadline: Deadline,
    toolInputSchema: TransportSendOptions["toolInputSchema"] | undefined,
  ) {
    // Set only when given, as a plain hints object would be.
    if (toolInputSchema) (this as { toolInputSchema?: unknown }).toolInputSchema = toolInputSchema;
  }

  get signal(): AbortSignal {
    return this.deadline.signal;
  }

  /** The deadline itself, for a transport that only listens to it (`abortOf`): no `AbortSignal` is made. */
  get [ABORT_LIKE](): AbortLike {
    return this.deadline;
  }
}

/**
 * The error of operations pending (or begun) when the transport ended underneath: its message names the cause
 * (`the transport closed: the stdio server process exited with code 1`), which is also its `cause`.
 */
export function transportClosedError(reason: TransportCloseReason): McpkitError {
  return new McpkitError("CLOSED", `the transport closed: ${describeClose(reason)}`, {
    details: { kind: reason.kind },
    ...(reason.error ? { cause: reason.error } : {}),
  });
}

function describeClose(reason: TransportCloseReason): string {
  if (reason.error) return reason.error.message || reason.error.name || "an error without a message";
  switch (reason.kind) {
    case "local":
      return "the transport was closed on this side";
    case "remote":
      return "the server ended the connection";
    case "error":
      return "a transport error";
  }
}

function sendFailure(error: unknown): McpkitError {
  if (error instanceof McpkitError) return error;
  return new McpkitError("TRANSPORT", "sending to the transport failed", { cause: error });
}
