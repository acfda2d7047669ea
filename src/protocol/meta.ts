/** Reserved `_meta` keys of the 2026-07-28 revision. */
export const MetaKey = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** W3C trace context keys that `_meta` may carry; mcpkit passes them through unchanged. */
export const TRACE_META_KEYS = ["traceparent", "tracestate", "baggage"] as const;
