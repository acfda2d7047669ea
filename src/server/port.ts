import type { Cluster } from "./cluster/cluster.js";
import { clusterOfPlugins } from "./cluster/plugin.js";
import type { Server } from "./server.js";

/** The cluster a server's instances share (its `cluster` option), if any. */
export function clusterOf(server: Server): Cluster | undefined {
  return clusterOfPlugins(server.config.hooks.plugins);
}
