import type { Client } from "../client/index.js";
import { MODERN_VERSION } from "../protocol/versions.js";

/** Resource URIs one upstream is subscribed to on the gateway's behalf, at most (the oldest released past it). */
export const MAX_UPSTREAM_SUBSCRIPTIONS = 256;

/**
 * The resource subscriptions the gateway holds on one upstream, in the upstream's era: `resources/subscribe` for
 * a 2025-11-25 one, a `subscriptions/listen` per URI for a 2026-07-28 one (whose updates it reads itself). A URI
 * is subscribed once whatever the number of downstream subscribers, kept until the gateway closes (or past
 * {@link MAX_UPSTREAM_SUBSCRIPTIONS}, released oldest first), and subscribed again when the upstream restarts.
 */
export class ResourceSubscriptions {
  private readonly held = new Map<string, (() => Promise<unknown>) | undefined>();

  constructor(private readonly updated: (uri: string) => void) {}

  /** URIs held now. */
  get size(): number {
    return this.held.size;
  }

  /** Subscribes to `uri` on `client` unless already held. */
  async add(client: Client, uri: string): Promise<void> {
    if (this.held.has(uri)) return;
    await this.makeRoom();
    this.held.set(uri, undefined);
    try {
      this.held.set(uri, await this.open(client, uri));
    } catch (error) {
      this.held.delete(uri);
      throw error;
    }
  }

  /** Holds `uri` without subscribing it now: the next {@link renew} (the upstream's start) subscribes it. */
  async remember(uri: string): Promise<void> {
    if (this.held.has(uri)) return;
    await this.makeRoom();
    this.held.set(uri, undefined);
  }

  /** After a restart: subscribes every held URI again on the new client (failures dropped). */
  async renew(client: Client): Promise<void> {
    const uris = [...this.held.keys()];
    this.held.clear();
    await Promise.allSettled(uris.map((uri) => this.add(client, uri)));
  }

  /** Releases everything (the gateway is closing; the client goes with it). */
  clear(): void {
    this.held.clear();
  }

  private async makeRoom(): Promise<void> {
    if (this.held.size < MAX_UPSTREAM_SUBSCRIPTIONS) return;
    const [oldest, release] = this.held.entries().next().value as [
      string,
      (() => Promise<unknown>) | undefined,
    ];
    this.held.delete(oldest);
    await release?.().catch(() => {});
  }

  private async open(client: Client, uri: string): Promise<() => Promise<unknown>> {
    if (client.era !== MODERN_VERSION) {
      await client.subscribeResource(uri);
      return () => client.unsubscribeResource(uri);
    }
    const subscription = await client.listenSubscriptions({ resourceSubscriptions: [uri] });
    void (async () => {
      for await (const event of subscription) {
        if (event.type !== "notification") continue;
        const updated = (event.notification.params as { uri?: unknown } | undefined)?.uri;
        if (typeof updated === "string") this.updated(updated);
      }
    })().catch(() => {});
    return () => subscription.close();
  }
}
