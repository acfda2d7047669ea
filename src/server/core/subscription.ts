import { utf8Length } from "../../jsonrpc/codec.js";
import type { JsonRpcMessage, JsonRpcNotification, RequestId } from "../../jsonrpc/message.js";
import type { SubscriptionFilter } from "../../protocol/types/subscriptions.js";
import { acknowledgement, completion, stamped } from "./listen.js";

/**
 * How a subscription ended: `complete` (the server ended it gracefully, after its `complete` result),
 * `overflow` (its queue filled up: the subscriber read too slowly), `cancelled` (the subscriber cancelled it,
 * or its channel went away).
 */
export type SubscriptionEnd = "complete" | "overflow" | "cancelled";

/** Where one subscription's messages go: a listen SSE stream, or a stdio / in-process connection. */
export interface SubscriptionChannel {
  /** Writes one message; resolves when the next may be written. A rejection ends the subscription. */
  write(message: JsonRpcMessage): Promise<void>;
  /** Called once, after the last write: the channel ends the subscription its own way. */
  end(reason: SubscriptionEnd): void;
}

/** Bounds of one subscription's queue. */
export interface QueueLimits {
  readonly events: number;
  readonly bytes: number;
}

interface Queued {
  readonly message: JsonRpcMessage;
  readonly bytes: number;
}

/**
 * One `subscriptions/listen` subscription: the honoured filter, and a bounded queue drained in order into its
 * channel, so publishing never waits for a slow subscriber. The acknowledgement is queued first. When more
 * than `events` messages or `bytes` bytes wait, the subscription overflows and ends (only this one).
 */
export class Subscription {
  /** Resolves once, with how the subscription ended. */
  readonly ended: Promise<SubscriptionEnd>;
  private queue: Queued[] = [];
  private queuedBytes = 0;
  private pumping = false;
  private state: "open" | "ending" | "ended" = "open";
  private resolveEnded!: (reason: SubscriptionEnd) => void;

  constructor(
    /** The id of the listen request, stamped on every message. */
    readonly id: RequestId,
    /** What this subscription receives. */
    readonly filter: SubscriptionFilter,
    private readonly channel: SubscriptionChannel,
    private readonly limits: QueueLimits,
    private readonly onEnd: (subscription: Subscription) => void,
  ) {
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
    this.enqueue(acknowledgement(id, filter), false);
  }

  /** True until the subscription ended or started ending. */
  get isOpen(): boolean {
    return this.state === "open";
  }

  /** Messages waiting for the channel. */
  get queued(): number {
    return this.queue.length;
  }

  /** Queues a notification, stamped with the subscription id; overflows past the limits. Never waits. */
  offer(notification: JsonRpcNotification): void {
    if (this.state !== "open") return;
    this.enqueue(stamped(notification, this.id), true);
  }

  /** Ends gracefully: what is queued is sent, then the `complete` result, then the channel ends. */
  complete(): void {
    if (this.state !== "open") return;
    this.state = "ending";
    this.enqueue(completion(this.id), false);
  }

  /** Ends now, sending nothing more (the subscriber cancelled, or the channel is gone). Idempotent. */
  cancel(): void {
    this.finish("cancelled");
  }

  private enqueue(message: JsonRpcMessage, bounded: boolean): void {
    const bytes = utf8Length(JSON.stringify(message));
    if (
      bounded &&
      (this.queue.length + 1 > this.limits.events || this.queuedBytes + bytes > this.limits.bytes)
    ) {
      this.finish("overflow");
      return;
    }
    this.queue.push({ message, bytes });
    this.queuedBytes += bytes;
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) {
        this.queuedBytes -= next.bytes;
        await this.channel.write(next.message);
        if (this.state === "ended") return;
      }
    } catch {
      this.finish("cancelled");
      return;
    } finally {
      this.pumping = false;
    }
    if (this.state === "ending") this.finish("complete");
  }

  private finish(reason: SubscriptionEnd): void {
    if (this.state === "ended") return;
    this.state = "ended";
    this.queue = [];
    this.queuedBytes = 0;
    this.onEnd(this);
    this.channel.end(reason);
    this.resolveEnded(reason);
  }
}
