import { positiveInteger } from "../jsonrpc/config-check.js";
import { McpkitError } from "../jsonrpc/errors.js";
import { limitError } from "../jsonrpc/limit-error.js";
import { isObject, type JsonRpcNotification } from "../jsonrpc/message.js";
import { MetaKey } from "../protocol/meta.js";
import type { SubscriptionFilter } from "../protocol/types/subscriptions.js";
import { MODERN_VERSION } from "../protocol/versions.js";
import type { RpcChannel } from "./channel.js";
import { Deadline } from "./deadline.js";
import type { ClientConfig } from "./options.js";
import { modernNotificationMeta, paramsForEra } from "./request-params.js";
import { SubscriptionHandle } from "./subscription.js";
import type { ListenOptions, Subscription, SubscriptionEnd } from "./subscription-types.js";

const FILTER_FLAGS = ["toolsListChanged", "promptsListChanged", "resourcesListChanged"] as const;

/**
 * The client's open 2026-07-28 subscriptions: at most `maxSubscriptions`, each registered under its listen
 * request's id before the request is sent, fed the notifications that carry that id in
 * `_meta["io.modelcontextprotocol/subscriptionId"]`, and ended together when the client closes or the
 * transport is lost. Cancellation follows the transport: `notifications/cancelled` naming the listen id, or,
 * on a `cancelsByStream` transport, ending the listen's exchange (its send signal aborts) and sending nothing.
 */
export class Subscriptions {
  private readonly open = new Map<number, SubscriptionHandle>();

  constructor(
    private readonly channel: RpcChannel,
    private readonly config: ClientConfig,
  ) {}

  /** Subscriptions running now. */
  get size(): number {
    return this.open.size;
  }

  /** Opens one subscription; resolves once its listen request is on its way. */
  async listen(filter: SubscriptionFilter, options: ListenOptions = {}): Promise<Subscription> {
    checkFilter(filter);
    const queueSize = positiveInteger(options.queueSize, this.config.subscriptionQueueSize, "queueSize");
    if (this.open.size >= this.config.maxSubscriptions) {
      const facts = {
        option: "maxSubscriptions",
        limit: this.config.maxSubscriptions,
        size: this.open.size + 1,
      };
      throw limitError("CAPACITY", "too many subscriptions", facts, { unit: "subscriptions" });
    }
    // The listen is long-lived: no timeout; it ends with the server's result, a cancellation or the transport.
    const deadline = new Deadline({ timeoutMs: Number.POSITIVE_INFINITY, what: "subscriptions/listen" });
    const notifications = copyFilter(filter);
    let handle: SubscriptionHandle | undefined;
    const request = this.channel.request(
      "subscriptions/listen",
      paramsForEra(MODERN_VERSION, this.config, { notifications }, options.meta),
      {
        deadline,
        cancelOnAbort: false,
        onId: (id) => {
          const queueOption = options.queueSize === undefined ? "subscriptionQueueSize" : "queueSize";
          handle = this.register(id, notifications, { queueSize, queueOption }, deadline);
        },
      },
    );
    request.then(
      (result) => handle?.settled({ result }),
      (error: unknown) => handle?.settled({ error }),
    );
    if (handle === undefined) {
      deadline.dispose();
      await request;
      throw new McpkitError("CLOSED", "the listen request was not sent");
    }
    const opened = handle;
    const signal = options.signal;
    if (signal) {
      const onAbort = () => void opened.close();
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener("abort", onAbort, { once: true });
        void opened.ended.then(() => signal.removeEventListener("abort", onAbort));
      }
    }
    return opened;
  }

  /**
   * Takes a notification if it belongs to a subscription (its `_meta` names one, or it is the server's
   * `notifications/cancelled` of a listen). Returns false for everything else.
   */
  route(notification: JsonRpcNotification): boolean {
    const params = notification.params;
    const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
    if (meta !== undefined && MetaKey.subscriptionId in meta) {
      const id = meta[MetaKey.subscriptionId];
      const handle = typeof id === "number" ? this.open.get(id) : undefined;
      if (handle) handle.deliver(notification);
      else this.config.logger.debug?.("dropped a notification of no open subscription", { id });
      return true;
    }
    if (notification.method !== "notifications/cancelled" || !isObject(params)) return false;
    const handle = typeof params.requestId === "number" ? this.open.get(params.requestId) : undefined;
    handle?.deliver(notification);
    return handle !== undefined;
  }

  /** Ends every subscription with `end` (the client closed, or the transport was lost). */
  endAll(end: SubscriptionEnd): void {
    for (const handle of [...this.open.values()]) handle.finish(end);
  }

  private register(
    id: number,
    filter: SubscriptionFilter,
    queue: { queueSize: number; queueOption: string },
    deadline: Deadline,
  ): SubscriptionHandle {
    const byStream = this.config.transport.cancelsByStream === true;
    const handle = new SubscriptionHandle({
      id,
      filter,
      ...queue,
      nextTimeoutMs: this.config.requestTimeoutMs,
      logger: this.config.logger,
      abandon: () => {
        deadline.end(new McpkitError("ABORTED", "the subscription ended", { details: { id } }));
        deadline.dispose();
      },
      // On a stream-cancelling transport, abandoning the request (its send signal aborts) is the cancellation.
      cancel: () =>
        byStream
          ? Promise.resolve()
          : this.channel.notify("notifications/cancelled", {
              requestId: id,
              reason: "subscription closed",
              _meta: modernNotificationMeta(this.config),
            }),
      release: () => {
        this.open.delete(id);
      },
    });
    this.open.set(id, handle);
    return handle;
  }
}

/** Refuses a filter with unknown members or wrong types (`INVALID_CONFIG`). */
function checkFilter(filter: unknown): asserts filter is SubscriptionFilter {
  const bad = (problem: string) =>
    new McpkitError("INVALID_CONFIG", `subscription filter ${problem}`, { details: { key: "filter" } });
  if (!isObject(filter)) throw bad("must be an object");
  for (const [key, value] of Object.entries(filter)) {
    if ((FILTER_FLAGS as readonly string[]).includes(key)) {
      if (typeof value !== "boolean" && value !== undefined) throw bad(`${key} must be a boolean`);
    } else if (key === "resourceSubscriptions") {
      if (!Array.isArray(value) || !value.every((uri) => typeof uri === "string")) {
        throw bad("resourceSubscriptions must be an array of strings");
      }
    } else {
      throw bad(`has an unknown member "${key}"`);
    }
  }
}

/** The filter as sent: `false` and absent members left out, URIs in order (duplicates kept). */
function copyFilter(filter: SubscriptionFilter): SubscriptionFilter {
  const out: SubscriptionFilter = {};
  for (const flag of FILTER_FLAGS) if (filter[flag] === true) out[flag] = true;
  if (filter.resourceSubscriptions !== undefined)
    out.resourceSubscriptions = [...filter.resourceSubscriptions];
  return out;
}
