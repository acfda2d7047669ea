import { context, isSpanContextValid, type SpanContext, trace } from "@opentelemetry/api";
import type { ServerLogger } from "../server/index.js";

/** Errors a handler threw, to the span of the request it served (set by the plugin's handler wrapper). */
const FAILED_IN = new WeakMap<object, SpanContext>();

/** Records that `error` was thrown by a handler serving the span `span` (objects only). */
export function failedIn(error: unknown, span: SpanContext): void {
  if (error !== null && (typeof error === "object" || typeof error === "function"))
    FAILED_IN.set(error, span);
}

/**
 * A server logger that says which request a line is about: when it is written inside a request's span (a
 * handler's own logging) or about an error a handler threw (the server's "request handler failed"), its details
 * get `trace_id` and `span_id` (an object's keys are kept beside them; anything else comes as `details`).
 * Otherwise the line passes as it is.
 *
 * @example
 * import { otelLogger, otelServerPlugin } from "mcpkit/otel";
 * createServer({ serverInfo, handler, logger: otelLogger(console), plugins: [otelServerPlugin()] });
 */
export function otelLogger(logger: ServerLogger): ServerLogger {
  const traced: ServerLogger = {
    warn: (message, details) => logger.warn(message, withIds(details)),
    error: (message, details) => logger.error(message, withIds(details)),
  };
  const debug = logger.debug;
  if (typeof debug === "function")
    traced.debug = (message, details) => debug.call(logger, message, withIds(details));
  return traced;
}

function withIds(details: unknown): unknown {
  const isObject = details !== null && typeof details === "object";
  const span =
    (isObject ? FAILED_IN.get(details as object) : undefined) ?? trace.getSpanContext(context.active());
  if (span === undefined || !isSpanContextValid(span)) return details;
  const ids = { trace_id: span.traceId, span_id: span.spanId };
  if (details === undefined) return ids;
  if (isObject && !Array.isArray(details) && !(details instanceof Error)) return { ...details, ...ids };
  return { details, ...ids };
}
