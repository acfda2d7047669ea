import type { JsonRpcNotification } from "../../jsonrpc/message.js";
import { RequestStateSealer } from "../state/request-state.js";
import { CallbackExecutor } from "./executor.js";
import type { ServerConfig } from "./options.js";
import { SubscriptionPublisher } from "./publisher.js";

/** A 2025-11-25 session, as the server's broadcasts reach it. */
export interface SessionTarget {
  /** Sends a session-wide notification (list changed, custom) once the session is ready. */
  notifySession(notification: JsonRpcNotification): Promise<void>;
  /** Sends `notifications/resources/updated` if the session subscribed to `uri`. */
  notifyResourceUpdated(uri: string): Promise<void>;
}

/**
 * What every transport of one server shares: the frozen configuration, the handler executor (deadline and
 * admission limit), the `requestState` sealer, the 2026-07-28 subscriptions, and the open 2025-11-25 sessions
 * (for session-wide notifications).
 */
export interface ServerRuntime {
  readonly config: ServerConfig;
  readonly executor: CallbackExecutor;
  readonly sealer: RequestStateSealer;
  readonly publisher: SubscriptionPublisher;
  /** Every initialized 2025-11-25 session, whatever carries it (a connection, an HTTP session). */
  readonly sessions: Set<SessionTarget>;
}

/** The shared runtime of a server built from `config`. */
export function createRuntime(config: ServerConfig): ServerRuntime {
  const { limits } = config;
  return {
    config,
    executor: new CallbackExecutor({
      timeoutMs: config.handlerTimeoutMs,
      maxConcurrent: config.maxConcurrentHandlers,
      maxQueued: config.maxQueuedHandlers,
    }),
    sealer: new RequestStateSealer(
      config.stateKey,
      limits.requestStateTtlMs,
      Date.now,
      config.stateStore,
      config.previousStateKeys,
    ),
    publisher: new SubscriptionPublisher(limits.maxSubscriptions, {
      events: limits.subscriptionQueueEvents,
      bytes: limits.subscriptionQueueBytes,
    }),
    sessions: new Set(),
  };
}
