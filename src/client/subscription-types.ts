import type { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import type { RequestId } from "../jsonrpc/message.js";
import type { SubscriptionFilter } from "../protocol/types/subscriptions.js";
import type { RelistenPolicy } from "./relisten.js";
import type { ServerNotification } from "./types.js";

/**
 * What a subscription delivers, in order: the acknowledgment first, then the notifications it honours. When
 * its listen stream is lost while the client runs (an HTTP stream that broke or ended, a server that
 * restarted, `streamIdleTimeoutMs` passed), an `interrupted` event says so and the client listens again by
 * itself with the same filter (`ListenOptions.relisten`); the new listen's `acknowledged` event follows. What
 * the server published in between is missed: refetch what you track when it is acknowledged again.
 */
export type SubscriptionEvent =
  | {
      type: "acknowledged";
      /** The part of the requested filter the server honours. */
      notifications: SubscriptionFilter;
    }
  | {
      type: "notification";
      /** A list-changed or `notifications/resources/updated` notification, as received. */
      notification: ServerNotification;
    }
  | {
      type: "interrupted";
      /** Why the listen ended (an `McpkitError`, `TIMEOUT` or `TRANSPORT`). */
      error: unknown;
      /** Lost listens in a row, this one included (at most `relisten.maxAttempts`). */
      attempt: number;
      /** The wait before the next listen, in milliseconds. */
      delayMs: number;
    };

/**
 * Why a subscription ended:
 * - `closed`: its owner closed it (`close()`, a loop that broke out, the `signal` option);
 * - `completed`: the server ended it gracefully with a `complete` result (`result`);
 * - `server_cancelled`: the server ended it with `notifications/cancelled` (stdio);
 * - `error`: the server answered the listen request with a JSON-RPC error (`error`);
 * - `queue_overflow`: its consumer fell `queueSize` events behind, so it was closed (the events already queued
 *   are still delivered);
 * - `protocol`: the server broke the protocol (an invalid result);
 * - `transport_closed`: the connection was lost (`error`), or the listen stream was lost more than
 *   `relisten.maxAttempts` times in a row (with `relisten: false`, once), or the server refused a new listen;
 * - `client_closed`: the client was closed.
 */
export type SubscriptionEnd =
  | { reason: "closed" }
  | { reason: "completed"; result: { [key: string]: unknown } }
  | { reason: "server_cancelled" }
  | { reason: "error"; error: JsonRpcError }
  | { reason: "queue_overflow"; queueSize: number }
  | { reason: "protocol"; error: McpkitError }
  | { reason: "transport_closed"; error: unknown }
  | { reason: "client_closed" };

/** What `next()` resolves with: an event, a timeout (nothing arrived in time), or the end once drained. */
export type SubscriptionNext =
  | SubscriptionEvent
  | { type: "timeout" }
  | { type: "end"; end: SubscriptionEnd };

/**
 * How `close()` went. `confirmed: true`: the cancellation was handed to the transport (stdio and in-process:
 * `notifications/cancelled` was sent; a `cancelsByStream` transport was told to end the listen stream), or the
 * subscription had already ended on the server's side, so there was nothing to cancel. `confirmed: false`:
 * the cancellation could not be delivered within the timeout (`timeout`) or at all (`send_failed`,
 * `transport_closed`); the subscription is closed locally all the same, but the server may not know.
 */
export type SubscriptionCloseResult =
  | { confirmed: true; end: SubscriptionEnd }
  | {
      confirmed: false;
      reason: "timeout" | "send_failed" | "transport_closed";
      end: SubscriptionEnd;
      error?: unknown;
    };

/** Options of `listenSubscriptions()`. */
export interface ListenOptions {
  /** Events held for a slow consumer before the subscription is closed with `queue_overflow` (default 256). */
  queueSize?: number;
  /** Aborting it closes the subscription. */
  signal?: AbortSignal;
  /** Extra `_meta` keys of the listen request. */
  meta?: { [key: string]: unknown };
  /**
   * Listening again when the listen stream is lost (default on: after about 500 ms, doubling up to 30 s with
   * jitter, at most 10 times in a row; an acknowledged listen starts the count over). Each time an
   * `interrupted` event is delivered and a warning logged. `false`: the subscription ends with
   * `transport_closed` instead. Never after the subscription or the client is closed.
   */
  relisten?: boolean | RelistenPolicy;
}

/**
 * One `subscriptions/listen` (2026-07-28). Iterate it (`for await`) or poll it with `next(timeoutMs)`; the
 * acknowledgment is always the first event. Leaving a `for await` loop early closes the subscription; a loop
 * ends normally when the subscription is closed by its owner or completed by the server, and throws
 * (`McpkitError` `CLOSED`, `CAPACITY` or `PROTOCOL`, or the server's `JsonRpcError`) on any other end.
 *
 * @example
 * const sub = await client.listenSubscriptions({ toolsListChanged: true, resourceSubscriptions: ["file:///a"] });
 * for await (const event of sub) {
 *   if (event.type === "notification") refresh(event.notification);
 * }
 */
export interface Subscription extends AsyncIterable<SubscriptionEvent> {
  /**
   * The JSON-RPC id of the listen request running now (or last): the `io.modelcontextprotocol/subscriptionId`
   * of its messages. A new listen after an `interrupted` event has a new id.
   */
  readonly id: RequestId;
  /** The filter that was requested. */
  readonly filter: SubscriptionFilter;
  /** The filter the server honours, once acknowledged. */
  readonly honored: SubscriptionFilter | undefined;
  /** Why it ended; undefined while it runs. */
  readonly end: SubscriptionEnd | undefined;
  /** Resolves when it ends (never rejects). */
  readonly ended: Promise<SubscriptionEnd>;
  /**
   * The next event, waiting at most `timeoutMs` (default: the client's `requestTimeoutMs`) for it. After the
   * end, once the queue is drained, resolves `{ type: "end" }` at once.
   */
  next(timeoutMs?: number): Promise<SubscriptionNext>;
  /**
   * Closes the subscription and cancels it on the wire, waiting at most `timeoutMs` (default 5,000) for the
   * cancellation to be handed over. Idempotent: every call resolves with the same result. Never rejects.
   */
  close(timeoutMs?: number): Promise<SubscriptionCloseResult>;
}
