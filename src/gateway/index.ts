/**
 * `mcpkit/gateway` (Node only): many MCP servers behind one mcpkit server, each upstream in its own era, with
 * namespacing, policy, health and the era bridge for requests for input.
 */

export type { AccessRule } from "./access.js";
export {
  type GatewayConfig,
  type GatewayRedis,
  parseGatewayConfig,
  type UpstreamConfig,
  type UpstreamPolicy,
  type UpstreamTarget,
} from "./config.js";
export { createGateway, type GatewayOptions, type GatewayPlugin, type UpstreamStatus } from "./gateway.js";
export { globMatcher } from "./glob.js";
export type { GatewayAuth, UpstreamOAuth } from "./oauth-config.js";
