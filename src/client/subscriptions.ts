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
import { checkRelisten, isStreamLoss, type Relisten, relistenDelay } from "./relisten.js";
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
 * A listen whose stream is lost is sent again, same filter, after a backoff ({@link checkRelisten}).
 */
export class Subscriptions {
  /** The subscriptions by the id of their running listen request. */
  private readonly open = new Map<number, SubscriptionHandle>();
  /** Every subscription not ended: listening, or waiting to listen again. */
  private readonly all = new Set<SubscriptionHandle>();

  constructor(
    private readonly channel: RpcChannel,
    private readonly config: ClientConfig,
  ) {}

  /** Subscriptions running now. */
  get size(): number {
    return this.all.size;
  }

  /** Opens one subscription; resolves once its listen request is on its way. */
  async listen(filter: SubscriptionFilter, options: ListenOptions = {}): Promise<Subscription> {
    checkFilter(filter);
    const queueSize = positiveInteger(options.queueSize, this.config.subscriptionQueueSize, "queueSize");
    const relisten = checkRelisten(options.relisten);
    if (this.all.size >= this.config.maxSubscriptions) {
      const facts = {
        option: "maxSubscriptions",
        limit: this.config.maxSubscriptions,
        size: this.all.size + 1,
      };
      throw limitError("CAPACITY", "too many subscriptions", facts, { unit: "subscriptions" });
    }
    const listen = new Listen(copyFilter(filter), options.meta, relisten);
    const queueOption = options.queueSize === undefined ? "subscriptionQueueSize" : "queueSize";
    const handle = this.handleOf(listen, { queueSize, queueOption });
    listen.handle = handle;
    const request = this.send(listen);
    if (request !== undefined) {
      await request;
      throw new McpkitError("CLOSED", "the listen request was not sent");
    }
    this.all.add(handle);
    const signal = options.signal;
    if (signal) {
      const onAbort = () => void handle.close();
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener("abort", onAbort, { once: true });
        void handle.ended.then(() => signal.removeEventListener("abort", onAbort));
      }
    }
    return handle;
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
    for (const handle of [...this.all]) handle.finish(end);
  }

  /**
   * Sends the listen request of `listen` (its first or a new one), its id registered before it goes out.
   * Returns undefined once sent, else the request that failed at once (the channel is closed).
   */
  private send(listen: Listen): Promise<unknown> | undefined {
    // The listen is long-lived: no timeout; it ends with the server's result, a cancellation or the transport.
    const deadline = new Deadline({ timeoutMs: Number.POSITIVE_INFINITY, what: "subscriptions/listen" });
    const handle = listen.handle as SubscriptionHandle;
    let sent = false;
    const request = this.channel.request(
      "subscriptions/listen",
      paramsForEra(MODERN_VERSION, this.config, { notifications: listen.notifications }, listen.meta),
      {
        deadline,
        cancelOnAbort: false,
        onId: (id) => {
          sent = true;
          listen.deadline = deadline;
          handle.listening(id);
          this.open.set(id, handle);
        },
      },
    );
    if (!sent) {
      deadline.dispose();
      return request;
    }
    request.then(
      (result) => handle.settled({ result }),
      (error: unknown) => this.failed(listen, deadline, error),
    );
    return undefined;
  }

  /** The listen request of `listen` failed: a lost stream is listened to again (bounded), anything else ends it. */
  private failed(listen: Listen, deadline: Deadline, error: unknown): void {
    const handle = listen.handle as SubscriptionHandle;
    if (handle.end !== undefined || listen.deadline !== deadline) return;
    listen.deadline = undefined;
    this.open.delete(handle.id);
    const { relisten } = listen;
    if (
      relisten === undefined ||
      this.channel.isClosed ||
      !isStreamLoss(error) ||
      listen.failures >= relisten.maxAttempts
    ) {
      handle.settled({ error });
      return;
    }
    const attempt = ++listen.failures;
    const delayMs = relistenDelay(relisten, attempt);
    this.config.logger.warn("a subscription's listen stream was lost; listening again", {
      id: handle.id,
      attempt,
      maxAttempts: relisten.maxAttempts,
      delayMs,
      ...failureOf(error),
    });
    handle.interrupted(error, attempt, delayMs);
    if (handle.end !== undefined) return;
    const clock = this.config.clock;
    listen.timer = clock.setTimeout(() => {
      listen.timer = undefined;
      if (handle.end !== undefined) return;
      const refused = this.send(listen);
      if (refused !== undefined) {
        refused.catch((cause: unknown) => handle.settled({ error: cause }));
      }
    }, delayMs);
  }

  private handleOf(listen: Listen, queue: { queueSize: number; queueOption: string }): SubscriptionHandle {
    const byStream = this.config.transport.cancelsByStream === true;
    const clock = this.config.clock;
    return new SubscriptionHandle({
      filter: listen.notifications,
      ...queue,
      nextTimeoutMs: this.config.requestTimeoutMs,
      logger: this.config.logger,
      acknowledged: () => {
        listen.failures = 0;
      },
      abandon: () => {
        if (listen.timer !== undefined) clock.clearTimeout(listen.timer);
        listen.timer = undefined;
        const deadline = listen.deadline;
        listen.deadline = undefined;
        deadline?.end(
          new McpkitError("ABORTED", "the subscription ended", { details: { id: listen.handle?.id } }),
        );
        deadline?.dispose();
      },
      // On a stream-cancelling transport, abandoning the request (its send signal aborts) is the cancellation;
      // between two listens there is nothing to cancel.
      cancel: (id) =>
        byStream || id === undefined
          ? Promise.resolve()
          : this.channel.notify("notifications/cancelled", {
              requestId: id,
              reason: "subscription closed",
              _meta: modernNotificationMeta(this.config),
            }),
      release: () => {
        const handle = listen.handle as SubscriptionHandle;
        this.all.delete(handle);
        if (this.open.get(handle.id) === handle) this.open.delete(handle.id);
      },
    });
  }
}

/** One subscription's listening: its filter and options, and the listen request running now (if any). */
class Listen {
  handle: SubscriptionHandle | undefined;
  /** Lost listens in a row since the last acknowledgment. */
  failures = 0;
  /** The running listen request's deadline; undefined between two listens. */
  deadline: Deadline | undefined;
  /** The wait before the next listen. */
  timer: unknown;

  constructor(
    readonly notifications: SubscriptionFilter,
    readonly meta: { [key: string]: unknown } | undefined,
    readonly relisten: Relisten,
  ) {}
}

/** What a log line says about a lost stream: its code and stable reason, never a message that may quote secrets. */
function failureOf(error: unknown): { [key: string]: unknown } {
  if (!(error instanceof McpkitError)) return {};
  const reason = isObject(error.details) ? error.details.reason : undefined;
  return reason === undefined ? { code: error.code } : { code: error.code, reason };
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
