import { isObject } from "../../jsonrpc/message.js";
import type { ServerLogger } from "../core/options.js";
import type { Broadcast } from "../core/plugin.js";
import { BusSubscription } from "./bus-subscription.js";
import { type ClusterBus, clusterUnavailable, instanceId } from "./cluster.js";

/** The bus channel of a server's notifications, shared by its instances. */
export const NOTIFY_CHANNEL = "mcp:notify";

/** What one instance tells the others: a list changed, a resource was updated, a custom session notification. */
export type FannedOut = Broadcast;

/**
 * One server instance on the cluster bus: publishes what {@link FannedOut} happens here, and delivers what
 * the other instances publish (its own messages come back from the bus and are skipped: they were delivered
 * here already). A subscription that fails (the bus is down at start) is retried with a backoff up to 5 s.
 */
export class ClusterFanout {
  private readonly id = instanceId();
  private readonly subscription: BusSubscription;
  /** Resolves once this instance receives what the others publish. */
  readonly joined: Promise<void>;

  constructor(
    private readonly bus: ClusterBus,
    private readonly deliver: (message: FannedOut) => void,
    private readonly logger: ServerLogger,
  ) {
    this.subscription = new BusSubscription(bus, NOTIFY_CHANNEL, (raw) => this.receive(raw), logger);
    this.joined = this.subscription.joined;
  }

  /** Tells the other instances; rejects with `McpkitError` `UNAVAILABLE` when the bus cannot be reached. */
  async publish(message: FannedOut): Promise<void> {
    try {
      await this.bus.publish(NOTIFY_CHANNEL, JSON.stringify({ ...message, origin: this.id }));
    } catch (error) {
      throw clusterUnavailable("publishing a notification to the other instances", error);
    }
  }

  /** Leaves the bus. */
  async close(): Promise<void> {
    await this.subscription.close();
  }

  private receive(raw: string): void {
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      message = undefined;
    }
    if (!isObject(message) || message.origin === this.id) return;
    const valid =
      (message.kind === "list" && ["tools", "resources", "prompts"].includes(message.family as string)) ||
      (message.kind === "resource" && typeof message.uri === "string") ||
      (message.kind === "custom" &&
        isObject(message.notification) &&
        typeof message.notification.method === "string");
    if (!valid) {
      this.logger.warn("dropped a malformed cluster notification", { kind: message.kind });
      return;
    }
    this.deliver(message as unknown as FannedOut);
  }
}
