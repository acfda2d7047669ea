import type { ServerLogger } from "../core/options.js";
import type { ClusterBus } from "./cluster.js";

const FIRST_RETRY_MS = 250;
const RETRY_MAX_MS = 5_000;

/**
 * A subscription to one cluster bus channel that holds by itself: when subscribing fails (the bus is down at
 * start) it is retried with a backoff from 250 ms doubling up to 5 s, until it holds or is closed.
 */
export class BusSubscription {
  private unsubscribe: (() => Promise<void>) | undefined;
  private closed = false;
  private resolveJoined!: () => void;
  /** Resolves once messages on the channel reach `receive`. */
  readonly joined = new Promise<void>((resolve) => {
    this.resolveJoined = resolve;
  });

  constructor(
    private readonly bus: ClusterBus,
    private readonly channel: string,
    private readonly receive: (raw: string) => void,
    private readonly logger: ServerLogger,
  ) {
    void this.join(FIRST_RETRY_MS);
  }

  /** Leaves the channel (a retry still pending never subscribes). */
  async close(): Promise<void> {
    this.closed = true;
    await this.unsubscribe?.().catch(() => {});
  }

  private async join(retryMs: number): Promise<void> {
    if (this.closed) return;
    try {
      this.unsubscribe = await this.bus.subscribe(this.channel, this.receive);
      if (this.closed) await this.unsubscribe();
      this.resolveJoined();
    } catch (error) {
      this.logger.warn("could not subscribe to the cluster bus; retrying", { error: String(error) });
      const timer = setTimeout(() => void this.join(Math.min(retryMs * 2, RETRY_MAX_MS)), retryMs);
      (timer as { unref?: () => void }).unref?.();
    }
  }
}
