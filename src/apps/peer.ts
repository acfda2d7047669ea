import type { Clock } from "../jsonrpc/clock.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import { type BoundsProblem, type MessageBounds, readBounded } from "./bounds.js";
import type { BridgeEndpoint } from "./endpoint.js";

/** Something wrong a bridge end received and ignored (or answered with an error): for logs, never thrown. */
export interface BridgeProblem {
  kind: BoundsProblem | "not-json-rpc" | "invalid-message" | "unknown-response" | "lifecycle" | "handler";
  message: string;
  method?: string;
}

/** What a peer does with what it receives. */
export interface PeerHandlers {
  request(method: string, params: { [key: string]: unknown }): Promise<unknown>;
  notification(method: string, params: { [key: string]: unknown }): void;
  problem(problem: BridgeProblem): void;
}

type Pending = {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: unknown;
};

function isRecord(value: unknown): value is { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// JSON-RPC ids are strings or integers here: null, fractions, booleans and objects are refused.
const isId = (id: unknown): id is string | number =>
  typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id));

/** True for a notification's method name (`notifications/...`, `ui/notifications/...`): those never carry an id. */
export const isNotificationMethod = (method: string): boolean =>
  method.startsWith("notifications/") || method.startsWith("ui/notifications/");

/** Why a message with a method is malformed, or `undefined` when it is a well-formed request or notification. */
function malformed(message: { [key: string]: unknown }, method: unknown, id: unknown): string | undefined {
  if (typeof method !== "string" || method === "") return "method must be a non-empty string";
  if ("result" in message || "error" in message) {
    return `a message may not carry both a method (${method}) and a result or error`;
  }
  if (id !== undefined && !isId(id)) return `the id of ${method} must be a string or an integer`;
  if (isNotificationMethod(method)) {
    return id === undefined ? undefined : `${method} is a notification: it takes no id`;
  }
  return id === undefined ? `${method} is a request: it needs an id` : undefined;
}

/**
 * JSON-RPC 2.0 over a {@link BridgeEndpoint}: its own id counter from 0, bounded reads, one deadline per request,
 * key order never relied on. Shared by {@link AppHost} and {@link AppView}.
 */
export class BridgePeer {
  private nextId = 0;
  private readonly pending = new Map<string | number, Pending>();
  private readonly stop: () => void;
  private closed = false;

  constructor(
    private readonly endpoint: BridgeEndpoint,
    private readonly bounds: MessageBounds & { requestTimeoutMs: number; maxPending: number; clock: Clock },
    private readonly handlers: PeerHandlers,
  ) {
    this.stop = endpoint.listen((data) => this.receive(data));
  }

  /** Sends a request; resolves with its result, rejects with the peer's `JsonRpcError` or `TIMEOUT`/`CLOSED`/`CAPACITY`. */
  request(method: string, params: { [key: string]: unknown }, timeoutMs?: number): Promise<unknown> {
    if (this.closed) return Promise.reject(new McpkitError("CLOSED", "the bridge is closed"));
    if (this.pending.size >= this.bounds.maxPending) {
      return Promise.reject(
        new McpkitError("CAPACITY", `${this.bounds.maxPending} bridge requests are pending`),
      );
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const ms = timeoutMs ?? this.bounds.requestTimeoutMs;
      const timer = this.bounds.clock.setTimeout(() => {
        this.pending.delete(id);
        reject(
          new McpkitError("TIMEOUT", `${method} got no answer within ${ms} ms`, { details: { method } }),
        );
      }, ms);
      this.pending.set(id, { resolve, reject, timer });
      this.endpoint.post({ jsonrpc: "2.0", id, method, params });
    });
  }

  /** Sends a notification (`params` omitted when undefined). */
  notify(method: string, params?: { [key: string]: unknown }): void {
    if (this.closed) return;
    this.endpoint.post(
      params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params },
    );
  }

  /** Stops listening and rejects every pending request with `CLOSED`. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stop();
    for (const [id, pending] of this.pending) {
      this.bounds.clock.clearTimeout(pending.timer);
      pending.reject(new McpkitError("CLOSED", "the bridge closed"));
      this.pending.delete(id);
    }
  }

  private receive(data: unknown): void {
    if (this.closed) return;
    const read = readBounded(data, this.bounds);
    if ("problem" in read) {
      this.handlers.problem({ kind: read.problem, message: `a message was refused: ${read.problem}` });
      // A refused request still gets its answer when its id can be read without walking the message.
      const refused = "parsed" in read ? read.parsed : data;
      if (isRecord(refused) && typeof refused.method === "string" && isId(refused.id)) {
        this.answerError(refused.id, ErrorCode.InvalidRequest, `message refused: ${read.problem}`);
      }
      return;
    }
    const message = read.value;
    if (!isRecord(message) || message.jsonrpc !== "2.0") {
      this.handlers.problem({
        kind: "not-json-rpc",
        message: "a message that is not JSON-RPC 2.0 was ignored",
      });
      return;
    }
    const { method, id } = message;
    const params = isRecord(message.params) ? message.params : {};
    if (method !== undefined) {
      this.incoming(message, method, id, params);
      return;
    }
    if (!isId(id)) {
      this.handlers.problem({ kind: "not-json-rpc", message: "a message without method or id was ignored" });
      return;
    }
    const pending = this.pending.get(id);
    if (pending === undefined) {
      this.handlers.problem({
        kind: "unknown-response",
        message: `an answer to unknown id ${String(id)} was ignored`,
      });
      return;
    }
    this.pending.delete(id);
    this.bounds.clock.clearTimeout(pending.timer);
    const error = message.error;
    if ("result" in message && "error" in message) {
      pending.reject(new McpkitError("PROTOCOL", "an answer carried both result and error: refused"));
    } else if (isRecord(error) && typeof error.code === "number" && typeof error.message === "string") {
      pending.reject(JsonRpcError.fromWire(error as { code: number; message: string; data?: unknown }));
    } else if ("result" in message) {
      pending.resolve(message.result);
    } else {
      pending.reject(new McpkitError("PROTOCOL", "an answer had neither result nor error"));
    }
  }

  /** A request or notification: checked strictly, refused with a clear error (never acted on) when malformed. */
  private incoming(
    message: { [key: string]: unknown },
    method: unknown,
    id: unknown,
    params: { [key: string]: unknown },
  ): void {
    const hasId = id !== undefined;
    const wrong = malformed(message, method, id);
    if (wrong !== undefined) {
      this.handlers.problem({
        kind: "invalid-message",
        message: `${wrong}: refused`,
        ...(typeof method === "string" ? { method } : {}),
      });
      // Answered when the message claims to be a request; by id null when its id is unusable (JSON-RPC 2.0).
      if (hasId) this.answerError(isId(id) ? id : null, ErrorCode.InvalidRequest, wrong);
      return;
    }
    const name = method as string;
    if (!hasId) {
      this.handlers.notification(name, params);
      return;
    }
    const requestId = id as string | number;
    if (message.params !== undefined && !isRecord(message.params)) {
      this.answerError(requestId, ErrorCode.InvalidParams, "params must be an object");
      return;
    }
    Promise.resolve()
      .then(() => this.handlers.request(name, params))
      .then(
        (result) => this.post({ jsonrpc: "2.0", id: requestId, result: isRecord(result) ? result : {} }),
        (error: unknown) => {
          if (error instanceof JsonRpcError) {
            this.post({ jsonrpc: "2.0", id: requestId, error: error.toJSON() });
            return;
          }
          this.handlers.problem({ kind: "handler", message: String(error), method: name });
          this.answerError(requestId, ErrorCode.InternalError, "Internal error");
        },
      );
  }

  private answerError(id: string | number | null, code: number, text: string): void {
    this.post({ jsonrpc: "2.0", id, error: { code, message: text } });
  }

  private post(message: object): void {
    if (!this.closed) this.endpoint.post(message);
  }
}
