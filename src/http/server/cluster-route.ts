import { ErrorCode } from "../../jsonrpc/codes.js";
import { McpkitError } from "../../jsonrpc/errors.js";
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from "../../jsonrpc/message.js";
import { isRequest } from "../../jsonrpc/message.js";
import { McpHeader } from "../../protocol/routing-headers.js";
import { LEGACY_VERSION } from "../../protocol/versions.js";
import { CLUSTER_UNAVAILABLE_MESSAGE } from "../../server/port.js";
import type { Answer } from "./answer.js";
import type { DirectoryEntry } from "./directory.js";
import type { Endpoint } from "./endpoint.js";
import { ANONYMOUS_PRINCIPAL, principalOf, resolveIdentity, samePrincipal } from "./identity.js";
import { exchangeFor } from "./legacy.js";
import { HttpRefusal, refusal, refusalResponse, textResponse } from "./responses.js";
import type { RequestView } from "./view.js";

const SESSION_ID = McpHeader.sessionId.toLowerCase();
const PROTOCOL_VERSION = McpHeader.protocolVersion.toLowerCase();

/**
 * A 2025-11-25 request (POST after `initialize`, GET, DELETE) for a session this handler does not hold, in a
 * cluster: `undefined` when this handler answers it itself (no cluster, no such session anywhere, a session of
 * its own, or an owner that is gone: the session is then unknown, 404, and its directory entry is removed);
 * else the owner's answer, relayed, or (with `legacySessions: "stateless"`) a request served here. A directory
 * or bus that cannot be reached answers 503 `-32603` "Cluster unavailable" (`data.reason`
 * `cluster_unavailable`).
 */
export async function routeToOwner(
  endpoint: Endpoint,
  request: RequestView,
  body: string | null,
  message?: JsonRpcMessage,
): Promise<Answer | undefined> {
  const cluster = endpoint.cluster;
  const id = request.header(SESSION_ID)?.trim();
  if (cluster === undefined || request.forwarded || !id || endpoint.sessions.get(id) !== undefined) {
    return undefined;
  }
  const requestId = message !== undefined && isRequest(message) ? message.id : undefined;
  try {
    const entry = await cluster.directory.lookup(id);
    if (entry === undefined) return undefined;
    if (entry.owner === cluster.forwarder.id) {
      cluster.directory.forget(id);
      return undefined;
    }
    if (
      endpoint.config.cluster.legacySessions === "stateless" &&
      message !== undefined &&
      isRequest(message)
    ) {
      return await serveStatelessly(endpoint, request, message, entry);
    }
    const answer = await cluster.forwarder.forward(entry.owner, request, body);
    if (answer !== "gone") return answer;
    cluster.directory.forget(id);
    return undefined;
  } catch (error) {
    if (!(error instanceof McpkitError && error.code === "UNAVAILABLE")) throw error;
    endpoint.logger.warn("the cluster could not be reached", { error: error.message });
    return unavailable(requestId);
  }
}

function unavailable(id: RequestId | undefined): Answer {
  const answer = refusalResponse(
    {
      status: 503,
      code: ErrorCode.InternalError,
      message: CLUSTER_UNAVAILABLE_MESSAGE,
      data: { reason: "cluster_unavailable" },
    },
    id,
  );
  return "response" in answer ? answer : { ...answer, headers: { ...answer.headers, "retry-after": "1" } };
}

/**
 * Serves one request of a session held elsewhere on a fresh session of this instance, initialized from the
 * recorded `initialize` params, for the same principal (else 403). It has no server-to-client requests (they
 * stay with the owner) and keeps nothing: it closes after its answer.
 */
async function serveStatelessly(
  endpoint: Endpoint,
  request: RequestView,
  message: JsonRpcRequest,
  entry: DirectoryEntry,
): Promise<Answer> {
  const version = request.header(PROTOCOL_VERSION)?.trim();
  if (version !== LEGACY_VERSION) {
    throw refusal(400, ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", {
      supported: [LEGACY_VERSION],
      requested: version ?? null,
    });
  }
  const { authenticate, legacySseTimeoutMs } = endpoint.config;
  const identity =
    authenticate === undefined
      ? undefined
      : await resolveIdentity(authenticate, request, endpoint.logger, message);
  const principal =
    identity === undefined ? ANONYMOUS_PRINCIPAL : await principalOf(identity, endpoint.logger);
  if (!samePrincipal(principal, entry.principal)) {
    throw new HttpRefusal({ status: 403, code: 0, message: "Forbidden" }, textResponse(403, "Forbidden"));
  }
  const legacy = endpoint.server.createLegacySession(async () => {}, request.header(SESSION_ID)?.trim());
  const init = await legacy.handle(
    { jsonrpc: "2.0", id: 0, method: "initialize", params: { ...(entry.init ?? {}) } },
    { identity },
  );
  if (!("result" in init)) {
    legacy.close();
    throw refusal(500, ErrorCode.InternalError, "Internal error: the session could not be rebuilt");
  }
  legacy.markInitialized();
  const exchange = exchangeFor(endpoint, request, { ms: legacySseTimeoutMs, id: message.id });
  const send = async () => {
    throw new McpkitError("UNSUPPORTED", "a session served statelessly sends no server-to-client requests");
  };
  void legacy
    .handle(message, { identity, signal: exchange.signal, notify: exchange.notify, send })
    .then((response) => {
      if (exchange.signal.aborted) exchange.abandon();
      else exchange.finish(response);
    })
    .finally(() => legacy.close())
    .catch((error: unknown) => endpoint.logger.error("could not answer a request", error));
  return exchange.response;
}
