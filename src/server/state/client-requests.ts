import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError, McpkitError } from "../../jsonrpc/errors.js";
import { type LimitFacts, limitError } from "../../jsonrpc/limit-error.js";
import type { JsonRpcMessage, JsonRpcRequest, JsonRpcResponse } from "../../jsonrpc/message.js";

/** Where a server-to-client request (and its cancellation) is written: a connection, or an HTTP stream. */
export type MessageSender = (message: JsonRpcMessage) => Promise<void>;

type Result = { [key: string]: unknown };

/** A request to the client before it has an id. */
export interface OutgoingRequest {
  readonly method: string;
  readonly params?: { readonly [key: string]: unknown } | undefined;
}

/**
 * Wraps the exchange of every server-to-client request of a session (the plugins' `clientRequest` hooks):
 * `origin` says where the request comes from, `send` sends it (or an amended copy) and resolves with the answer.
 */
export type ExchangeWrapper = (
  request: OutgoingRequest,
  origin: unknown,
  send: (request: OutgoingRequest) => Promise<Result>,
) => Promise<Result | undefined>;

interface Pending {
  resolve(result: { [key: string]: unknown }): void;
  reject(error: unknown): void;
}

/**
 * The server-to-client requests of one 2025-11-25 session (`sampling/createMessage`, `elicitation/create`,
 * `roots/list`): mints their ids, matches the client's responses to them, and bounds them: at most `max`
 * await an answer at once, each waits at most `timeoutMs`, and one whose caller gives up (its signal fired)
 * is cancelled on the client with `notifications/cancelled`.
 */
export class ClientRequests {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closedReason: Error | undefined;

  constructor(
    private readonly max: number,
    private readonly timeoutMs: number,
    /** Wraps each exchange; `undefined` when nothing does. */
    private readonly wrap?: ExchangeWrapper,
  ) {}

  /** Requests awaiting an answer now. */
  get size(): number {
    return this.pending.size;
  }

  /** @internal What a refusal of `count` more requests names: `maxClientRequests`, its value, the requests there would be. */
  facts(count: number): LimitFacts {
    return { option: "maxClientRequests", limit: this.max, size: this.pending.size + count };
  }

  /** True when `count` more requests fit under the limit. */
  fits(count: number): boolean {
    return this.pending.size + count <= this.max;
  }

  /**
   * Sends one request through `send` and resolves with the client's result. Rejects with the client's
   * `JsonRpcError`, with `McpkitError` `TIMEOUT` past `timeoutMs`, `CAPACITY` when `max` requests are pending,
   * `ABORTED` when `signal` fires, or `CLOSED` once the session is gone. `origin` goes to the wrapper.
   */
  request(
    method: string,
    params: { readonly [key: string]: unknown } | undefined,
    send: MessageSender,
    signal: AbortSignal,
    origin?: unknown,
  ): Promise<{ [key: string]: unknown }> {
    if (this.wrap === undefined) return this.exchange(method, params, send, signal);
    return this.wrap({ method, params }, origin, (request) =>
      this.exchange(request.method, request.params, send, signal),
    ).then((result) => {
      if (typeof result !== "object" || result === null) {
        throw new Error(`a clientRequest hook resolved ${method} with no result`);
      }
      return result;
    });
  }

  private exchange(
    method: string,
    params: { readonly [key: string]: unknown } | undefined,
    send: MessageSender,
    signal: AbortSignal,
  ): Promise<Result> {
    if (this.closedReason) return Promise.reject(this.closedReason);
    if (signal.aborted) return Promise.reject(signal.reason);
    if (!this.fits(1)) {
      return Promise.reject(
        limitError("CAPACITY", "too many server-to-client requests pending", this.facts(1), {
          unit: "requests",
        }),
      );
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.pending.delete(id);
      };
      const giveUp = (error: unknown, reason: string) => {
        if (!this.pending.has(id)) return;
        settle();
        reject(error);
        // The client may still be asking its user: tell it the answer is no longer wanted.
        void send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason },
        }).catch(() => {});
      };
      const onAbort = () => giveUp(signal.reason, "the request that needed this input ended");
      timer = setTimeout(
        () =>
          giveUp(
            new McpkitError("TIMEOUT", `the client did not answer ${method} in time`, {
              details: { method, timeoutMs: this.timeoutMs },
            }),
            "timed out",
          ),
        this.timeoutMs,
      );
      signal.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, {
        resolve: (result) => {
          settle();
          resolve(result);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      const request: JsonRpcRequest =
        params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
      send(request).catch((error: unknown) => this.pending.get(id)?.reject(error));
    });
  }

  /** Routes a client response to its request; false when no request of this session has that id. */
  receive(response: JsonRpcResponse): boolean {
    const id = response.id;
    const pending = typeof id === "number" ? this.pending.get(id) : undefined;
    if (!pending) return false;
    if ("error" in response) pending.reject(JsonRpcError.fromWire(response.error));
    else pending.resolve(response.result);
    return true;
  }

  /** Fails every pending request and refuses new ones (the session ended). */
  close(reason: Error = new McpkitError("CLOSED", "the session closed")): void {
    this.closedReason ??= reason;
    for (const pending of [...this.pending.values()]) pending.reject(this.closedReason);
  }
}

/** The `-32603` a handler call gets when one of its input requests failed on the client. */
export function inputFailed(key: string, error: unknown): JsonRpcError {
  if (error instanceof JsonRpcError) {
    return new JsonRpcError(ErrorCode.InternalError, `Input request "${key}" failed: ${error.message}`, {
      key,
      error: error.toJSON(),
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new JsonRpcError(ErrorCode.InternalError, `Input request "${key}" failed: ${message}`, { key });
}
