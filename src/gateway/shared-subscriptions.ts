import type { ClusterBus } from "../server/index.js";

/** The bus channel on which the instances of a scaled-out gateway tell each other what to subscribe upstream. */
export const SHARED_SUBSCRIPTIONS_CHANNEL = "gateway:resource-subscriptions";

const MAX_MESSAGE_CHARS = 8_192;
/** Subscriptions this instance shared and repeats for an instance that joins later (the oldest forgotten past it). */
const MAX_REMEMBERED = 4_096;

/**
 * Resource subscriptions shared by the instances of a gateway on one cluster bus. Each instance runs its own
 * stdio upstreams, so an update happens on the upstream of the instance that caused it; that upstream only
 * says so when it is subscribed. A downstream subscription made on one instance is therefore published, and
 * every instance subscribes its own upstream of that name to the URI (or remembers it until that upstream
 * starts); the update then comes back through the cluster's fan-out to whichever instance holds the subscriber.
 * An instance that joins later asks the others (`{"sync":true}`), and each repeats what it shared. Without a bus
 * it does nothing.
 */
export class SharedSubscriptions {
  private unsubscribe: (() => Promise<void>) | undefined;
  /** What this instance shared, as `upstream\u0000uri`, oldest first. */
  private readonly shared = new Set<string>();

  constructor(
    private readonly bus: ClusterBus | undefined,
    private readonly wanted: (upstream: string, uri: string) => void,
    private readonly warn: (message: string, details: { [key: string]: unknown }) => void,
  ) {}

  /** Joins the channel (once the server is ready); a bus that cannot be reached is logged, not fatal. */
  async start(): Promise<void> {
    if (this.bus === undefined || this.unsubscribe !== undefined) return;
    try {
      this.unsubscribe = await this.bus.subscribe(SHARED_SUBSCRIPTIONS_CHANNEL, (message) =>
        this.received(message),
      );
    } catch (error) {
      this.warn("could not join the gateway's shared resource subscriptions", { error });
      return;
    }
    this.publish({ sync: true }, "ask for the shared resource subscriptions");
  }

  /** Tells every instance (this one included) that `upstream`'s `uri` has a downstream subscriber. */
  share(upstream: string, uri: string): void {
    if (this.bus === undefined) return;
    const key = `${upstream}\u0000${uri}`;
    this.shared.delete(key);
    this.shared.add(key);
    if (this.shared.size > MAX_REMEMBERED) this.shared.delete(this.shared.values().next().value as string);
    this.publish({ upstream, uri }, "share a resource subscription");
  }

  private publish(message: object, what: string): void {
    this.bus
      ?.publish(SHARED_SUBSCRIPTIONS_CHANNEL, JSON.stringify(message))
      .catch((error: unknown) => this.warn(`could not ${what}`, { error }));
  }

  /** Leaves the channel. */
  async close(): Promise<void> {
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = undefined;
    await unsubscribe?.().catch(() => {});
  }

  private received(message: string): void {
    if (message.length > MAX_MESSAGE_CHARS) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    const { upstream, uri, sync } = (parsed ?? {}) as { upstream?: unknown; uri?: unknown; sync?: unknown };
    if (typeof upstream === "string" && typeof uri === "string") this.wanted(upstream, uri);
    else if (sync === true) {
      // Another instance joined (or this one, which then has nothing to repeat): it hears each one again.
      for (const key of this.shared) {
        const at = key.indexOf("\u0000");
        this.publish(
          { upstream: key.slice(0, at), uri: key.slice(at + 1) },
          "repeat a resource subscription",
        );
      }
    }
  }
}
