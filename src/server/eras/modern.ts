import type { AbortLike, LazyAbort } from "../../jsonrpc/lazy-abort.js";
import type { JsonRpcRequest, JsonRpcResponse } from "../../jsonrpc/message.js";
import { isObject } from "../../jsonrpc/message.js";
import { MODERN_CLIENT_METHODS, REMOVED_IN_MODERN } from "../../protocol/methods.js";
import { projectResult } from "../../protocol/projection.js";
import { parseRequestMeta, type RequestMeta } from "../../protocol/request-meta.js";
import type { LoggingLevel } from "../../protocol/types/common.js";
import { MODERN_VERSION, SUPPORTED_VERSIONS } from "../../protocol/versions.js";
import { levelAllows, type NotificationSink, type RequestContext, requestContext } from "../core/context.js";
import { methodNotFound } from "../core/errors.js";
import { HANDLER_METHODS, invokeHandler } from "../core/invoke.js";
import { limitNotifications } from "../core/notification-caps.js";
import type { ServerConfig } from "../core/options.js";
import type { PluginCall, PluginData, PluginOutgoing } from "../core/plugin.js";
import { errorResponse, isOwnAbort, resultResponse } from "../core/respond.js";
import type { ServerRuntime } from "../core/runtime.js";
import { invokeCustom } from "../custom/dispatch.js";
import type { CustomMethods } from "../custom/methods.js";
import {
  INPUT_REQUIRED_METHODS,
  type InputRequired,
  isInputRequired,
  type RoundInput,
} from "../state/input.js";
import {
  inputRequiredResult,
  type ModernRound,
  NO_INPUT,
  readModernInput,
  spendState,
} from "./modern-input.js";

/** What the transport knows about one 2026-07-28 request. */
export interface ModernRequestEnv {
  /** The authenticated principal, from the transport. */
  identity?: unknown;
  /** Fires when the client cancels (stdio `notifications/cancelled`, HTTP stream closed). */
  signal?: AbortLike;
  /** Where progress and log notifications of this request go. */
  notify: NotificationSink;
}

/**
 * Checks that a request is a served 2026-07-28 method with valid `_meta`. Returns the meta, or throws the
 * `JsonRpcError` to answer with (`-32601` for a removed or unknown method, `-32602`/`-32022` for bad meta).
 */
export function checkModernRequest(request: JsonRpcRequest, custom?: CustomMethods): RequestMeta {
  if (!servesModern(request.method, custom)) {
    const detail = REMOVED_IN_MODERN.has(request.method)
      ? `${request.method} is not part of ${MODERN_VERSION}`
      : undefined;
    throw methodNotFound(request.method, detail);
  }
  return parseRequestMeta(request.params, [MODERN_VERSION], SUPPORTED_VERSIONS);
}

/** True when a 2026-07-28 server serves `method`: a core method, or a custom one of that era. */
export function servesModern(method: string, custom: CustomMethods | undefined): boolean {
  return MODERN_CLIENT_METHODS.has(method) || custom?.request(MODERN_VERSION, method) !== undefined;
}

/**
 * Serves one stateless 2026-07-28 request: meta checks, `server/discover`, the retry fields of an input round
 * (`inputResponses`, a sealed `requestState`), handler dispatch under the executor, an `inputRequired()` answer
 * turned into an `InputRequiredResult`, result projection (`resultType`, cache hints, server info). Never throws:
 * every failure is an error response.
 */
export async function serveModern(
  runtime: ServerRuntime,
  request: JsonRpcRequest,
  env: ModernRequestEnv,
  checkedMeta?: RequestMeta,
): Promise<JsonRpcResponse> {
  const { config, executor, sealer } = runtime;
  const { hooks } = config;
  let meta: RequestMeta;
  try {
    meta = checkedMeta ?? checkModernRequest(request, config.custom);
  } catch (error) {
    return refuseModern(runtime, request, error);
  }
  let call: PluginCall | undefined;
  let response: JsonRpcResponse;
  try {
    const params = request.params ?? {};
    const method = request.method;
    if (hooks.needsCall()) {
      call = modernCall(request, meta, env);
      if (hooks.admit !== undefined) await hooks.admit(call);
    }
    let result: { [key: string]: unknown };
    const core = HANDLER_METHODS.has(method);
    const custom = core ? undefined : config.custom.request(MODERN_VERSION, method);
    if (method === "server/discover") {
      result = discoverResult(config);
    } else if (custom !== undefined || core) {
      // A first call carries no retry fields: nothing to read, and no hop to read it.
      const { input, nonce } =
        params.inputResponses === undefined && params.requestState === undefined
          ? NO_INPUT
          : await readModernInput(
              sealer,
              modernRound(method, params, env),
              custom !== undefined || INPUT_REQUIRED_METHODS.has(method),
            );
      // Made only when a plugin has a hook that learns where an outgoing message stands.
      const out: PluginOutgoing | undefined =
        call === undefined || !hooks.outgoing ? undefined : { era: MODERN_VERSION, call, session: undefined };
      const notify = limitNotifications(
        hooks.notification === undefined || out === undefined ? env.notify : hooks.notifying(env.notify, out),
        config.limits,
        config.logger,
        request,
      );
      const answer = await executor.run(async (abort) => {
        if (nonce !== undefined) await spendState(sealer, nonce);
        const data = call === undefined ? undefined : hooks.context?.(call);
        const context = modernContext(request, meta, abort, input, env, notify, data);
        const answer: unknown = await (custom === undefined
          ? invokeHandler(config, method, params, context)
          : invokeCustom(custom, MODERN_VERSION, params, context));
        if (!hooks.settles(answer)) return answer as Result | InputRequired;
        call ??= modernCall(request, meta, env);
        return (await hooks.settle(answer, call, context)) as Result | InputRequired;
      }, env.signal);
      result = isInputRequired(answer)
        ? await inputRequiredResult(
            sealer,
            answer,
            modernRound(method, params, env),
            meta.clientCapabilities,
            hooks.clientRequest === undefined || out === undefined
              ? undefined
              : (inputRequest) => hooks.placeRequest(inputRequest, out),
          )
        : answer;
    } else {
      throw methodNotFound(method);
    }
    response = resultResponse(
      request.id,
      projectResult(MODERN_VERSION, method, result, config.cache, config.serverInfo, custom?.cacheable),
    );
  } catch (error) {
    response = errorResponse(
      request.id,
      error,
      MODERN_VERSION,
      isOwnAbort(error, env.signal) ? undefined : config.logger,
    );
  }
  return call === undefined || hooks.response === undefined ? response : hooks.response(response, call);
}

type Result = { [key: string]: unknown };

/** The answer to a request refused by {@link checkModernRequest}, shown to the plugins' `refused` hooks. */
export function refuseModern(
  runtime: ServerRuntime,
  request: JsonRpcRequest,
  error: unknown,
): JsonRpcResponse {
  const { config } = runtime;
  const response = errorResponse(request.id, error, MODERN_VERSION, config.logger);
  config.hooks.refused?.(response, request);
  return response;
}

/** The request a round's `requestState` is bound to: built only when a round is read or sealed. */
function modernRound(method: string, params: Result, env: ModernRequestEnv): ModernRound {
  return { method, params, identity: env.identity };
}

/** What the plugins' hooks learn about a 2026-07-28 request. */
export function modernCall(
  request: JsonRpcRequest,
  meta: RequestMeta,
  env: Pick<ModernRequestEnv, "identity" | "signal">,
): PluginCall {
  return {
    era: MODERN_VERSION,
    method: request.method,
    request,
    params: request.params ?? {},
    identity: env.identity,
    clientCapabilities: meta.clientCapabilities,
    session: undefined,
    signal: env.signal,
  };
}

function discoverResult(config: ServerConfig): { [key: string]: unknown } {
  const result: { [key: string]: unknown } = {
    supportedVersions: [...SUPPORTED_VERSIONS],
    capabilities: config.capabilitiesByEra[MODERN_VERSION],
  };
  if (config.instructions !== undefined) result.instructions = config.instructions;
  return result;
}

/** The context of a 2026-07-28 handler call (also the `subscriptionFilter` hook's). */
export function modernContext(
  request: JsonRpcRequest,
  meta: RequestMeta,
  abort: LazyAbort,
  input: RoundInput,
  env: ModernRequestEnv,
  notify: NotificationSink,
  pluginData?: PluginData,
): RequestContext {
  const minimum: LoggingLevel | undefined = meta.logLevel;
  return requestContext(
    {
      era: MODERN_VERSION,
      request,
      identity: env.identity,
      meta: meta.raw,
      clientCapabilities: meta.clientCapabilities,
      clientInfo: meta.clientInfo,
      input,
      pluginData,
    },
    abort,
    meta.progressToken,
    // 2026-07-28: no logLevel in the request's meta means no log messages for it.
    minimum === undefined ? noLogs : (level) => levelAllows(minimum, level),
    notify,
  );
}

const noLogs = (): boolean => false;

/** True when a request (or notification) carries 2026-07-28 metadata (its `_meta` names a protocol version). */
export function hasModernMeta(request: Pick<JsonRpcRequest, "params">): boolean {
  const meta = request.params?._meta;
  return isObject(meta) && "io.modelcontextprotocol/protocolVersion" in meta;
}
