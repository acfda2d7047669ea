import type { AbortLike, LazyAbort } from "../jsonrpc/lazy-abort.js";
import type { JsonRpcRequest, JsonRpcResponse } from "../jsonrpc/message.js";
import { isObject } from "../jsonrpc/message.js";
import { MODERN_CLIENT_METHODS, REMOVED_IN_MODERN } from "../protocol/methods.js";
import { projectResult } from "../protocol/projection.js";
import { parseRequestMeta, type RequestMeta } from "../protocol/request-meta.js";
import type { LoggingLevel } from "../protocol/types/common.js";
import { MODERN_VERSION, SUPPORTED_VERSIONS } from "../protocol/versions.js";
import { levelAllows, type NotificationSink, type RequestContext, requestContext } from "./context.js";
import { methodNotFound } from "./errors.js";
import { isInputRequired, type RoundInput } from "./input.js";
import { HANDLER_METHODS, invokeHandler } from "./invoke.js";
import { inputRequiredResult, NO_INPUT, readModernInput, spendState } from "./modern-input.js";
import type { ServerConfig } from "./options.js";
import { errorResponse, resultResponse } from "./respond.js";
import type { ServerRuntime } from "./runtime.js";

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
export function checkModernRequest(request: JsonRpcRequest): RequestMeta {
  if (REMOVED_IN_MODERN.has(request.method)) {
    throw methodNotFound(request.method, `${request.method} is not part of ${MODERN_VERSION}`);
  }
  if (!MODERN_CLIENT_METHODS.has(request.method)) throw methodNotFound(request.method);
  return parseRequestMeta(request.params, [MODERN_VERSION], SUPPORTED_VERSIONS);
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
  try {
    const meta = checkedMeta ?? checkModernRequest(request);
    const params = request.params ?? {};
    let result: { [key: string]: unknown };
    if (request.method === "server/discover") {
      result = discoverResult(config);
    } else if (HANDLER_METHODS.has(request.method)) {
      const round = { method: request.method, params, identity: env.identity };
      // A first call carries no retry fields: nothing to read, and no hop to read it.
      const { input, nonce } =
        params.inputResponses === undefined && params.requestState === undefined
          ? NO_INPUT
          : await readModernInput(sealer, round);
      const answer = await executor.run(async (abort) => {
        await spendState(sealer, nonce);
        return invokeHandler(config, request.method, params, modernContext(request, meta, env, abort, input));
      }, env.signal);
      result = isInputRequired(answer)
        ? await inputRequiredResult(sealer, answer, round, meta.clientCapabilities)
        : answer;
    } else {
      throw methodNotFound(request.method);
    }
    return resultResponse(
      request.id,
      projectResult(MODERN_VERSION, request.method, result, {
        cache: config.cache,
        serverInfo: config.serverInfo,
      }),
    );
  } catch (error) {
    return errorResponse(request.id, error, MODERN_VERSION, config.logger);
  }
}

function discoverResult(config: ServerConfig): { [key: string]: unknown } {
  const result: { [key: string]: unknown } = {
    supportedVersions: [...SUPPORTED_VERSIONS],
    capabilities: config.capabilities,
  };
  if (config.instructions !== undefined) result.instructions = config.instructions;
  return result;
}

/** The context of a 2026-07-28 handler call (also the `subscriptionFilter` hook's). */
export function modernContext(
  request: JsonRpcRequest,
  meta: RequestMeta,
  env: ModernRequestEnv,
  abort: LazyAbort,
  input: RoundInput,
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
    },
    abort,
    meta.progressToken,
    // 2026-07-28: no logLevel in the request's meta means no log messages for it.
    minimum === undefined ? noLogs : (level) => levelAllows(minimum, level),
    env.notify,
  );
}

const noLogs = (): boolean => false;

/** True when a request carries 2026-07-28 metadata (its `_meta` names a protocol version). */
export function hasModernMeta(request: JsonRpcRequest): boolean {
  const meta = request.params?._meta;
  return isObject(meta) && "io.modelcontextprotocol/protocolVersion" in meta;
}
