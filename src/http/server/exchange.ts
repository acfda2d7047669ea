import type { Clock } from "../../jsonrpc/clock.js";
import { exceedsUtf8, unencodableResponse, utf8Length } from "../../jsonrpc/codec.js";
import { ErrorCode } from "../../jsonrpc/codes.js";
import { McpkitError } from "../../jsonrpc/errors.js";
import { LazyAbort } from "../../jsonrpc/lazy-abort.js";
import { limitDetails, limitError, limitMessage } from "../../jsonrpc/limit-error.js";
import type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcResponse,
  RequestId,
} from "../../jsonrpc/message.js";
import type { ServerLogger } from "../../server/port.js";
import type { Answer } from "./answer.js";
import { emptyResponse, jsonResponse, retryAfterHeaders } from "./responses.js";
import { SSE_HEADERS, SseStream } from "./sse.js";

/** Options of one {@link ResponseExchange}. */
export interface ExchangeOptions {
  /** Answer with `application/json` (request-scoped notifications are then dropped). */
  json: boolean;
  /** The client accepts `application/json`: an answer that comes before any stream byte is sent as JSON. */
  jsonFirst: boolean;
  maxResponseBytes: number;
  keepAliveMs: number;
  clock: Clock;
  /** HTTP status of an answer sent before any stream byte (errors may map to 400/404). */
  statusOf: (response: JsonRpcResponse) => number;
  /** Registers the callback to run when the client goes away. */
  onGone: (callback: () => void) => void;
  logger: ServerLogger;
  /**
   * A deadline for the answer (2025-11-25 POSTs: `legacySseTimeoutMs`): past it the request is answered
   * `-32603` "Request timeout" for `id` and `signal` fires. None when absent.
   */
  timeout?: ExchangeTimeout;
}

/** The deadline of an {@link ResponseExchange}: its length, and the id its timeout error answers. */
export interface ExchangeTimeout {
  readonly ms: number;
  readonly id: RequestId;
}

/** Message of the error a 2025-11-25 POST gets when its answer outlasts `legacySseTimeoutMs`. */
export const REQUEST_TIMEOUT_MESSAGE = "Request timeout";

/**
 * The HTTP answer to one JSON-RPC request: JSON, or an SSE stream carrying the request's progress and log
 * notifications, then its response. Nothing is committed until the first notification, the first keepalive or
 * the response: an answer that comes first is sent alone, as JSON when the client accepts it (or an error whose
 * code calls for another status than 200), else as a one-event stream. The
 * response is bounded by `maxResponseBytes` (a notification past it is dropped; a response past it becomes
 * `-32603` `response_too_large`, with status 500 when nothing was sent yet). When the client closes the stream
 * (or goes away before the answer), `signal` fires so the handler stops. With a `timeout`, an answer that has
 * not come by then is replaced by `-32603` "Request timeout": status 504 when nothing was sent yet, else the
 * stream's last event; then `signal` fires, and the handler's late answer is dropped.
 */
export class ResponseExchange {
  /** Fires when the client goes away (an `AbortSignal` is made only if someone asks the handle for one). */
  readonly signal = new LazyAbort();
  /** Resolves with the answer to send, as soon as its head is known. */
  readonly response: Promise<Answer>;
  private stream: SseStream | undefined;
  private state: "pending" | "streaming" | "done" = "pending";
  private resolve!: (answer: Answer) => void;
  private firstKeepAlive: unknown;
  private deadline: unknown;
  private dropped = false;
  private readonly requestAbort: (reason: unknown) => void;

  constructor(private readonly options: ExchangeOptions) {
    this.response = new Promise((resolve) => {
      this.resolve = resolve;
    });
    // An abort from another request (notifications/cancelled, a closed session) is a promise of this request
    // settled there: its reaction, the abort itself, runs in this request's context. On Workers the handler's
    // abort listeners may only touch this request's I/O (its timers, its streams).
    let requestAbort!: (reason: unknown) => void;
    void new Promise<unknown>((resolve) => {
      requestAbort = resolve;
    }).then((reason) => this.signal.abort(reason));
    this.requestAbort = requestAbort;
    options.onGone(() => this.cancel());
    const timeout = options.timeout;
    if (timeout !== undefined) {
      this.deadline = options.clock.setTimeout(() => this.timedOut(timeout.id, timeout.ms), timeout.ms);
    }
    if (!options.json && options.keepAliveMs > 0) {
      this.firstKeepAlive = options.clock.setTimeout(() => {
        if (this.state === "pending") this.commit({}).keepalive();
      }, options.keepAliveMs);
    }
  }

  /** Sends a request-scoped notification on the stream (dropped in JSON mode or past the byte limit). */
  readonly notify = async (notification: JsonRpcNotification): Promise<void> => {
    if (this.options.json || this.state === "done") return;
    let json: string;
    try {
      json = JSON.stringify(notification);
    } catch (error) {
      // As on every transport, a notification that cannot be sent is logged and dropped, not thrown.
      this.options.logger.warn("dropped a notification that could not be encoded", error);
      return;
    }
    const stream = this.stream ?? this.commit({});
    if (stream.bytesWritten + SseStream.eventSize(json) > this.options.maxResponseBytes) {
      if (!this.dropped) this.options.logger.warn("dropped notifications past maxResponseBytes");
      this.dropped = true;
      return;
    }
    stream.event(json);
    await stream.drained();
  };

  /**
   * Fires `signal` (the request was cancelled, or its session closed) on the next microtask, in this request's
   * own context; the handler's answer then decides.
   */
  abort(reason?: unknown): void {
    this.requestAbort(reason);
  }

  /** True when this exchange answers with an SSE stream (so it can carry server-to-client requests). */
  get streams(): boolean {
    return !this.options.json;
  }

  /**
   * Sends a server-to-client message on this request's stream (2025-11-25: the requests of an input round, and
   * their cancellations). Rejects in JSON mode, once the exchange ended, or past `maxResponseBytes`: the message
   * must reach the client, or its sender must know it did not.
   */
  readonly send = async (message: JsonRpcMessage): Promise<void> => {
    if (this.options.json) throw new McpkitError("UNSUPPORTED", "a JSON answer cannot carry server requests");
    if (this.state === "done") throw new McpkitError("CLOSED", "the response stream has ended");
    const json = JSON.stringify(message);
    const stream = this.stream ?? this.commit({});
    const size = stream.bytesWritten + SseStream.eventSize(json);
    if (size > this.options.maxResponseBytes) {
      const facts = { option: "maxResponseBytes", limit: this.options.maxResponseBytes, size };
      throw limitError("MESSAGE_TOO_LARGE", "the response stream with this message", facts);
    }
    stream.event(json);
    await stream.drained();
  };

  /**
   * Sends the final response (with `headers`, and `Retry-After` for an error that says when to retry, when
   * nothing was committed yet) and ends the exchange.
   */
  finish(response: JsonRpcResponse, headers: { [name: string]: string } = {}): void {
    // Already answered, or the client closed the stream: a late answer has nowhere to go.
    if (this.state === "done") return;
    const retryAfter = retryAfterHeaders(response);
    const head = retryAfter === undefined ? headers : { ...headers, ...retryAfter };
    this.clearTimers();
    let json = this.encode(response);
    let tooLarge = false;
    const sent = this.stream?.bytesWritten ?? 0;
    const status = this.options.statusOf(response);
    const asJson =
      this.state === "pending" && (this.options.json || this.options.jsonFirst || status !== 200);
    const overhead = asJson ? 0 : SseStream.eventSize("");
    // A UTF-16 code unit is at most 3 UTF-8 bytes: an answer that short is within the limit without counting.
    const size =
      sent + json.length * 3 + overhead <= this.options.maxResponseBytes ? 0 : utf8Length(json) + overhead;
    if (sent + size > this.options.maxResponseBytes) {
      tooLarge = true;
      this.options.logger.warn("response exceeds maxResponseBytes", {
        limit: this.options.maxResponseBytes,
        size,
      });
      json = JSON.stringify(this.tooLarge(response.id, sent + size));
      // An id so long that this error would pass the bound too: it goes without the id.
      const room =
        this.state === "pending"
          ? this.options.maxResponseBytes
          : this.options.maxResponseBytes - sent - SseStream.eventSize("");
      if (exceedsUtf8(json, room)) json = JSON.stringify(this.tooLarge(undefined, sent + size));
    }
    if (this.state === "pending") {
      if (asJson || tooLarge) {
        this.state = "done";
        this.resolve(jsonResponse(tooLarge ? 500 : status, json, head));
        return;
      }
      this.commit(head);
    }
    this.state = "done";
    this.stream?.event(json);
    this.stream?.close();
  }

  /** Ends the exchange without a response (the client cancelled the request): 202, or the stream just ends. */
  abandon(): void {
    if (this.state === "done") return;
    this.clearTimers();
    const pending = this.state === "pending";
    this.state = "done";
    if (pending) this.resolve(emptyResponse(202));
    else this.stream?.close();
  }

  /**
   * The response as JSON; one that cannot be encoded (a `BigInt` or a cycle in the result) becomes `-32603`
   * `Response could not be encoded` for its id, so the client is answered and the server goes on.
   */
  private encode(response: JsonRpcResponse): string {
    try {
      return JSON.stringify(response);
    } catch (error) {
      this.options.logger.error("a response could not be encoded", error);
      return JSON.stringify(unencodableResponse(response.id));
    }
  }

  private tooLarge(id: RequestId | undefined, size: number): JsonRpcResponse {
    const facts = { option: "maxResponseBytes", limit: this.options.maxResponseBytes, size };
    const error = {
      code: ErrorCode.InternalError,
      message: limitMessage("Response too large", facts),
      data: limitDetails(facts, { reason: "response_too_large" }),
    };
    return id === undefined ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error };
  }

  private commit(headers: { [name: string]: string }): SseStream {
    const stream = new SseStream({
      keepAliveMs: this.options.keepAliveMs,
      clock: this.options.clock,
      onCancel: () => this.cancel(),
    });
    this.stream = stream;
    this.state = "streaming";
    this.clearFirstKeepAlive();
    this.resolve({ status: 200, headers: { ...SSE_HEADERS, ...headers }, body: stream.body });
    return stream;
  }

  private cancel(): void {
    if (this.signal.aborted) return;
    this.clearTimers();
    if (this.state === "streaming") {
      this.state = "done";
      this.stream?.close();
    }
    this.signal.abort(new McpkitError("ABORTED", "the client closed the response stream"));
  }

  /**
   * The deadline passed with no answer: `-32603` "Request timeout" goes out (504 when nothing was sent, else as
   * the stream's last event), then the handler's signal fires.
   */
  private timedOut(id: RequestId, ms: number): void {
    this.deadline = undefined;
    if (this.state === "done") return;
    // Cancelled, with a handler slow to stop: a cancelled request gets no answer.
    if (this.signal.aborted) {
      this.abandon();
      return;
    }
    this.clearTimers();
    const json = JSON.stringify({
      jsonrpc: "2.0",
      id,
      error: { code: ErrorCode.InternalError, message: REQUEST_TIMEOUT_MESSAGE },
    });
    if (this.state === "pending") this.resolve(jsonResponse(504, json));
    else {
      this.stream?.event(json);
      this.stream?.close();
    }
    this.state = "done";
    this.options.logger.warn("a request outlasted legacySseTimeoutMs", { id, limit: ms });
    this.signal.abort(
      new McpkitError("TIMEOUT", `no answer within legacySseTimeoutMs (${ms} ms)`, {
        details: { limit: ms },
      }),
    );
  }

  private clearTimers(): void {
    this.clearFirstKeepAlive();
    if (this.deadline === undefined) return;
    this.options.clock.clearTimeout(this.deadline);
    this.deadline = undefined;
  }

  private clearFirstKeepAlive(): void {
    if (this.firstKeepAlive === undefined) return;
    this.options.clock.clearTimeout(this.firstKeepAlive);
    this.firstKeepAlive = undefined;
  }
}
