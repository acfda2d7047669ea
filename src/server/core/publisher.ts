import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import { limitDetails, limitMessage } from "../../jsonrpc/limit-error.js";
import type { JsonRpcNotification, RequestId } from "../../jsonrpc/message.js";
import type { SubscriptionFilter } from "../../protocol/types/subscriptions.js";
import { type QueueLimits, Subscription, type SubscriptionChannel } from "./subscription.js";

/** How long a graceful end waits for subscribers to take their `complete` result. */
export const COMPLETE_GRACE_MS = 5_000;

/**
 * How the message of the error a `subscriptions/listen` gets when every subscription slot is taken begins (the
 * rest names the count, `maxSubscriptions` and its value; `data.reason` is `subscription_limit`).
 */
export const SUBSCRIPTION_CAPACITY_MESSAGE = "Subscription capacity reached";

/**
 * The 2026-07-28 subscriptions of one server, across every transport: opens them (at most `maxSubscriptions`
 * at once), and publishes each notification to the subscriptions whose honoured filter takes it, stamped with
 * their id, without waiting for any of them.
 */
export class SubscriptionPublisher {
  private readonly open = new Set<Subscription>();

  constructor(
    private readonly maxSubscriptions: number,
    private readonly queue: QueueLimits,
  ) {}

  /** Subscriptions open now. */
  get size(): number {
    return this.open.size;
  }

  /** True when one more subscription would pass the limit. */
  get full(): boolean {
    return this.open.size >= this.maxSubscriptions;
  }

  /**
   * Opens a subscription whose acknowledgement is queued at once. Throws `-32603` "Subscription capacity
   * reached: ..., over maxSubscriptions (N)" (`data`: `option`, `limit`, `size`, `reason` `subscription_limit`)
   * when `maxSubscriptions` are open.
   */
  subscribe(id: RequestId, honoured: SubscriptionFilter, channel: SubscriptionChannel): Subscription {
    this.checkCapacity();
    const subscription = new Subscription(id, honoured, channel, this.queue, (ended) =>
      this.open.delete(ended),
    );
    // The acknowledgement may already have failed and ended it.
    if (subscription.isOpen) this.open.add(subscription);
    return subscription;
  }

  /** Throws the capacity error of {@link subscribe} when every slot is taken. */
  checkCapacity(): void {
    if (this.full) {
      const facts = { option: "maxSubscriptions", limit: this.maxSubscriptions, size: this.open.size + 1 };
      throw new JsonRpcError(
        ErrorCode.InternalError,
        limitMessage(SUBSCRIPTION_CAPACITY_MESSAGE, facts, "subscriptions"),
        limitDetails(facts, { reason: "subscription_limit" }),
      );
    }
  }

  /** Queues `notification` on every open subscription whose filter `wants` it. */
  publish(notification: JsonRpcNotification, wants: (filter: SubscriptionFilter) => boolean): void {
    for (const subscription of [...this.open]) {
      if (wants(subscription.filter)) subscription.offer(notification);
    }
  }

  /**
   * Ends every subscription gracefully (each gets its `complete` result); resolves once they all ended, or after
   * `graceMs` (a subscriber that stopped reading cannot hold a shutdown forever).
   */
  completeAll(graceMs = COMPLETE_GRACE_MS): Promise<void> {
    return completeWithin([...this.open], graceMs);
  }
}

/** Completes `subscriptions` and waits for their ends, at most `graceMs`. */
export async function completeWithin(subscriptions: readonly Subscription[], graceMs: number): Promise<void> {
  if (subscriptions.length === 0) return;
  for (const subscription of subscriptions) subscription.complete();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
  });
  await Promise.race([Promise.all(subscriptions.map((s) => s.ended)), grace]);
  clearTimeout(timer);
}
