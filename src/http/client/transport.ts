import { isClock } from "../../jsonrpc/clock.js";
import { utf8Length } from "../../jsonrpc/codec.js";
import { ErrorCode } from "../../jsonrpc/codes.js";
import { checkKeys, optionError } from "../../jsonrpc/config-check.js";
import { McpkitError } from "../../jsonrpc/errors.js";
import { type AbortLike, abortOf } from "../../jsonrpc/lazy-abort.js";
import { limitError } from "../../jsonrpc/limit-error.js";
import {
  isNotification,
  isObject,
  isRequest,
  isResponse,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from "../../jsonrpc/message.js";
import { copyInto } from "../../jsonrpc/shallow-copy.js";
import { MetaKey } from "../../protocol/meta.js";
import { revisionTraits } from "../../protocol/revisions.js";
import {
  type HeaderParam,
  headerParamsOf,
  McpHeader,
  routingHeaders,
} from "../../protocol/routing-headers.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../protocol/versions.js";
import type {
  Transport,
  TransportHandlers,
  TransportLogger,
  TransportSendOptions,
} from "../../transports/transport.js";
import { errorOf, readJsonAnswer, readStreamAnswer } from "./answer.js";
import { isAuthProvider } from "./auth-provider.js";
import { httpStackOf } from "./fetch.js";
import { checkExtraHeaders } from "./headers.js";
import { transportLoggers } from "./loggers.js";
import { KNOWN_KEYS, type StreamableHttpClientOptions } from "./options.js";
import { checkEndpointUrl, type HttpClientSecurityPolicy, httpClientPolicy } from "./policy.js";
import { HttpRequester, type OpenResponse } from "./requester.js";
import { failureDetails, LegacySession } from "./session.js";
import { statusError } from "./status-error.js";
import { ToolSchemaIndex } from "./tool-schema-index.js";

export type { StreamableHttpClientOptions } from "./options.js";

/** Pages of `tools/list` fetched to refresh the tool schemas after a `-32020` on an `Mcp-Param-*` header. */
export const MAX_REFRESH_PAGES = 32;

/** How one outgoing message travels: which revision's headers it gets. */
type Wire =
  | { kind: "modern"; version: string }
  | { kind: "legacy" }
  | { kind: "initialize" }
  | { kind: "plain" };

/**
 * The client side of Streamable HTTP, for both eras, on the platform's `fetch` (no Node API).
 *
 * - **2026-07-28**: every request is one POST with `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and
 *   `Mcp-Param-*` headers (base64 sentinel for unsafe values); JSON and SSE answers, SSE read as it streams.
 *   A request is cancelled by closing its response stream (`cancelsByStream`), never by
 *   `notifications/cancelled`. `tools/list` results lose the tools whose `x-mcp-header` annotations are
 *   invalid (with a warning) and feed a bounded index that drives the `Mcp-Param-*` headers; a `-32020` about
 *   such a header refreshes `tools/list` once and retries the call once, inside the call's deadline.
 * - **2025-11-25** (and servers that answer `initialize` with 2025-06-18 or 2025-03-26): `Mcp-Session-Id`, a
 *   GET stream delivering server requests and notifications, one re-initialize and retry on an expired session
 *   (404), resumption of a POST stream that ends early (`Last-Event-ID`, the server's `retry`), and `close()`
 *   stops the GET stream, then sends a best-effort DELETE.
 * - **The ladder**: a `server/discover` answered with a 400 that carries no JSON-RPC error rejects with
 *   `VERSION_NEGOTIATION` (`reason: "discover_refused"`), which the client's `versionFallback: "lenient"` takes
 *   as a fallback signal (the default, strict, does not); authentication, TLS, timeout, overflow and malformed
 *   answers reject with errors that never fall back.
 *
 * `send()` of a request resolves once its answer was delivered, and rejects with an `McpkitError` when the
 * exchange failed. Every limit and timeout is the policy's.
 *
 * @example
 * const transport = new StreamableHttpClientTransport({
 *   url: "https://mcp.example.com/mcp",
 *   auth: async () => ({ authorization: `Bearer ${await tokens.current()}` }),
 * });
 * const client = new Client({ transport, clientInfo: { name: "app", version: "1.0.0" } });
 * await client.connect();
 */
export class StreamableHttpClientTransport implements Transport {
  readonly cancelsByStream = true;
  readonly fallsBackOnProbeTimeout = false;
  /** The checked policy in force. */
  readonly policy: HttpClientSecurityPolicy;
  private readonly requester: HttpRequester;
  private readonly tools: ToolSchemaIndex;
  private readonly session: LegacySession;
  private readonly closer = new AbortController();
  private readonly waiting = new Map<RequestId, (answer: JsonRpcResponse) => void>();
  private readonly ownLogger: TransportLogger | undefined;
  private readonly fallbackLogger: TransportLogger;
  private handlers: TransportHandlers | undefined;
  private closing: Promise<void> | undefined;
  private reinitializing: Promise<void> | undefined;
  private internalIds = 0;

  constructor(options: StreamableHttpClientOptions) {
    if (!isObject(options)) throw invalid("options", "must be an object");
    checkKeys(options, KNOWN_KEYS);
    this.policy = httpClientPolicy(options.policy ?? {});
    const url = checkEndpointUrl(options.url, this.policy);
    const headers = checkExtraHeaders(options.headers, "headers");
    if (options.auth !== undefined && typeof options.auth !== "function")
      throw invalid("auth", "must be a function");
    const provider = options.authProvider;
    if (provider !== undefined && !isAuthProvider(provider))
      throw invalid("authProvider", "must have headers() and onChallenge()");
    if (provider !== undefined && options.auth !== undefined)
      throw invalid("auth", "cannot be used with authProvider");
    const http = httpStackOf(options);
    const loggers = transportLoggers(options.logger, options.logIntervalMs);
    this.ownLogger = loggers.own;
    this.fallbackLogger = loggers.fallback;
    const { auth, clock } = options;
    if (clock !== undefined && !isClock(clock))
      throw invalid("clock", "must have now(), setTimeout() and clearTimeout()");
    this.requester = new HttpRequester(
      url,
      this.policy,
      http,
      headers,
      auth,
      this.closer.signal,
      provider,
      clock,
    );
    this.tools = new ToolSchemaIndex(this.policy.maxToolSchemas);
    this.session = new LegacySession(
      this.requester,
      (message) => this.route(message),
      () => this.logger,
      (error) => this.report(error),
    );
  }

  /** The 2025 session id the server minted; undefined in 2026-07-28 and before `initialize`. */
  get sessionId(): string | undefined {
    return this.session.id;
  }

  /** The revision a 2025 `initialize` agreed (`2025-11-25`, `2025-06-18`, `2025-03-26`); undefined otherwise. */
  get protocolVersion(): string | undefined {
    return this.session.version;
  }

  /** How many tools' `x-mcp-header` annotations are remembered. */
  get knownTools(): number {
    return this.tools.size;
  }

  /** Takes the handlers; no request is sent until the first `send()`. Called once. */
  async start(handlers: TransportHandlers): Promise<void> {
    if (this.handlers) throw new McpkitError("UNSUPPORTED", "the transport was already started");
    if (this.closer.signal.aborted) throw closedError();
    this.handlers = handlers;
  }

  async send(message: JsonRpcMessage, options: TransportSendOptions = {}): Promise<void> {
    if (this.closer.signal.aborted || !this.handlers) throw closedError();
    // The transport's close() ends every request through the requester: no per-send signal is combined.
    const signal = abortOf(options);
    const wire = this.wireOf(message);
    if (isRequest(message)) return this.sendRequest(message, wire, signal, options.toolInputSchema);
    if (wire.kind === "modern" && isNotification(message) && message.method === "notifications/cancelled") {
      // 2026-07-28 over HTTP cancels by closing the response stream; the notification does not exist here.
      this.logger.debug?.("dropped notifications/cancelled: Streamable HTTP in 2026-07-28 cancels by stream");
      return;
    }
    return this.postAccepted(message, wire, signal);
  }

  /** Stops the GET stream, ends every exchange, then ends the session with a best-effort DELETE. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closer.abort(closedError());
      await this.session.stopListening();
      await this.session.end();
      this.requester.shutdown();
      this.handlers?.close({ kind: "local" });
    })();
    return this.closing;
  }

  private get logger(): TransportLogger {
    return this.ownLogger ?? this.handlers?.logger ?? this.fallbackLogger;
  }

  private wireOf(message: JsonRpcMessage): Wire {
    if (this.session.version !== undefined) return { kind: "legacy" };
    if ("method" in message && message.method === "initialize") return { kind: "initialize" };
    const params = "params" in message ? message.params : undefined;
    const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
    const version = meta?.[MetaKey.protocolVersion];
    if (typeof version === "string") return { kind: "modern", version };
    return { kind: "plain" };
  }

  private async sendRequest(
    request: JsonRpcRequest,
    wire: Wire,
    signal: AbortLike | undefined,
    toolInputSchema: TransportSendOptions["toolInputSchema"],
  ): Promise<void> {
    if (wire.kind === "initialize") this.session.initializeParams = request.params;
    let answer = await this.exchange(request, wire, signal, toolInputSchema);
    if (wire.kind === "modern" && request.method === "tools/call" && isParamHeaderMismatch(answer)) {
      await this.refreshTools(request, wire, signal);
      answer = await this.exchange(request, wire, signal, toolInputSchema);
    }
    if (wire.kind === "modern" && request.method === "tools/list") answer = this.admitTools(answer);
    if (wire.kind === "initialize" && "result" in answer) this.adoptVersion(answer.result.protocolVersion);
    this.deliver(answer);
  }

  /** One request's HTTP exchange, with one re-initialize and retry when a 2025 session expired. */
  private async exchange(
    request: JsonRpcRequest,
    wire: Wire,
    signal: AbortLike | undefined,
    toolInputSchema?: TransportSendOptions["toolInputSchema"],
  ): Promise<JsonRpcResponse> {
    const body = this.encode(request);
    for (let attempt = 0; ; attempt++) {
      // Requests of the session wait while an expired one is replaced.
      if (wire.kind === "legacy" && this.reinitializing) await this.reinitializing.catch(() => {});
      const headers = this.postHeaders(request, wire, toolInputSchema);
      headers.accept = ACCEPT_BOTH;
      const sessionId = wire.kind === "legacy" ? this.session.id : undefined;
      const response = await this.requester.open({
        method: "POST",
        kind: request.method === "subscriptions/listen" ? "stream" : "answer",
        headers,
        body,
        mcpMethod: request.method,
        signal,
      });
      if (response.status === 404 && sessionId !== undefined && attempt === 0) {
        response.discard();
        this.logger.debug?.("the session expired (404); initializing a new one", { method: request.method });
        await this.reinitialize(sessionId, signal);
        continue;
      }
      if (wire.kind === "initialize" && response.status >= 200 && response.status < 300) {
        this.session.adopt(response.header(McpHeader.sessionId));
      }
      return this.answerOf(response, request, wire, signal);
    }
  }

  /** Reads the answer to `request` from its response (or from another stream that delivered it first). */
  private async answerOf(
    response: OpenResponse,
    request: JsonRpcRequest,
    wire: Wire,
    signal: AbortLike | undefined,
  ): Promise<JsonRpcResponse> {
    const { status } = response;
    if (status === 401 || status === 403) {
      throw await statusError(response, request.method, status === 401 ? "unauthorized" : "forbidden");
    }
    let elsewhere: JsonRpcResponse | undefined;
    this.waiting.set(request.id, (answer) => {
      elsewhere = answer;
      response.abort(ANSWERED_ELSEWHERE);
    });
    const route = (message: JsonRpcMessage) => this.route(message);
    const allowBatch = wire.kind === "legacy" && this.session.traits.batches;
    try {
      const media = response.mediaType;
      if (media === "text/event-stream" && status >= 200 && status < 300) {
        response.streaming();
        // A listen may run for hours: its events are bounded one by one, never the stream as a whole.
        const outcome = await readStreamAnswer(
          response,
          request.id,
          this.policy.maxSseEventBytes,
          request.method !== "subscriptions/listen",
          route,
        );
        if (outcome.answer) return outcome.answer;
        if (wire.kind !== "modern" && outcome.lastEventId !== undefined && this.session.traits.sessions) {
          const resumed = await this.session.resume(request.id, outcome.lastEventId, outcome.retryMs, signal);
          return resumed as JsonRpcResponse;
        }
        throw new McpkitError(
          "TRANSPORT",
          `the response stream of ${request.method} ended before the answer`,
          {
            details: { reason: "stream_ended" },
          },
        );
      }
      if (media === "application/json" || media.endsWith("+json")) {
        const answer = await readJsonAnswer(response, request.id, allowBatch, route).catch(
          (error: unknown) => {
            // A 400 to the probe whose body is no JSON-RPC error is the sign of a server without 2026-07-28.
            if (
              isDiscoverRefusal(request, wire, status) &&
              error instanceof McpkitError &&
              error.code === "PROTOCOL"
            ) {
              throw discoverRefused(status);
            }
            throw error;
          },
        );
        if (answer) return answer;
      } else if (status >= 300 && !isDiscoverRefusal(request, wire, status)) {
        throw await statusError(response, request.method, "http_status");
      } else {
        response.discard();
      }
      if (isDiscoverRefusal(request, wire, status)) throw discoverRefused(status);
      if (status >= 200 && status < 300) {
        throw new McpkitError(
          "PROTOCOL",
          `the server answered ${request.method} (HTTP ${status}) without a response`,
          {
            details: { reason: "malformed_response", status },
          },
        );
      }
      throw statusFailure(status, request.method, "http_status");
    } catch (error) {
      if (error === ANSWERED_ELSEWHERE && elsewhere) return elsewhere;
      throw error;
    } finally {
      this.waiting.delete(request.id);
    }
  }

  /** POSTs a notification or a response; any 2xx accepts it. */
  private async postAccepted(
    message: JsonRpcMessage,
    wire: Wire,
    signal: AbortLike | undefined,
  ): Promise<void> {
    const method = "method" in message ? message.method : undefined;
    const headers = this.postHeaders(message, wire, undefined);
    headers.accept = ACCEPT_BOTH;
    const response = await this.requester.open({
      method: "POST",
      kind: "prompt",
      headers,
      body: this.encode(message),
      mcpMethod: method,
      signal,
    });
    const { status } = response;
    if (status >= 200 && status < 300) {
      response.discard();
      if (wire.kind === "legacy" && method === "notifications/initialized") this.session.listen();
      return;
    }
    if (status === 401 || status === 403) {
      throw await statusError(
        response,
        method ?? "a response",
        status === 401 ? "unauthorized" : "forbidden",
      );
    }
    if (status === 404 && wire.kind === "legacy" && this.session.id !== undefined) {
      response.discard();
      throw statusFailure(status, method ?? "a response", "session_expired");
    }
    throw await statusError(response, method ?? "a response", "http_status");
  }

  /** The transport's headers of one POST: content type and the revision's MCP headers (a fresh object). */
  private postHeaders(
    message: JsonRpcMessage,
    wire: Wire,
    toolInputSchema: TransportSendOptions["toolInputSchema"],
  ): { [name: string]: string } {
    const headers: { [name: string]: string } = { "content-type": "application/json" };
    // Merged by copying, not by spreads: a spread literal's later members take V8's slow path (shallow-copy.ts).
    if (wire.kind === "legacy") {
      copyInto(headers, this.session.headers());
      return headers;
    }
    if (wire.kind !== "modern" || !("method" in message)) return headers;
    const params = this.paramHeaders(message, toolInputSchema);
    const request = message.params === undefined ? { method: message.method } : message;
    copyInto(headers, routingHeaders(request, wire.version, params));
    return headers;
  }

  /** The `x-mcp-header` annotations of a `tools/call`: the caller's schema, else the index. */
  private paramHeaders(
    message: { method: string; params?: { [key: string]: unknown } },
    toolInputSchema: TransportSendOptions["toolInputSchema"],
  ): readonly HeaderParam[] {
    if (message.method !== "tools/call") return [];
    if (toolInputSchema !== undefined) {
      const found = headerParamsOf(toolInputSchema);
      if (!found.ok) {
        throw new McpkitError(
          "INVALID_CONFIG",
          `toolInputSchema has an invalid x-mcp-header: ${found.problem}`,
          {
            details: { key: "toolInputSchema", reason: "invalid_annotation" },
          },
        );
      }
      return found.params;
    }
    const name = message.params?.name;
    return typeof name === "string" ? (this.tools.params(name) ?? []) : [];
  }

  /**
   * Drops the tools of a `tools/list` answer whose annotations are invalid (one warning per answer, naming the
   * first ten); indexes the rest.
   */
  private admitTools(answer: JsonRpcResponse): JsonRpcResponse {
    if (!("result" in answer) || !Array.isArray(answer.result.tools)) return answer;
    const { tools, dropped } = this.tools.admit(answer.result.tools);
    if (dropped.length > 0) {
      this.logger.warn("dropped tools whose x-mcp-header annotations are invalid", {
        count: dropped.length,
        tools: dropped.slice(0, 10).map((tool) => ({ tool: tool.name, problem: tool.problem })),
      });
    }
    return dropped.length === 0 ? answer : { ...answer, result: { ...answer.result, tools } };
  }

  /** Re-lists the tools (at most {@link MAX_REFRESH_PAGES} pages) to learn their current annotations. */
  private async refreshTools(call: JsonRpcRequest, wire: Wire, signal: AbortLike | undefined): Promise<void> {
    const meta = isObject(call.params?._meta) ? { ...call.params._meta } : {};
    delete meta.progressToken;
    let cursor: string | undefined;
    for (let page = 0; page < MAX_REFRESH_PAGES; page++) {
      const params: { [key: string]: unknown } =
        cursor === undefined ? { _meta: meta } : { _meta: meta, cursor };
      const list: JsonRpcRequest = {
        jsonrpc: "2.0",
        id: this.internalId("tools-refresh"),
        method: "tools/list",
        params,
      };
      const answer = this.admitTools(await this.exchange(list, wire, signal));
      if (!("result" in answer)) {
        this.logger.warn("refreshing tools/list after a header mismatch failed", {
          code: errorOf(answer)?.code,
        });
        return;
      }
      const next = answer.result.nextCursor;
      if (typeof next !== "string" || next === cursor) return;
      cursor = next;
    }
  }

  /** Runs `initialize` again for an expired session (once at a time), then `notifications/initialized`. */
  private reinitialize(expired: string, signal: AbortLike | undefined): Promise<void> {
    if (this.session.id !== expired) return Promise.resolve();
    this.reinitializing ??= (async () => {
      const version = this.session.version;
      const params = this.session.initializeParams;
      void this.session.stopListening();
      this.session.id = undefined;
      if (params === undefined) {
        throw new McpkitError("TRANSPORT", "the session expired and there is no initialize to repeat", {
          details: { reason: "session_expired" },
        });
      }
      const init: JsonRpcRequest = {
        jsonrpc: "2.0",
        id: this.internalId("reinitialize"),
        method: "initialize",
        params,
      };
      const answer = await this.exchange(init, { kind: "initialize" }, signal);
      if (!("result" in answer) || answer.result.protocolVersion !== version) {
        throw new McpkitError("TRANSPORT", "the session expired and initializing a new one failed", {
          details: { reason: "session_expired" },
        });
      }
      await this.postAccepted(
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { kind: "legacy" },
        signal,
      );
    })().finally(() => {
      this.reinitializing = undefined;
    });
    return this.reinitializing;
  }

  private adoptVersion(version: unknown): void {
    if (typeof version === "string" && revisionTraits(version) !== undefined && version !== MODERN_VERSION) {
      this.session.version = version;
    } else if (version === undefined) {
      this.session.version = LEGACY_VERSION;
    }
  }

  /** Hands a message that is not an awaited answer to the client (an answer of another exchange goes there). */
  private route(message: JsonRpcMessage): void {
    if (isResponse(message) && "id" in message && message.id !== undefined) {
      const waiter = this.waiting.get(message.id);
      if (waiter) {
        waiter(message);
        return;
      }
    }
    this.deliver(message);
  }

  /** A failure the transport survives: to the owner's `error` handler, else to the logger. */
  private report(error: McpkitError): void {
    if (this.closer.signal.aborted) return;
    const onError = this.handlers?.error;
    if (onError === undefined) {
      const cause = error.cause === undefined ? {} : { cause: failureDetails(error.cause) };
      this.logger.warn(error.message, { ...error.details, ...cause });
      return;
    }
    try {
      onError(error);
    } catch (thrown) {
      this.logger.warn("the transport's owner failed on an error report", failureDetails(thrown));
    }
  }

  private deliver(message: JsonRpcMessage): void {
    if (this.closer.signal.aborted) return;
    try {
      this.handlers?.message(message);
    } catch (error) {
      this.logger.warn("the transport's owner failed on a message", failureDetails(error));
    }
  }

  private encode(message: JsonRpcMessage): string {
    const body = JSON.stringify(message);
    if (body.length > this.policy.maxRequestBytes && utf8Length(body) > this.policy.maxRequestBytes) {
      const facts = { option: "maxRequestBytes", limit: this.policy.maxRequestBytes, size: utf8Length(body) };
      throw limitError("MESSAGE_TOO_LARGE", "the request", facts, { extra: { reason: "request_too_large" } });
    }
    return body;
  }

  private internalId(what: string): string {
    return `mcpkit-${what}-${++this.internalIds}`;
  }
}

const ACCEPT_BOTH = "application/json, text/event-stream";
/** The abort reason of an exchange whose answer arrived on another stream. */
const ANSWERED_ELSEWHERE = Object.freeze({ answeredElsewhere: true });

/** True for a `-32020` that names an `Mcp-Param-*` header (in `data.header`, or failing that in the message). */
export function isParamHeaderMismatch(answer: JsonRpcResponse): boolean {
  const error = errorOf(answer);
  if (error === undefined || error.code !== ErrorCode.HeaderMismatch) return false;
  const header =
    isObject(error.data) && typeof error.data.header === "string" ? error.data.header : undefined;
  return header !== undefined ? /^mcp-param-/i.test(header) : /mcp-param-/i.test(error.message);
}

function isDiscoverRefusal(request: JsonRpcRequest, wire: Wire, status: number): boolean {
  return wire.kind === "modern" && request.method === "server/discover" && status === 400;
}

function discoverRefused(status: number): McpkitError {
  return new McpkitError(
    "VERSION_NEGOTIATION",
    `the server answered server/discover with HTTP ${status} and no JSON-RPC error`,
    { details: { status, reason: "discover_refused" } },
  );
}

/** A status error whose body was already read (or is not wanted). */
function statusFailure(status: number, method: string, reason: string): McpkitError {
  return new McpkitError("TRANSPORT", `the server answered ${method} with HTTP ${status}`, {
    details: { reason, status },
  });
}

function closedError(): McpkitError {
  return new McpkitError("CLOSED", "the transport is closed");
}

function invalid(key: string, problem: string): McpkitError {
  return optionError(key, problem);
}
