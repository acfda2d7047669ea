import { isObject, type JsonRpcNotification } from "../jsonrpc/message.js";
import type { LoggingLevel } from "../protocol/types/common.js";
import { LOGGING_LEVELS } from "../protocol/types/common.js";
import type { LoggingMessageParams, ProgressParams } from "../protocol/types/lifecycle.js";
import type { NotificationRunner } from "./notification-runner.js";
import type { ClientLogger, ServerNotification } from "./types.js";

/**
 * Calls a user callback so that nothing it does can break the client: a throw or a rejected promise is caught
 * and reported to the logger.
 */
export function invokeSafely<T>(
  logger: ClientLogger,
  name: string,
  callback: ((arg: T) => unknown) | undefined,
  arg: T,
): void {
  if (callback === undefined) return;
  const report = (error: unknown) => {
    try {
      logger.warn(`${name} callback failed`, { error });
    } catch {
      // A logger that throws has nowhere left to report to.
    }
  };
  try {
    const returned = callback(arg);
    if (isThenable(returned)) returned.then(undefined, report);
  } catch (error) {
    report(error);
  }
}

/** Where server notifications go. */
export interface NotificationSinks {
  onLog: ((message: LoggingMessageParams) => void) | undefined;
  onNotification: ((notification: ServerNotification) => void) | undefined;
  logger: ClientLogger;
  /** Runs the callbacks within the client's bounds (see `NotificationRunner`). */
  runner: NotificationRunner;
}

/**
 * Delivers one server notification (progress excluded) to its callback, through the runner's bounds. Malformed
 * log messages are dropped.
 */
export function routeNotification(notification: JsonRpcNotification, sinks: NotificationSinks): void {
  const { method, params } = notification;
  if (method === "notifications/message") {
    if (!isObject(params) || !LOGGING_LEVELS.includes(params.level as LoggingLevel) || !("data" in params)) {
      sinks.logger.warn("dropped a malformed notifications/message", { params });
      return;
    }
    sinks.runner.run("onLog", sinks.onLog, params as unknown as LoggingMessageParams);
    return;
  }
  if (sinks.onNotification === undefined) return;
  const event: ServerNotification = params === undefined ? { method } : { method, params };
  sinks.runner.run("onNotification", sinks.onNotification, event);
}

/** Reads `notifications/progress` params; undefined when malformed. */
export function readProgress(params: unknown): ProgressParams | undefined {
  if (!isObject(params)) return undefined;
  const token = params.progressToken;
  if (typeof token !== "string" && typeof token !== "number") return undefined;
  if (typeof params.progress !== "number") return undefined;
  return params as unknown as ProgressParams;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function"
  );
}
