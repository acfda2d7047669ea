import { McpkitError } from "../jsonrpc/errors.js";
import { isObject } from "../jsonrpc/message.js";
import { type Cluster, isCluster } from "./cluster/cluster.js";
import { ClusterPlugin } from "./cluster/plugin.js";
import { buildServerConfig, type EngineOptions, type ServerConfig } from "./core/options.js";
import type { ServerPlugin } from "./core/plugin.js";
import { type TasksOptions, taskSettings } from "./tasks/options.js";
import { tasksPlugin } from "./tasks/plugin.js";

/**
 * Options of {@link createServer}.
 *
 * @example
 * const server = createServer({ serverInfo: { name: "demo", version: "1.0.0" }, handler });
 */
export interface ServerOptions extends EngineOptions {
  /**
   * What the instances of this server share (see {@link Cluster}; default none: everything stays in this
   * process). With it, list-changed, resource-updated and custom session notifications reach the subscribers
   * of every instance, `singleUseState: true` spends nonces in the shared store, and the HTTP handler shares
   * its 2025-11-25 session directory. Give every instance the same `stateKey` too.
   */
  cluster?: Cluster;
  /**
   * Tasks (docs/tasks.md): `true` or {@link TasksOptions}. Tools may then answer `runAsTask(work)`: 2026-07-28
   * serves the `io.modelcontextprotocol/tasks` extension, 2025-11-25 `tasks/get`, `tasks/result`, `tasks/list`,
   * `tasks/cancel` and `capabilities.tasks`. Default: off (a `runAsTask` answer then runs inline).
   */
  tasks?: boolean | TasksOptions;
}

/**
 * Checks server options and freezes them into a {@link ServerConfig}: the engine's own options, and the
 * features that join it as plugins (the cluster, tasks) ahead of the options' own `plugins`. Throws
 * `INVALID_CONFIG` naming the fault.
 */
export function serverConfig(options: ServerOptions): ServerConfig {
  if (!isObject(options)) return buildServerConfig(options);
  const { cluster, tasks, ...engine } = options;
  return buildServerConfig(engine, (logger, policy) => {
    if (cluster !== undefined && !isCluster(cluster)) {
      throw new McpkitError(
        "INVALID_CONFIG",
        "server option cluster must have a bus (publish, subscribe) and a store (get, set, add, take, delete)",
        { details: { key: "cluster" } },
      );
    }
    const features: ServerPlugin[] = [];
    if (cluster !== undefined) features.push(new ClusterPlugin(cluster));
    features.push(tasksPlugin(taskSettings(tasks, cluster), { logger, policy }, cluster?.bus));
    return features;
  });
}
