import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import { isNotification, isObject, type JsonRpcRequest } from "../../jsonrpc/message.js";
import type { RequestMeta } from "../../protocol/request-meta.js";
import type { SubscriptionFilter } from "../../protocol/types/subscriptions.js";
import { MODERN_VERSION } from "../../protocol/versions.js";
import { honouredFilter, parseFilter } from "../core/listen.js";
import type { PluginCall } from "../core/plugin.js";
import type { PluginHooks } from "../core/plugins.js";
import type { ServerRuntime } from "../core/runtime.js";
import type { Subscription, SubscriptionChannel } from "../core/subscription.js";
import { type ModernRequestEnv, modernCall, modernContext } from "./modern.js";
import { NO_INPUT } from "./modern-input.js";

const FLAGS = ["toolsListChanged", "promptsListChanged", "resourcesListChanged"] as const;

const silent = async (): Promise<void> => {};

/**
 * Opens the subscription of a checked `subscriptions/listen` request: the filter is parsed (`-32602` when
 * malformed) and cut to what the capabilities allow; the handler's `subscriptionFilter` hook, when there is one,
 * chooses within that (under the executor), and what it returns is checked to lie within it (else `-32603`).
 * Rejects with the capacity error past `maxSubscriptions`, checked before the hook runs and again after.
 */
export async function openSubscription(
  runtime: ServerRuntime,
  request: JsonRpcRequest,
  plain: SubscriptionChannel,
  env: Omit<ModernRequestEnv, "notify">,
  meta: RequestMeta,
): Promise<Subscription> {
  const { config, executor, publisher } = runtime;
  const { hooks } = config;
  // A listen is a request like any other to the plugins that admit requests (a policy, a rate limit, a span).
  const call = hooks.needsCall() ? modernCall(request, meta, env) : undefined;
  if (call !== undefined && hooks.admit !== undefined) await hooks.admit(call);
  const channel =
    hooks.notification === undefined || call === undefined ? plain : notifyingChannel(plain, hooks, call);
  const notifications = parseFilter(request.params);
  const honourable = honouredFilter(notifications, config.capabilities);
  const hook = config.handler.subscriptionFilter;
  if (hook === undefined) return opened(hooks, call, publisher.subscribe(request.id, honourable, channel));
  publisher.checkCapacity();
  const chosen = await executor.run(
    (abort) =>
      hook(
        { notifications: structuredClone(notifications), honourable: structuredClone(honourable) },
        modernContext(
          request,
          meta,
          abort,
          NO_INPUT.input,
          { ...env, notify: silent },
          silent,
          call === undefined ? undefined : hooks.context?.(call),
        ),
      ),
    env.signal,
  );
  const honoured = withinFilter(chosen, honourable);
  // The client left while the hook ran: nothing may be sent to it, not even an acknowledgement. This error is
  // never sent either (a cancelled request gets no answer); it only ends the listen.
  if (env.signal?.aborted) throw new JsonRpcError(ErrorCode.InternalError, "Request cancelled");
  return opened(hooks, call, publisher.subscribe(request.id, honoured, channel));
}

/** Tells the plugins' `subscribed` hooks (if any) that `subscription` opened for `call`. */
function opened(hooks: PluginHooks, call: PluginCall | undefined, subscription: Subscription): Subscription {
  if (call !== undefined && hooks.subscribed !== undefined) hooks.subscribed(call, subscription.ended);
  return subscription;
}

/** `channel` with the plugins' `notification` hooks in front of its notifications (the acknowledgement too). */
function notifyingChannel(
  channel: SubscriptionChannel,
  hooks: PluginHooks,
  call: PluginCall,
): SubscriptionChannel {
  const sink = hooks.notifying((notification) => channel.write(notification), {
    era: MODERN_VERSION,
    call,
    session: undefined,
  });
  return {
    write: (message) => (isNotification(message) ? sink(message) : channel.write(message)),
    end: (reason) => channel.end(reason),
  };
}

/**
 * `chosen` as a filter, when it lies within `honourable`: each flag set there, each URI listed there. Throws an
 * `Error` (a bug of the handler, sent as `-32603`) naming what does not.
 */
export function withinFilter(chosen: unknown, honourable: SubscriptionFilter): SubscriptionFilter {
  const fault = (what: string) => new Error(`subscriptionFilter returned ${what}`);
  if (!isObject(chosen)) throw fault("something other than a filter object");
  const out: SubscriptionFilter = {};
  for (const [key, value] of Object.entries(chosen)) {
    if (value === undefined) continue;
    if ((FLAGS as readonly string[]).includes(key)) {
      const flag = key as (typeof FLAGS)[number];
      if (typeof value !== "boolean") throw fault(`a non-boolean ${key}`);
      if (value && !honourable[flag]) throw fault(`${key}, which the request and capabilities do not allow`);
      if (value) out[flag] = true;
    } else if (key === "resourceSubscriptions") {
      const allowed = new Set(honourable.resourceSubscriptions);
      if (!Array.isArray(value) || !value.every((uri) => typeof uri === "string")) {
        throw fault("resourceSubscriptions that are not an array of strings");
      }
      const outside = value.find((uri) => !allowed.has(uri as string));
      if (honourable.resourceSubscriptions === undefined || outside !== undefined) {
        throw fault(
          `resourceSubscriptions ${JSON.stringify(outside ?? value)} outside the request and capabilities`,
        );
      }
      out.resourceSubscriptions = [...(value as string[])];
    } else throw fault(`an unknown member "${key}"`);
  }
  return out;
}
