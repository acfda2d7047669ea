import type { Broadcast, PluginHost, ServerPlugin } from "../core/plugin.js";
import type { RequestStateStore } from "../state/store.js";
import type { Cluster } from "./cluster.js";
import { ClusterFanout } from "./fanout.js";
import { sharedRequestStateStore } from "./shared-state-store.js";

/**
 * The plugin of a server whose instances share a {@link Cluster}: broadcasts (list changed, resource updated,
 * custom session notifications) go to the other instances through the bus and theirs come here, and
 * `singleUseState: true` spends nonces in the shared store.
 */
export class ClusterPlugin implements ServerPlugin {
  readonly name = "cluster";
  readonly stateStore: RequestStateStore;
  private fanout: ClusterFanout | undefined;

  constructor(readonly cluster: Cluster) {
    this.stateStore = sharedRequestStateStore(cluster.store);
  }

  setup(host: PluginHost): void {
    this.fanout = new ClusterFanout(this.cluster.bus, (message) => void host.deliver(message), host.logger);
  }

  /** Tells the other instances; rejects with `McpkitError` `UNAVAILABLE` when the bus cannot be reached. */
  async broadcast(message: Broadcast): Promise<void> {
    await this.fanout?.publish(message);
  }

  /** Resolves once this instance receives what the others publish. */
  ready(): Promise<void> {
    return this.fanout?.joined ?? Promise.resolve();
  }

  async close(): Promise<void> {
    await this.fanout?.close();
  }
}

/** The cluster a server's plugins share, if it has one. */
export function clusterOfPlugins(plugins: readonly ServerPlugin[]): Cluster | undefined {
  for (const plugin of plugins) if (plugin instanceof ClusterPlugin) return plugin.cluster;
  return undefined;
}
