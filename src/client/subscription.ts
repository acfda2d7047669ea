import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import { limitError } from "../jsonrpc/limit-error.js";
import { isObject, type JsonRpcNotification } from "../jsonrpc/message.js";
import type { SubscriptionFilter } from "../protocol/types/subscriptions.js";
import { checkTimeout } from "./options.js";
import type {
  Subscription,
  SubscriptionCloseResult,
  SubscriptionEnd,
  SubscriptionEvent,
  SubscriptionNext,
} from "./subscription-types.js";
import type { ClientLogger } from "./types.js";

export const DEFAULT_CLOSE_TIMEOUT_MS = 5_000;

/** What a handle needs from the client that opened it. */
export interface HandleDeps {
  filter: SubscriptionFilter;
  queueSize: number;
  /** The option `queueSize` came from, named when the queue overflows: `queueSize` or `subscriptionQueueSize`. */
  queueOption: string;
  /** The default wait of `next()`. */
  nextTimeoutMs: number;
  logger: ClientLogger;
  /** A listen was acknowledged. */
  acknowledged(): void;
  /**
   * Stops waiting for the listen answer, or for the next listen (sends nothing; a stream-cancelling transport
   * ends the stream).
   */
  abandon(): void;
  /** Cancels the listen `id` on the wire (none: between two listens); resolves once handed to the transport. */
  cancel(id: number | undefined): Promise<void>;
  /** Forgets the handle (frees its slot). */
  release(): void;
}

type Waiter = (next: SubscriptionNext) => void;

/**
 * One subscription's state, created before its listen request is sent: a bounded queue of events (the
 * acknowledgment first), waiting readers, and one end. The owner ({@link Subscriptions}) feeds it the
 * correlated notifications and the listen request's outcome.
 */
export class SubscriptionHandle implements Subscription {
  id = 0;
  readonly filter: SubscriptionFilter;
  honored: SubscriptionFilter | undefined;
  end: SubscriptionEnd | undefined;
  readonly ended: Promise<SubscriptionEnd>;
  private resolveEnded!: (end: SubscriptionEnd) => void;
  private readonly queue: SubscriptionEvent[] = [];
  private readonly waiters = new Set<Waiter>();
  /** True while a listen request runs (false between a lost one and the next). */
  private live = false;
  /** The outcome of a cancellation sent when the subscription ended (owner close, overflow). */
  private cancelling: Promise<SubscriptionCloseResult> | undefined;
  private closing: Promise<SubscriptionCloseResult> | undefined;

  constructor(private readonly deps: HandleDeps) {
    this.filter = deps.filter;
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
  }

  /** A listen request with `id` is on its way: its acknowledgment is awaited. */
  listening(id: number): void {
    this.id = id;
    this.live = true;
    this.honored = undefined;
  }

  /** The listen stream was lost; another listen follows after `delayMs` (attempt `attempt`). */
  interrupted(error: unknown, attempt: number, delayMs: number): void {
    if (this.end) return;
    this.live = false;
    this.push({ type: "interrupted", error, attempt, delayMs });
  }

  /** Takes a notification correlated to this subscription. */
  deliver(notification: JsonRpcNotification): void {
    if (this.end) return;
    const { method, params } = notification;
    if (method === "notifications/cancelled") {
      this.finish({ reason: "server_cancelled" });
    } else if (method === "notifications/subscriptions/acknowledged") {
      const honored = isObject(params) ? readFilter(params.notifications) : undefined;
      if (this.honored || honored === undefined) {
        this.drop("an unexpected or malformed acknowledgment", method);
      } else {
        this.honored = honored;
        this.deps.acknowledged();
        this.push({ type: "acknowledged", notifications: honored });
      }
    } else if (this.honored === undefined) {
      this.drop("a notification sent before the subscription's acknowledgment", method);
    } else if (!honours(this.filter, this.honored, notification)) {
      this.drop("a notification the subscription does not honour", method);
    } else {
      this.push({
        type: "notification",
        notification: params === undefined ? { method } : { method, params },
      });
    }
  }

  /** Takes the listen request's outcome: a result (a graceful end) or a failure. */
  settled(outcome: { result: { [key: string]: unknown } } | { error: unknown }): void {
    if (this.end) return;
    if ("result" in outcome) {
      if (outcome.result.resultType === "complete")
        this.finish({ reason: "completed", result: outcome.result });
      else {
        const error = new McpkitError(
          "PROTOCOL",
          'a subscriptions/listen result must have resultType "complete"',
          {
            details: { result: outcome.result },
          },
        );
        this.finish({ reason: "protocol", error });
      }
    } else if (outcome.error instanceof JsonRpcError) {
      this.finish({ reason: "error", error: outcome.error });
    } else {
      this.finish({ reason: "transport_closed", error: outcome.error });
    }
  }

  /** Ends the subscription (once): wakes readers, frees the slot, and with `cancel` cancels it on the wire. */
  finish(end: SubscriptionEnd, cancel = false): void {
    if (this.end) return;
    this.end = end;
    this.deps.abandon();
    this.deps.release();
    if (cancel) this.cancelling = this.cancelWithin(DEFAULT_CLOSE_TIMEOUT_MS, end);
    for (const waiter of this.waiters) waiter({ type: "end", end });
    this.waiters.clear();
    this.resolveEnded(end);
  }

  async next(timeoutMs?: number): Promise<SubscriptionNext> {
    return this.wait(checkTimeout("timeoutMs", timeoutMs, this.deps.nextTimeoutMs));
  }

  close(timeoutMs = DEFAULT_CLOSE_TIMEOUT_MS): Promise<SubscriptionCloseResult> {
    if (this.closing) return this.closing;
    let limit: number;
    try {
      limit = checkTimeout("timeoutMs", timeoutMs, DEFAULT_CLOSE_TIMEOUT_MS);
    } catch (error) {
      return Promise.reject(error);
    }
    this.queue.length = 0;
    if (this.end === undefined) {
      const end: SubscriptionEnd = { reason: "closed" };
      this.finish(end);
      this.closing = this.cancelWithin(limit, end);
    } else {
      this.closing = this.cancelling ?? Promise.resolve(afterEnd(this.end));
    }
    return this.closing;
  }

  [Symbol.asyncIterator](): AsyncIterator<SubscriptionEvent> {
    return {
      next: async () => {
        const next = await this.wait(Number.POSITIVE_INFINITY);
        if (next.type === "timeout") throw new Error("unreachable: an unbounded wait timed out");
        if (next.type !== "end") return { done: false, value: next };
        const failure = failureOf(next.end, this.deps.queueOption);
        if (failure !== undefined) throw failure;
        return { done: true, value: undefined };
      },
      return: async () => {
        await this.close();
        return { done: true, value: undefined };
      },
    };
  }

  private wait(timeoutMs: number): Promise<SubscriptionNext> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    if (this.end) return Promise.resolve({ type: "end", end: this.end });
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waiter: Waiter = (next) => {
        if (timer !== undefined) clearTimeout(timer);
        resolve(next);
      };
      this.waiters.add(waiter);
      if (Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => {
          this.waiters.delete(waiter);
          resolve({ type: "timeout" });
        }, timeoutMs);
      }
    });
  }

  private push(event: SubscriptionEvent): void {
    const [waiter] = this.waiters;
    if (waiter) {
      this.waiters.delete(waiter);
      waiter(event);
    } else if (this.queue.length >= this.deps.queueSize) {
      this.deps.logger.warn("a subscription fell too far behind and was closed", {
        id: this.id,
        queueSize: this.deps.queueSize,
      });
      this.finish({ reason: "queue_overflow", queueSize: this.deps.queueSize }, true);
    } else {
      this.queue.push(event);
    }
  }

  private cancelWithin(timeoutMs: number, end: SubscriptionEnd): Promise<SubscriptionCloseResult> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ confirmed: false, reason: "timeout", end }), timeoutMs);
      const done = (result: SubscriptionCloseResult) => {
        clearTimeout(timer);
        resolve(result);
      };
      Promise.resolve()
        .then(() => this.deps.cancel(this.live ? this.id : undefined))
        .then(
          () => done({ confirmed: true, end }),
          (error: unknown) => {
            const closed = error instanceof McpkitError && error.code === "CLOSED";
            done({ confirmed: false, reason: closed ? "transport_closed" : "send_failed", end, error });
          },
        );
    });
  }

  private drop(what: string, method: string): void {
    this.deps.logger.warn(`dropped ${what}`, { id: this.id, method });
  }
}

/** What `close()` reports for a subscription that had already ended without the owner cancelling it. */
function afterEnd(end: SubscriptionEnd): SubscriptionCloseResult {
  if (end.reason === "transport_closed" || end.reason === "client_closed") {
    return { confirmed: false, reason: "transport_closed", end };
  }
  return { confirmed: true, end };
}

/** The error a `for await` loop ends with, or undefined for the normal ends. */
function failureOf(end: SubscriptionEnd, queueOption: string): Error | undefined {
  switch (end.reason) {
    case "closed":
    case "completed":
    case "server_cancelled":
      return undefined;
    case "error":
    case "protocol":
      return end.error;
    case "queue_overflow":
      return limitError(
        "CAPACITY",
        "the subscription fell behind",
        { option: queueOption, limit: end.queueSize, size: end.queueSize + 1 },
        { unit: "events", extra: { end } },
      );
    case "transport_closed":
      return new McpkitError("CLOSED", closedMessage(end.error), { cause: end.error, details: { end } });
    case "client_closed":
      return new McpkitError("CLOSED", "the client was closed", { details: { end } });
  }
}

/** The channel's error already reads `the transport closed: <why>`; anything else is named after it. */
function closedMessage(error: unknown): string {
  if (!(error instanceof Error)) return "the transport closed";
  const message = error.message;
  return message.startsWith("the transport closed") ? message : `the transport closed: ${message}`;
}

/** A filter as received: only the known members with the right types; undefined when not an object. */
export function readFilter(value: unknown): SubscriptionFilter | undefined {
  if (!isObject(value)) return undefined;
  const filter: SubscriptionFilter = {};
  for (const key of ["toolsListChanged", "promptsListChanged", "resourcesListChanged"] as const) {
    if (value[key] === true) filter[key] = true;
  }
  const uris = value.resourceSubscriptions;
  if (Array.isArray(uris)) filter.resourceSubscriptions = uris.filter((uri) => typeof uri === "string");
  return filter;
}

const FLAG_OF: {
  readonly [method: string]: "toolsListChanged" | "promptsListChanged" | "resourcesListChanged";
} = {
  "notifications/tools/list_changed": "toolsListChanged",
  "notifications/prompts/list_changed": "promptsListChanged",
  "notifications/resources/list_changed": "resourcesListChanged",
};

/** True when both the requested and the honoured filter let `notification` through. */
function honours(
  requested: SubscriptionFilter,
  honored: SubscriptionFilter,
  notification: JsonRpcNotification,
): boolean {
  const flag = FLAG_OF[notification.method];
  if (flag !== undefined) return requested[flag] === true && honored[flag] === true;
  if (notification.method !== "notifications/resources/updated") return false;
  const uri = isObject(notification.params) ? notification.params.uri : undefined;
  if (typeof uri !== "string") return false;
  // The updated URI may be a sub-resource of a subscribed one.
  const covers = (subscribed: string) => uri === subscribed || uri.startsWith(subscribed);
  return (
    (requested.resourceSubscriptions ?? []).some(covers) && (honored.resourceSubscriptions ?? []).some(covers)
  );
}
