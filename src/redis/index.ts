/**
 * Redis (or Valkey) for servers that run as several instances: the cluster bus and shared store of
 * `mcpkit/server`'s `cluster` option, on the `redis` client (a peer dependency). Node only.
 */

export { createRedisCluster, type RedisCluster, type RedisClusterOptions } from "./cluster.js";
