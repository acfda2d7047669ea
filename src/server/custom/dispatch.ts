import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import { isObject, type JsonRpcNotification } from "../../jsonrpc/message.js";
import { describeIssues } from "../../protocol/validation.js";
import { type Era, MODERN_VERSION } from "../../protocol/versions.js";
import { type RequestContext, withLazySignal } from "../core/context.js";
import type { ServerRuntime } from "../core/runtime.js";
import { type InputRequired, isInputRequired } from "../state/input.js";
import type { CustomNotification, CustomRequest, NotificationContext } from "./custom.js";
import type { CheckResult } from "./schemas.js";

type Params = { [key: string]: unknown };
type Result = { [key: string]: unknown };

/**
 * Calls a custom request handler: its params (without `_meta`, and in 2026-07-28 without the retry fields the
 * runtime reads) checked against its schema first (`-32602` naming every failing path), then the handler. A
 * result that is not an object is the handler's bug (a plain Error, sent as `-32603`).
 */
export async function invokeCustom(
  entry: CustomRequest,
  era: Era,
  params: Params,
  context: RequestContext,
): Promise<Result | InputRequired> {
  let input: unknown = handlerParams(params, era === MODERN_VERSION);
  if (entry.check !== undefined) {
    const pending = entry.check(input);
    const checked: CheckResult = pending instanceof Promise ? await pending : pending;
    if (!checked.ok) {
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        `Invalid params for ${context.method}:\n${describeIssues(checked.issues)}`,
        { issues: checked.issues.map((issue) => ({ path: issue.path, message: issue.message })) },
      );
    }
    input = checked.value;
  }
  const result: unknown = await entry.handler(input as never, context);
  if (isInputRequired(result)) return result;
  if (!isObject(result)) throw new Error(`the ${context.method} handler must return an object`);
  return result;
}

/**
 * Hands a client notification to its custom handler, if the server has one for the era: params checked (a
 * failure is logged and the notification dropped), the handler run under the executor (its deadline and
 * admission limit; a notification that finds no room is dropped and logged). Returns false when no handler
 * takes the method. Never throws.
 */
export function serveCustomNotification(
  runtime: ServerRuntime,
  era: Era,
  notification: JsonRpcNotification,
  identity: unknown,
): boolean {
  const entry = runtime.config.custom.notification(era, notification.method);
  if (entry === undefined) return false;
  const { logger } = runtime.config;
  const method = notification.method;
  runtime.executor
    .run((abort) => runNotification(entry, era, notification, identity, abort))
    .catch((error: unknown) => logger.warn(`the ${method} notification handler failed`, error));
  return true;
}

async function runNotification(
  entry: CustomNotification,
  era: Era,
  notification: JsonRpcNotification,
  identity: unknown,
  abort: { readonly signal: AbortSignal },
): Promise<void> {
  const params = isObject(notification.params) ? notification.params : {};
  let input: unknown = handlerParams(params, false);
  if (entry.check !== undefined) {
    const pending = entry.check(input);
    const checked: CheckResult = pending instanceof Promise ? await pending : pending;
    if (!checked.ok) {
      throw new Error(`invalid params of ${notification.method}:\n${describeIssues(checked.issues)}`);
    }
    input = checked.value;
  }
  const context: Omit<NotificationContext, "signal"> = {
    era,
    method: notification.method,
    identity,
    meta: isObject(params._meta) ? params._meta : {},
  };
  // The shared getter of a request's context: no accessor made per notification.
  await entry.handler(input as never, withLazySignal<NotificationContext>(context, abort));
}

/** The params a handler sees: without `_meta` (it is `context.meta`) and, in 2026, the input-round fields. */
function handlerParams(params: Params, modern: boolean): Params {
  if (!("_meta" in params) && !(modern && ("inputResponses" in params || "requestState" in params))) {
    return params;
  }
  const out: Params = {};
  for (const key of Object.keys(params)) {
    if (key === "_meta" || (modern && (key === "inputResponses" || key === "requestState"))) continue;
    // A `__proto__` member stays an own member, never the prototype.
    if (key === "__proto__") {
      Object.defineProperty(out, key, {
        value: params[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else out[key] = params[key];
  }
  return out;
}
