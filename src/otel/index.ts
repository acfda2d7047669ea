/**
 * OpenTelemetry traces and metrics for mcpkit's server and client, on the MCP semantic conventions
 * (`@opentelemetry/api` is an optional peer dependency, imported by this entry only).
 */

export { otelClientTransport } from "./client.js";
export { otelLogger } from "./logger.js";
export type { OtelOptions, Propagator } from "./options.js";
export { ATTR, DURATION_BUCKETS, TOOL_ERROR } from "./semconv.js";
export { OTEL_PLUGIN, otelServerPlugin } from "./server.js";
