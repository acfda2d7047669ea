import { ErrorCode } from "../../jsonrpc/codes.js";
import { McpkitError } from "../../jsonrpc/errors.js";
import type { RequestId } from "../../jsonrpc/message.js";
import { isRequest } from "../../jsonrpc/message.js";
import { McpHeader } from "../../protocol/routing-headers.js";
import { isLegacyVersion } from "../../protocol/versions.js";
import {
  COMPLETE_GRACE_MS,
  clusterOf,
  completeWithin,
  type Server,
  warnPublicCacheWithIdentity,
} from "../../server/port.js";
import { type Answer, toResponse } from "./answer.js";
import { decodeBody } from "./body.js";
import { routeToOwner } from "./cluster-route.js";
import { SessionDirectory } from "./directory.js";
import { acceptedFormatsCache, type Endpoint } from "./endpoint.js";
import { Forwarder } from "./forward.js";
import { legacyDelete, legacyGet, legacyPost } from "./legacy.js";
import { modernPost } from "./modern.js";
import { buildHttpConfig, type HttpHandlerOptions } from "./options.js";
import { HttpRefusal, methodNotAllowed, refusalResponse, textResponse } from "./responses.js";
import { SessionManager } from "./sessions.js";
import { type HttpRequestContext, type RequestView, serveView, webView } from "./view.js";

/**
 * A Web-standard Streamable HTTP endpoint: `(Request) => Promise<Response>`, for any fetch-style runtime (Node
 * through `mcpkit/node`, Hono, Bun, Deno, Workers). Never rejects: every failure is an HTTP answer. The
 * optional `context` tells what the runtime knows beyond the `Request`: the peer's address, by which anonymous
 * legacy sessions are counted (`sessions.maxSessionsPerAddress`); `mcpkit/node` passes it itself.
 */
export interface HttpHandler {
  (request: Request, context?: HttpRequestContext): Promise<Response>;
  /** Legacy 2025-11-25 sessions open now. */
  readonly sessionCount: number;
  /** 2026-07-28 `subscriptions/listen` streams open now on this handler. */
  readonly subscriptionCount: number;
  /**
   * Resolves once this handler and its server are on the `cluster` bus (at once without a cluster): requests
   * forwarded to it and notifications published elsewhere reach it from then on.
   */
  readonly clusterReady: Promise<void>;
  /**
   * Closes every legacy session (aborting its requests, ending its GET stream) and ends every listen stream
   * gracefully (its `complete` result, then the end of the stream; at most 5 s are spent waiting for slow
   * readers). The handler still serves.
   */
  close(): Promise<void>;
}

/**
 * Serves a {@link Server} over Streamable HTTP on one endpoint, both eras: 2026-07-28 stateless POSTs and
 * 2025-11-25 sessions. The pipeline, in order: Host and Origin (403), a POST's `Content-Type` must be
 * `application/json` (415), the body bounded by `maxBodyBytes` (413), JSON decode (400 `-32700`), era selection, message shape and `_meta`, routing headers (400 `-32020`),
 * identity (`authenticate`), `Mcp-Param-*` headers, dispatch. Throws `McpkitError` `INVALID_CONFIG` for bad
 * options.
 *
 * @example
 * const handler = createHttpHandler(server, { authenticate: (request) => users.verify(request) });
 * Bun.serve({ fetch: handler }); // or Deno.serve(handler), app.all("/mcp", (c) => handler(c.req.raw)), serve(handler)
 */
export function createHttpHandler(server: Server, options: HttpHandlerOptions = {}): HttpHandler {
  if (typeof server?.handleModern !== "function" || typeof server.createLegacySession !== "function") {
    throw new McpkitError("INVALID_CONFIG", "createHttpHandler needs an mcpkit Server", {
      details: { key: "server" },
    });
  }
  const config = buildHttpConfig(options);
  const logger = server.config.logger;
  if (config.authenticate !== undefined) {
    warnPublicCacheWithIdentity(server.config, "the HTTP handler's authenticate hook");
  }
  const formats = acceptedFormatsCache();
  const shared = clusterOf(server);
  const directory = shared && new SessionDirectory(shared, logger);
  const forwarder =
    shared &&
    new Forwarder(
      shared.bus,
      (view) => serve(view),
      {
        ackMs: config.cluster.forwardAckMs,
        headMs: config.legacySseTimeoutMs + FORWARD_GRACE_MS,
        idleMs:
          (config.keepAliveMs > 0 ? 2 * config.keepAliveMs : config.legacySseTimeoutMs) + FORWARD_GRACE_MS,
      },
      logger,
    );
  const endpoint: Endpoint = {
    server,
    config,
    logger,
    sessions: new SessionManager(config.sessions, config.clock, (session) => directory?.forget(session.id)),
    subscriptions: new Set(),
    cluster: directory && forwarder && { directory, forwarder },
    accepts: (request) => formats(request.header("accept")),
  };

  const serve = async (request: RequestView): Promise<Answer> => {
    try {
      // Expiry also runs as requests arrive: on Workers the expiry timers of ended requests never fire.
      endpoint.sessions.sweep();
      return await route(endpoint, request);
    } catch (error) {
      logger.error("the HTTP handler failed", error);
      return refusalResponse(
        { status: 500, code: ErrorCode.InternalError, message: "Internal error" },
        undefined,
      );
    }
  };
  const handler = async (request: Request, context?: HttpRequestContext): Promise<Response> =>
    toResponse(await serve(webView(request, context)));
  Object.defineProperty(handler, "sessionCount", {
    get: () => {
      endpoint.sessions.sweep();
      return endpoint.sessions.size;
    },
    enumerable: true,
  });
  Object.defineProperty(handler, "subscriptionCount", {
    get: () => endpoint.subscriptions.size,
    enumerable: true,
  });
  Object.defineProperty(handler, serveView, { value: serve });
  const ready = Promise.all([server.clusterReady, forwarder?.joined]).then(() => {});
  Object.defineProperty(handler, "clusterReady", { get: () => ready, enumerable: true });
  return Object.assign(handler, {
    close: async () => {
      endpoint.sessions.closeAll("the handler closed");
      await completeWithin([...endpoint.subscriptions], COMPLETE_GRACE_MS);
    },
  }) as HttpHandler;
}

const SESSION_ID = McpHeader.sessionId.toLowerCase();
const utf8 = new TextDecoder();
/** What a forwarded request's relay waits past the owner's own deadlines before it gives up. */
const FORWARD_GRACE_MS = 5_000;
const PROTOCOL_VERSION = McpHeader.protocolVersion.toLowerCase();

async function route(endpoint: Endpoint, request: RequestView): Promise<Answer> {
  const { policy, maxBodyBytes, maxResponseBytes } = endpoint.config;
  // 1. Host and Origin, before anything else reads the request.
  if (!policy.hostAllowed(request.host, request.scheme)) return hostRefused(endpoint, request.host);
  if (!policy.originAllowed(request.header("origin"))) {
    return textResponse(403, "Forbidden: origin not allowed");
  }
  const version = request.header(PROTOCOL_VERSION);
  const legacyHeaders = request.header(SESSION_ID) !== null || isLegacyVersion(version?.trim());
  const method = request.method.toUpperCase();
  if (method === "GET" || method === "DELETE") {
    // 2026-07-28 has neither: no session, no standalone stream.
    if (!legacyHeaders) return methodNotAllowed("POST");
    const owned = await routeToOwner(endpoint, request, null);
    if (owned !== undefined) return owned;
    return answer(
      method === "GET" ? legacyGet(endpoint, request) : legacyDelete(endpoint, request),
      undefined,
      maxResponseBytes,
    );
  }
  if (method !== "POST") return methodNotAllowed(legacyHeaders ? "GET, POST, DELETE" : "POST");
  // A CORS "simple" POST (text/plain, form-encoded, no type) skips the preflight: refuse it unread.
  if (!isJsonMediaType(request.header("content-type"))) {
    return refusalResponse(UNSUPPORTED_MEDIA_TYPE, undefined);
  }
  // 2. The body, bounded while it streams in. 3. JSON decode.
  let bytes: Uint8Array;
  try {
    bytes = await request.body(maxBodyBytes);
  } catch (error) {
    if (error instanceof HttpRefusal) return refusalResponse(error.refusal, undefined);
    // The body stream failed: the client went away mid-upload (aborted, reset). Ordinary, and nobody reads
    // the answer: a trace at debug level, without a stack.
    endpoint.logger.debug?.("a client went away during its upload", { reason: reasonOf(error) });
    return refusalResponse(UNREADABLE_BODY, undefined);
  }
  const decoded = decodeBody(bytes);
  if (!decoded.ok)
    return refusalResponse({ status: 400, ...decoded.error.toJSON() }, decoded.id, maxResponseBytes);
  // 4. Era: legacy for a legacy version header, a session id, or `initialize` without a version header.
  const message = decoded.message;
  const id = isRequest(message) ? message.id : undefined;
  const legacy = legacyHeaders || (isRequest(message) && message.method === "initialize" && version === null);
  if (legacy && endpoint.cluster !== undefined && !(isRequest(message) && message.method === "initialize")) {
    const owned = await answer(
      routeToOwner(endpoint, request, utf8.decode(bytes), message),
      id,
      maxResponseBytes,
    );
    if (owned !== undefined) return owned;
  }
  const flow = legacy ? legacyPost(endpoint, request, message) : modernPost(endpoint, request, message);
  return answer(flow, id, maxResponseBytes);
}

/** The longest Host quoted back in a refusal or a log line: a Host header is the peer's text. */
const MAX_SHOWN_HOST = 100;

/**
 * 403 for a Host outside `allowedHosts`. The body names the Host and the option, so whoever deploys on a public
 * address sees what to set (the server's own log says the same, rate-limited: the line's kind is fixed).
 */
function hostRefused(endpoint: Endpoint, host: string | null): Answer {
  const shown = host === null ? "(none)" : shownHost(host);
  endpoint.logger.warn(
    "refused a request whose Host is not in the HTTP handler's allowedHosts (add the public host name to it)",
    { host: shown },
  );
  return textResponse(
    403,
    `Forbidden: host "${shown}" is not allowed. The server accepts only the hosts of its allowedHosts option ` +
      `(default: loopback names); to serve this name, add it: createHttpHandler(server, { allowedHosts: ["${shown}"] }), ` +
      `or serve(server, { handler: { allowedHosts: [...] } }).`,
  );
}

function shownHost(host: string): string {
  // Printable ASCII only: the text is quoted in a body and a log line.
  const clean = host.replace(/[^\x21-\x7e]/g, "?").replace(/"/g, "?");
  return clean.length > MAX_SHOWN_HOST ? `${clean.slice(0, MAX_SHOWN_HOST)}...` : clean;
}

const UNREADABLE_BODY = {
  status: 400,
  code: ErrorCode.InvalidRequest,
  message: "Invalid Request: the request body could not be read",
} as const;

/** A short reason of a stream error, for a log line: its code (`ECONNRESET`) or message, never its stack. */
function reasonOf(error: unknown): string {
  if (typeof error !== "object" || error === null) return String(error);
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === "string" ? code : typeof message === "string" ? message : "unknown";
}

const UNSUPPORTED_MEDIA_TYPE = {
  status: 415,
  code: ErrorCode.InvalidRequest,
  message: "Unsupported Media Type: Content-Type must be application/json",
} as const;

/** `application/json` in any case, with or without parameters (`; charset=utf-8`). */
function isJsonMediaType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const semicolon = contentType.indexOf(";");
  const type = semicolon < 0 ? contentType : contentType.slice(0, semicolon);
  return type.trim().toLowerCase() === "application/json";
}

/** Turns a refusal thrown by an era flow into its answer, carrying the request id. */
async function answer<T extends Answer | undefined>(
  flow: Promise<T>,
  id: RequestId | undefined,
  maxBytes: number,
): Promise<T | Answer> {
  try {
    return await flow;
  } catch (error) {
    if (!(error instanceof HttpRefusal)) throw error;
    return error.response ?? refusalResponse(error.refusal, id, maxBytes);
  }
}
