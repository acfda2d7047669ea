import { ErrorCode } from "../../jsonrpc/codes.js";
import type { JsonRpcMessage, JsonRpcRequest } from "../../jsonrpc/message.js";
import { isObject, isRequest, isResponse } from "../../jsonrpc/message.js";
import type { RequestMeta } from "../../protocol/request-meta.js";
import type { HeaderParam } from "../../protocol/routing-headers.js";
import { MODERN_VERSION } from "../../protocol/versions.js";
import { errorResponse } from "../../server/port.js";
import type { Answer } from "./answer.js";
import type { Endpoint } from "./endpoint.js";
import { ResponseExchange } from "./exchange.js";
import { resolveIdentity } from "./identity.js";
import { listenStream } from "./listen.js";
import { emptyResponse, HttpRefusal, modernStatus, refusal, refusalMessage } from "./responses.js";
import { checkModernHeaders, checkParamHeaders, resolvedParams } from "./routing.js";
import type { RequestView } from "./view.js";

/**
 * The stateless 2026-07-28 side of the endpoint, after the body is decoded: routing headers, identity,
 * `Mcp-Param-*` headers, then dispatch through the server (the executor it shares with every transport), its
 * answer as JSON or an SSE stream (see {@link ResponseExchange}). An accepted notification is 202; a response body is refused (a 2026 POST
 * carries a request or a notification).
 */
export async function modernPost(
  endpoint: Endpoint,
  request: RequestView,
  message: JsonRpcMessage,
): Promise<Answer> {
  const { server, config, logger } = endpoint;
  if (isResponse(message)) {
    throw refusal(
      400,
      ErrorCode.InvalidRequest,
      `Invalid Request: a ${MODERN_VERSION} POST carries a request or a notification`,
    );
  }
  if (!isRequest(message)) {
    const identity = await resolveIdentity(config.authenticate, request, logger, message);
    server.receiveNotification(message, MODERN_VERSION, identity);
    return emptyResponse(202);
  }
  let meta: RequestMeta;
  try {
    meta = checkModernHeaders(message, request, server.config.custom);
  } catch (error) {
    throw refused(endpoint, message, error);
  }
  const identity =
    config.authenticate === undefined
      ? undefined
      : await resolveIdentity(config.authenticate, request, logger, message);
  if (message.method === "tools/call" && config.toolSchemas !== undefined) {
    const params = await paramsOf(endpoint, message, identity);
    try {
      if (params) checkParamHeaders(params, message.params?.arguments, request);
    } catch (error) {
      throw refused(endpoint, message, error);
    }
  }
  if (message.method === "subscriptions/listen")
    return listenStream(endpoint, request, message, identity, meta);
  const accepted = endpoint.accepts(request);
  const exchange = new ResponseExchange({
    // JSON mode answers JSON, but not to a client that accepts only an event stream.
    json: (config.enableJsonResponse && accepted.json) || !accepted.sse,
    jsonFirst: accepted.json,
    maxResponseBytes: config.maxResponseBytes,
    keepAliveMs: config.keepAliveMs,
    clock: config.clock,
    statusOf: modernStatus,
    onGone: request.onGone,
    logger,
  });
  void server
    .handleModern(message, { identity, signal: exchange.signal, notify: exchange.notify }, meta)
    .then(
      (response) => exchange.finish(response),
      (error: unknown) => exchange.finish(errorResponse(message.id, error, MODERN_VERSION, logger)),
    )
    // No rejection is left unhandled: an unhandled one ends a Node process run with the default settings.
    .catch((error: unknown) => logger.error("could not answer a request", error));
  return exchange.response;
}

/** Shows a routing refusal to the plugins' `refused` hooks (none: nothing done), and returns it to throw. */
function refused(endpoint: Endpoint, message: JsonRpcRequest, error: unknown): unknown {
  const hook = endpoint.server.config.hooks.refused;
  if (hook !== undefined && error instanceof HttpRefusal)
    hook(refusalMessage(error.refusal, message.id), message);
  return error;
}

/** The `x-mcp-header` annotations of the called tool: from the static map, or the resolver. */
async function paramsOf(
  endpoint: Endpoint,
  message: JsonRpcRequest,
  identity: unknown,
): Promise<readonly HeaderParam[] | undefined> {
  const name = message.params?.name;
  const schemas = endpoint.config.toolSchemas;
  if (typeof name !== "string" || schemas === undefined) return undefined;
  if (typeof schemas !== "function") return schemas.get(name);
  try {
    const schema = await schemas(name, identity);
    if (schema === undefined) return undefined;
    if (!isObject(schema)) throw new Error("toolSchemas resolver returned a non-object schema");
    return resolvedParams(schema);
  } catch (error) {
    endpoint.logger.error("the toolSchemas resolver failed", error);
    throw refusal(500, ErrorCode.InternalError, "Internal error");
  }
}
