import { ErrorCode } from "../../jsonrpc/codes.js";
import { McpkitError } from "../../jsonrpc/errors.js";
import { limitDetails, limitError, limitMessage } from "../../jsonrpc/limit-error.js";
import type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  RequestId,
} from "../../jsonrpc/message.js";
import { isObject, isRequest, isResponse } from "../../jsonrpc/message.js";
import { MetaKey } from "../../protocol/meta.js";
import { LEGACY_CLIENT_METHODS, MODERN_CLIENT_METHODS } from "../../protocol/methods.js";
import { McpHeader } from "../../protocol/routing-headers.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../protocol/versions.js";
import { CLUSTER_UNAVAILABLE_MESSAGE } from "../../server/port.js";
import type { Endpoint } from "./endpoint.js";
import { type ExchangeOptions, type ExchangeTimeout, ResponseExchange } from "./exchange.js";
import { ANONYMOUS_PRINCIPAL, principalOf, resolveIdentity, samePrincipal } from "./identity.js";
import { addressKey } from "./remote-address.js";
import {
  emptyResponse,
  HttpRefusal,
  jsonResponse,
  legacyStatus,
  refusal,
  textResponse,
} from "./responses.js";
import { type HttpSession, mintSessionId } from "./sessions.js";

const SESSION_ID = McpHeader.sessionId.toLowerCase();
const PROTOCOL_VERSION = McpHeader.protocolVersion.toLowerCase();

import type { Answer } from "./answer.js";
import { SSE_HEADERS, SseStream } from "./sse.js";
import type { RequestView } from "./view.js";

/**
 * The 2025-11-25 side of the endpoint: `initialize` opens a session (its id minted only once the initialize
 * succeeded), every later POST, GET and DELETE names it in `Mcp-Session-Id`, carries
 * `MCP-Protocol-Version: 2025-11-25`, and comes from the principal that opened it.
 */
export async function legacyPost(
  endpoint: Endpoint,
  request: RequestView,
  message: JsonRpcMessage,
): Promise<Answer> {
  if (isRequest(message) && message.method === "initialize") return initialize(endpoint, request, message);
  const { session, identity } = await boundSession(endpoint, request, message);
  if (isResponse(message)) {
    // The client's answer to a server-to-client request (sampling, elicitation, roots) of this session.
    if (!session.legacy.receiveResponse(message)) {
      endpoint.logger.warn("dropped a response to no request", { id: message.id });
    }
    return emptyResponse(202);
  }
  if (!isRequest(message)) {
    onNotification(endpoint, session, message, identity);
    return emptyResponse(202);
  }
  checkEra(message);
  if (session.inFlight.has(message.id)) {
    throw refusal(400, ErrorCode.InvalidRequest, "Invalid Request: duplicate request id");
  }
  // Its signal fires on notifications/cancelled, on the client closing the stream, when the session closes, and
  // past legacySseTimeoutMs.
  const exchange = exchangeFor(endpoint, request, { ms: endpoint.config.legacySseTimeoutMs, id: message.id });
  session.inFlight.set(message.id, exchange);
  endpoint.sessions.enter(session);
  const sinks = requestSinks(endpoint, session, message.id, exchange.streams);
  void session.legacy
    .handle(message, { identity, signal: exchange.signal, notify: sinks.notify, send: sinks.send })
    .then((response) => {
      // A cancelled request gets no response.
      if (exchange.signal.aborted) exchange.abandon();
      else exchange.finish(response);
    })
    .finally(() => {
      if (session.inFlight.get(message.id) === exchange) session.inFlight.delete(message.id);
      endpoint.sessions.leave(session);
    })
    // No rejection is left unhandled: an unhandled one ends a Node process run with the default settings.
    .catch((error: unknown) => endpoint.logger.error("could not answer a request", error));
  return exchange.response;
}

/** The 2026-07-28 methods 2025-11-25 does not have. */
const MODERN_ONLY = new Set(
  [...MODERN_CLIENT_METHODS].filter((method) => !LEGACY_CLIENT_METHODS.has(method)),
);

/**
 * Refuses a 2026-07-28 envelope sent on a 2025-11-25 session (with that version header): a request whose
 * `_meta` names another protocol version is `400 -32020` (the header does not match it), a 2026-only method
 * (`server/discover`, `subscriptions/listen`) is `400 -32600`. A mixed-era client learns what it mixed up,
 * instead of a `200 -32601` that reads like a 2025 server without the method.
 */
function checkEra(request: JsonRpcRequest): void {
  const meta = request.params?._meta;
  const requested = isObject(meta) ? meta[MetaKey.protocolVersion] : undefined;
  if (requested !== undefined && requested !== LEGACY_VERSION) {
    throw refusal(
      400,
      ErrorCode.HeaderMismatch,
      `Header mismatch: the request's _meta names protocol version ${String(requested)}, but its ${McpHeader.protocolVersion} and session are ${LEGACY_VERSION}`,
      {
        header: McpHeader.protocolVersion,
        reason: "era_mismatch",
        session: LEGACY_VERSION,
        requested,
      },
    );
  }
  if (MODERN_ONLY.has(request.method)) {
    throw refusal(
      400,
      ErrorCode.InvalidRequest,
      `Invalid Request: ${request.method} is a 2026-07-28 method, and this session speaks ${LEGACY_VERSION}: send it without Mcp-Session-Id, with ${McpHeader.protocolVersion}: 2026-07-28`,
      { reason: "era_mismatch", session: LEGACY_VERSION, method: request.method },
    );
  }
}

/**
 * GET: the session's stream of server-to-client messages. One per session; a second one gets 409; one whose
 * `Accept` rules out `text/event-stream` gets 406.
 */
export async function legacyGet(endpoint: Endpoint, request: RequestView): Promise<Answer> {
  const { session } = await boundSession(endpoint, request);
  if (!endpoint.accepts(request).sse) {
    throw refusal(
      406,
      ErrorCode.InvalidRequest,
      "Not Acceptable: the GET stream answers with text/event-stream",
    );
  }
  if (session.stream && !session.stream.isClosed) {
    const body = {
      jsonrpc: "2.0",
      error: { code: ErrorCode.InvalidRequest, message: "Conflict: this session already has a GET stream" },
    };
    return jsonResponse(409, JSON.stringify(body));
  }
  const { config, sessions } = endpoint;
  const ended = () => {
    if (session.stream === stream) session.stream = undefined;
    sessions.leave(session);
  };
  const stream: SseStream = new SseStream({
    keepAliveMs: config.keepAliveMs,
    clock: config.clock,
    // Nothing may be sent for long: the head goes out with these bytes on every server.
    prime: true,
    onCancel: ended,
  });
  session.stream = stream;
  sessions.enter(session);
  // A fetch-style host may tell that the client left only through the Request's signal, never cancelling the
  // body: the stream ends then too, or it would keep the session busy (never idle) and refuse a new GET (409).
  request.onGone(() => {
    if (stream.isClosed) return;
    stream.close();
    ended();
  });
  return { status: 200, headers: { ...SSE_HEADERS }, body: stream.body };
}

/** DELETE: ends the session (its requests are aborted, its stream closed). */
export async function legacyDelete(endpoint: Endpoint, request: RequestView): Promise<Answer> {
  const { session } = await boundSession(endpoint, request);
  endpoint.sessions.close(session, "deleted by the client");
  return emptyResponse(200);
}

/**
 * Sends a session-wide notification (list changed) on the session's GET stream. Without a stream, or when the
 * client reads too slowly or the event is over `maxResponseBytes`, it is dropped: nothing queues unbounded.
 */
export function sendOnSessionStream(
  endpoint: Endpoint,
  session: HttpSession,
  notification: JsonRpcNotification,
) {
  const stream = session.stream;
  if (!stream || stream.isClosed) return;
  let json: string;
  try {
    json = JSON.stringify(notification);
  } catch (error) {
    endpoint.logger.warn("dropped a session notification that could not be encoded", error);
    return;
  }
  if (SseStream.eventSize(json) > endpoint.config.maxResponseBytes || stream.congested) {
    endpoint.logger.warn("dropped a session notification", { method: notification.method });
    return;
  }
  stream.event(json);
}

/**
 * The notification and server-to-client request sinks of request `id`: its own response stream, found through
 * the session's in-flight table, or, for a JSON answer (which cannot carry server requests), the session's GET
 * stream. Made here, not in `legacyPost`, so that the handler's objects hold no reference to the HTTP exchange:
 * a closure over `legacyPost`'s scope would, and under concurrency V8 then promoted every request's objects to
 * the old generation (five times the time in GC; docs/performance.md, "Objects that point at each other across
 * layers").
 */
function requestSinks(
  endpoint: Endpoint,
  session: HttpSession,
  id: RequestId,
  streams: boolean,
): {
  notify: (notification: JsonRpcNotification) => Promise<void>;
  send: (message: JsonRpcMessage) => Promise<void>;
} {
  return {
    notify: (notification) => session.inFlight.get(id)?.notify(notification) ?? DONE,
    send: streams
      ? (outbound) => session.inFlight.get(id)?.send(outbound) ?? Promise.reject(ended())
      : (outbound) => sendOnGetStream(endpoint, session, outbound),
  };
}

const DONE: Promise<void> = Promise.resolve();
const ended = () => new McpkitError("CLOSED", "the response stream has ended");

/** Sends a server-to-client request on the session's GET stream; rejects when there is none or it is full. */
async function sendOnGetStream(
  endpoint: Endpoint,
  session: HttpSession,
  message: JsonRpcMessage,
): Promise<void> {
  const stream = session.stream;
  if (!stream || stream.isClosed) {
    throw new McpkitError("CLOSED", "no GET stream open to carry a server-to-client request");
  }
  const json = JSON.stringify(message);
  const size = SseStream.eventSize(json);
  if (size > endpoint.config.maxResponseBytes) {
    const facts = { option: "maxResponseBytes", limit: endpoint.config.maxResponseBytes, size };
    throw limitError("MESSAGE_TOO_LARGE", "the GET stream event", facts);
  }
  stream.event(json);
  await stream.drained();
}

async function initialize(
  endpoint: Endpoint,
  request: RequestView,
  message: JsonRpcRequest,
): Promise<Answer> {
  if (request.header(SESSION_ID) !== null) {
    throw refusal(
      400,
      ErrorCode.InvalidRequest,
      "Invalid Request: initialize opens a session; send no Mcp-Session-Id",
    );
  }
  const { server, config, logger, sessions } = endpoint;
  const identity = await resolveIdentity(config.authenticate, request, logger, message);
  const principal = await principalOf(identity, logger);
  const reservation = sessions.reserve(principal, addressKey(request.remoteAddress));
  if (typeof reservation === "string") {
    const facts = sessions.facts(reservation);
    throw refusal(
      503,
      ErrorCode.InternalError,
      limitMessage("Session capacity reached", facts, "sessions"),
      limitDetails(facts, { reason: reservation }),
    );
  }
  let session: HttpSession | undefined;
  const legacy = server.createLegacySession(async (notification) => {
    if (session) sendOnSessionStream(endpoint, session, notification);
  }, mintSessionId());
  const exchange = exchangeFor(endpoint, request);
  let response: Awaited<ReturnType<typeof legacy.handle>>;
  try {
    response = await legacy.handle(message, { identity, signal: exchange.signal });
  } catch (error) {
    legacy.close();
    sessions.release(reservation);
    throw error;
  }
  // A failed initialize, or one whose client is gone, publishes nothing.
  if (!("result" in response) || exchange.signal.aborted) {
    legacy.close();
    sessions.release(reservation);
    exchange.finish(response);
    return exchange.response;
  }
  session = sessions.publish(reservation, legacy);
  if (endpoint.cluster !== undefined) {
    const entry = {
      owner: endpoint.cluster.forwarder.id,
      principal,
      expiresAt: Date.now() + config.sessions.absoluteTimeoutMs,
      init: isObject(message.params) ? message.params : undefined,
    };
    try {
      await endpoint.cluster.directory.register(session.id, entry, config.sessions.absoluteTimeoutMs);
    } catch (error) {
      sessions.close(session, "the cluster directory could not record it");
      endpoint.logger.warn("the cluster could not be reached", { error: String(error) });
      throw refusal(503, ErrorCode.InternalError, CLUSTER_UNAVAILABLE_MESSAGE, {
        reason: "cluster_unavailable",
      });
    }
  }
  exchange.finish(response, { [SESSION_ID]: session.id });
  return exchange.response;
}

function onNotification(
  endpoint: Endpoint,
  session: HttpSession,
  notification: JsonRpcNotification,
  identity: unknown,
): void {
  session.legacy.noteNotification(notification, identity);
  if (notification.method === "notifications/initialized") {
    endpoint.sessions.initialized(session);
  } else if (notification.method === "notifications/cancelled" && isObject(notification.params)) {
    const id = notification.params.requestId;
    if (typeof id === "string" || typeof id === "number") session.inFlight.get(id)?.abort();
  } else {
    session.legacy.receiveNotification(notification, identity);
  }
}

/**
 * The checks of every request after `initialize`, in order: `Mcp-Session-Id` present (400), the session's
 * version in `MCP-Protocol-Version` (400 `-32022`), identity, the session exists (404 `-32000`), and belongs to
 * this principal under the same authorization context (403).
 */
async function boundSession(endpoint: Endpoint, request: RequestView, message?: JsonRpcMessage) {
  const id = request.header(SESSION_ID)?.trim();
  if (!id) throw refusal(400, ErrorCode.InvalidRequest, "Invalid Request: Mcp-Session-Id header is required");
  const version = request.header(PROTOCOL_VERSION)?.trim();
  if (version !== LEGACY_VERSION) {
    const why =
      version === undefined || version === ""
        ? `MCP-Protocol-Version: ${LEGACY_VERSION} is required on a session's requests`
        : version === MODERN_VERSION
          ? `a request with Mcp-Session-Id is on a ${LEGACY_VERSION} session; a ${MODERN_VERSION} request carries no Mcp-Session-Id`
          : `this session speaks ${LEGACY_VERSION}, not ${version}`;
    throw refusal(400, ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${why}`, {
      supported: [LEGACY_VERSION],
      requested: version ?? null,
    });
  }
  const { authenticate } = endpoint.config;
  const identity =
    authenticate === undefined
      ? undefined
      : await resolveIdentity(authenticate, request, endpoint.logger, message);
  const session = endpoint.sessions.get(id);
  if (!session) throw refusal(404, ErrorCode.SessionNotFound, "Session not found");
  const principal =
    identity === undefined ? ANONYMOUS_PRINCIPAL : await principalOf(identity, endpoint.logger);
  if (!samePrincipal(principal, session.principal)) {
    throw new HttpRefusal({ status: 403, code: 0, message: "Forbidden" }, textResponse(403, "Forbidden"));
  }
  return { session, identity };
}

export function exchangeFor(
  endpoint: Endpoint,
  request: RequestView,
  timeout?: ExchangeTimeout,
): ResponseExchange {
  const { config, logger } = endpoint;
  const accepted = endpoint.accepts(request);
  // Spelled out, not spread: a spread literal's later members take V8's slow path (jsonrpc/shallow-copy.ts).
  const options: ExchangeOptions = {
    json: (config.enableJsonResponse && accepted.json) || !accepted.sse,
    jsonFirst: accepted.json,
    maxResponseBytes: config.maxResponseBytes,
    keepAliveMs: config.keepAliveMs,
    clock: config.clock,
    statusOf: legacyStatus,
    onGone: request.onGone,
    logger,
  };
  if (timeout !== undefined) options.timeout = timeout;
  return new ResponseExchange(options);
}
