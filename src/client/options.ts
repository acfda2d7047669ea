import { type Clock, isClock } from "../jsonrpc/clock.js";
import { checkKeys, nonNegativeInteger, positiveInteger } from "../jsonrpc/config-check.js";
import { McpkitError } from "../jsonrpc/errors.js";
import { DEFAULT_LOG_INTERVAL_MS, limitLogger } from "../jsonrpc/log-limiter.js";
import { isObject } from "../jsonrpc/message.js";
import { DEFAULT_MAX_PENDING } from "../jsonrpc/pending.js";
import type { ClientCapabilities } from "../protocol/types/capabilities.js";
import type { Implementation, LoggingLevel } from "../protocol/types/common.js";
import { LOGGING_LEVELS } from "../protocol/types/common.js";
import type { JsonSchemaValidatorFactory } from "../protocol/validation.js";
import { type Era, isEra } from "../protocol/versions.js";
import type { Transport } from "../transports/transport.js";
import { DEFAULT_CALLBACK_TIMEOUT_MS, DEFAULT_MAX_CONCURRENT_CALLBACKS } from "./callbacks.js";
import {
  checkCallbackMap,
  checkClientExtensions,
  type ServerNotificationCallback,
  type ServerRequestCallback,
} from "./custom.js";
import { DEFAULT_MAX_INPUT_ROUNDS } from "./input-required.js";
import type { InputCallbacks, InputOptions } from "./input-types.js";
import {
  DEFAULT_MAX_CONCURRENT_NOTIFICATION_CALLBACKS,
  DEFAULT_MAX_QUEUED_NOTIFICATIONS,
} from "./notification-runner.js";
import type { ClientLogger, ClientOptions } from "./types.js";

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_SUBSCRIPTIONS = 64;
export const DEFAULT_SUBSCRIPTION_QUEUE_SIZE = 256;

/** The checked, defaulted form of {@link ClientOptions}. */
export interface ClientConfig {
  transport: Transport;
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  protocolVersion: Era | undefined;
  versionFallback: "strict" | "lenient";
  acceptOlderVersions: boolean;
  requestTimeoutMs: number;
  connectTimeoutMs: number;
  maxPendingRequests: number;
  logLevel: LoggingLevel | undefined;
  onNotification: ClientOptions["onNotification"];
  onLog: ClientOptions["onLog"];
  onProgress: ClientOptions["onProgress"];
  onTransportError: ClientOptions["onTransportError"];
  logger: ClientLogger;
  input: InputCallbacks;
  maxInputRounds: number;
  callbackTimeoutMs: number;
  maxConcurrentCallbacks: number;
  maxConcurrentNotificationCallbacks: number;
  maxQueuedNotifications: number;
  maxSubscriptions: number;
  subscriptionQueueSize: number;
  validateStructuredContent: boolean;
  jsonSchemaValidator: JsonSchemaValidatorFactory | undefined;
  requestHandlers: { readonly [method: string]: ServerRequestCallback };
  notificationHandlers: { readonly [method: string]: ServerNotificationCallback };
  clock: Clock;
}

const KNOWN_KEYS: ReadonlySet<string> = new Set([
  "transport",
  "clientInfo",
  "capabilities",
  "protocolVersion",
  "versionFallback",
  "acceptOlderVersions",
  "requestTimeoutMs",
  "connectTimeoutMs",
  "maxPendingRequests",
  "logLevel",
  "onNotification",
  "onLog",
  "onProgress",
  "onTransportError",
  "logger",
  "logIntervalMs",
  "onInputRequired",
  "onSampling",
  "onElicitation",
  "onRoots",
  "maxInputRounds",
  "callbackTimeoutMs",
  "maxConcurrentCallbacks",
  "maxConcurrentNotificationCallbacks",
  "maxQueuedNotifications",
  "maxSubscriptions",
  "subscriptionQueueSize",
  "validateStructuredContent",
  "jsonSchemaValidator",
  "requestHandlers",
  "notificationHandlers",
  "clock",
]);

const INPUT_HANDLERS = ["onSampling", "onElicitation", "onRoots"] as const;

const consoleLogger: ClientLogger = {
  warn: (message, details) => console.warn(`[mcpkit/client] ${message}`, details ?? ""),
};

/** Checks `new Client(...)` options. Throws `McpkitError` `INVALID_CONFIG` naming the first bad key. */
export function resolveClientOptions(options: unknown): ClientConfig {
  if (!isObject(options)) throw invalid("options", "must be an object");
  checkKeys(options, KNOWN_KEYS);
  const transport = options.transport;
  if (
    !isObject(transport) ||
    typeof transport.start !== "function" ||
    typeof transport.send !== "function" ||
    typeof transport.close !== "function"
  ) {
    throw invalid("transport", "must be a Transport (start, send, close)");
  }
  const info = options.clientInfo;
  if (!isObject(info) || typeof info.name !== "string" || typeof info.version !== "string") {
    throw invalid("clientInfo", "must be an object with string name and version");
  }
  const capabilities = options.capabilities ?? {};
  if (!isObject(capabilities)) throw invalid("capabilities", "must be an object");
  checkClientExtensions(capabilities.extensions);
  const version = options.protocolVersion;
  if (version !== undefined && !isEra(version)) {
    throw invalid("protocolVersion", 'must be "2026-07-28" or "2025-11-25"');
  }
  const fallback = options.versionFallback ?? "strict";
  if (fallback !== "strict" && fallback !== "lenient") {
    throw invalid("versionFallback", 'must be "strict" or "lenient"');
  }
  const older = options.acceptOlderVersions ?? false;
  if (typeof older !== "boolean") throw invalid("acceptOlderVersions", "must be a boolean");
  const level = options.logLevel;
  if (level !== undefined && !LOGGING_LEVELS.includes(level as LoggingLevel)) {
    throw invalid("logLevel", `must be one of ${LOGGING_LEVELS.join(", ")}`);
  }
  for (const key of [
    "onNotification",
    "onLog",
    "onProgress",
    "onTransportError",
    "onInputRequired",
    ...INPUT_HANDLERS,
  ] as const) {
    if (options[key] !== undefined && typeof options[key] !== "function")
      throw invalid(key, "must be a function");
  }
  if (options.onInputRequired !== undefined) {
    const both = INPUT_HANDLERS.find((key) => options[key] !== undefined);
    if (both)
      throw invalid(both, "cannot be given with onInputRequired: give one resolver or the per-kind handlers");
  }
  if (
    options.validateStructuredContent !== undefined &&
    typeof options.validateStructuredContent !== "boolean"
  ) {
    throw invalid("validateStructuredContent", "must be a boolean");
  }
  if (options.jsonSchemaValidator !== undefined && typeof options.jsonSchemaValidator !== "function") {
    throw invalid("jsonSchemaValidator", "must be a function");
  }
  const logger = options.logger ?? consoleLogger;
  if (!isObject(logger) || typeof logger.warn !== "function") {
    throw invalid("logger", "must have a warn(message, details) method");
  }
  const logIntervalMs = nonNegativeInteger(options.logIntervalMs, DEFAULT_LOG_INTERVAL_MS, "logIntervalMs");
  return {
    transport: transport as unknown as Transport,
    clientInfo: info as Implementation,
    capabilities: capabilities as ClientCapabilities,
    protocolVersion: version,
    versionFallback: fallback,
    acceptOlderVersions: older,
    requestTimeoutMs: checkTimeout("requestTimeoutMs", options.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS),
    connectTimeoutMs: checkTimeout("connectTimeoutMs", options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS),
    maxPendingRequests: positiveInteger(
      options.maxPendingRequests,
      DEFAULT_MAX_PENDING,
      "maxPendingRequests",
    ),
    logLevel: level as LoggingLevel | undefined,
    onNotification: options.onNotification as ClientConfig["onNotification"],
    onLog: options.onLog as ClientConfig["onLog"],
    onProgress: options.onProgress as ClientConfig["onProgress"],
    onTransportError: options.onTransportError as ClientConfig["onTransportError"],
    logger: limitLogger(logger as unknown as ClientLogger, logIntervalMs),
    input: {
      onInputRequired: options.onInputRequired as InputOptions["onInputRequired"],
      onSampling: options.onSampling as InputOptions["onSampling"],
      onElicitation: options.onElicitation as InputOptions["onElicitation"],
      onRoots: options.onRoots as InputOptions["onRoots"],
    },
    maxInputRounds: positiveInteger(options.maxInputRounds, DEFAULT_MAX_INPUT_ROUNDS, "maxInputRounds"),
    callbackTimeoutMs: checkTimeout(
      "callbackTimeoutMs",
      options.callbackTimeoutMs,
      DEFAULT_CALLBACK_TIMEOUT_MS,
    ),
    maxConcurrentCallbacks: positiveInteger(
      options.maxConcurrentCallbacks,
      DEFAULT_MAX_CONCURRENT_CALLBACKS,
      "maxConcurrentCallbacks",
    ),
    maxConcurrentNotificationCallbacks: positiveInteger(
      options.maxConcurrentNotificationCallbacks,
      DEFAULT_MAX_CONCURRENT_NOTIFICATION_CALLBACKS,
      "maxConcurrentNotificationCallbacks",
    ),
    maxQueuedNotifications: nonNegativeInteger(
      options.maxQueuedNotifications,
      DEFAULT_MAX_QUEUED_NOTIFICATIONS,
      "maxQueuedNotifications",
    ),
    maxSubscriptions: positiveInteger(
      options.maxSubscriptions,
      DEFAULT_MAX_SUBSCRIPTIONS,
      "maxSubscriptions",
    ),
    subscriptionQueueSize: positiveInteger(
      options.subscriptionQueueSize,
      DEFAULT_SUBSCRIPTION_QUEUE_SIZE,
      "subscriptionQueueSize",
    ),
    validateStructuredContent: options.validateStructuredContent === true,
    jsonSchemaValidator: options.jsonSchemaValidator as JsonSchemaValidatorFactory | undefined,
    requestHandlers: checkCallbackMap("requestHandlers", options.requestHandlers),
    notificationHandlers: checkCallbackMap("notificationHandlers", options.notificationHandlers),
    clock: checkClock(options.clock),
  };
}

/** The runtime's timers, kept referenced: a subscription waiting to listen again keeps the process alive. */
const RUNTIME_CLOCK: Clock = Object.freeze({
  now: () => Date.now(),
  setTimeout: (callback: () => void, ms: number): unknown => setTimeout(callback, ms),
  clearTimeout: (handle: unknown) => clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
});

function checkClock(clock: unknown): Clock {
  if (clock === undefined) return RUNTIME_CLOCK;
  if (!isClock(clock)) throw invalid("clock", "must have now(), setTimeout() and clearTimeout()");
  return clock;
}

/** A timeout in milliseconds: a positive number (`Infinity` allowed), or the fallback when absent. */
export function checkTimeout(key: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || Number.isNaN(value) || value <= 0) {
    throw invalid(key, "must be a positive number of milliseconds");
  }
  return value;
}

function invalid(key: string, problem: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", `${key} ${problem}`, { details: { key } });
}
