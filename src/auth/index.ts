/**
 * Authorization for MCP over HTTP (`mcpkit/auth`): an OAuth 2.1 client that plugs into
 * `StreamableHttpClientTransport` as its `authProvider`, and the resource-server helpers for
 * `createHttpHandler` (protected resource metadata, `requireBearer`, JWT and introspection verifiers), built on
 * `oauth4webapi`.
 */
export * from "./client/index.js";
export * from "./server/index.js";
