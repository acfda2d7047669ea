import { nonNegativeInteger, optionError } from "../../jsonrpc/config-check.js";
import type { McpkitError } from "../../jsonrpc/errors.js";
import { DEFAULT_LOG_INTERVAL_MS, limitLogger } from "../../jsonrpc/log-limiter.js";
import { isObject } from "../../jsonrpc/message.js";
import type { TransportLogger } from "../../transports/transport.js";

const consoleLogger: TransportLogger = {
  warn: (message, details) => console.warn(`[mcpkit/http] ${message}`, details ?? ""),
};

/**
 * The loggers of a Streamable HTTP client transport, rate-limited by `logIntervalMs` (default 60,000 ms, 0 logs
 * every line): its own `logger` option, when given, and the `console` fallback for when neither it nor the
 * client gave one. Throws `INVALID_CONFIG` for a bad logger or interval.
 */
export function transportLoggers(
  logger: unknown,
  logIntervalMs: unknown,
): { own: TransportLogger | undefined; fallback: TransportLogger } {
  if (logger !== undefined && (!isObject(logger) || typeof logger.warn !== "function")) {
    throw invalid("logger", "must have a warn(message, details) method");
  }
  const interval = nonNegativeInteger(logIntervalMs, DEFAULT_LOG_INTERVAL_MS, "logIntervalMs");
  return {
    own: logger === undefined ? undefined : limitLogger(logger as unknown as TransportLogger, interval),
    fallback: limitLogger(consoleLogger, interval),
  };
}

function invalid(key: string, problem: string): McpkitError {
  return optionError(key, problem);
}
