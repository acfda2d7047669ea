/**
 * Authorization for MCP over HTTP (`mcpkit/auth`): an OAuth 2.1 client that plugs into
 * `StreamableHttpClientTransport` as its `authProvider`, built on `oauth4webapi`.
 */
export * from "./client/index.js";
