import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import { LazyAbort } from "../jsonrpc/lazy-abort.js";
import type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  RequestId,
} from "../jsonrpc/message.js";
import { isObject, isRequest, isResponse } from "../jsonrpc/message.js";
import type { RequestMeta } from "../protocol/request-meta.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../protocol/versions.js";
import type { MessageInfo, Transport, TransportCloseReason } from "../transports/transport.js";
import { errorResponse } from "./core/respond.js";
import type { ServerRuntime } from "./core/runtime.js";
import type { Subscription, SubscriptionChannel } from "./core/subscription.js";
import { serveCustomNotification } from "./custom/dispatch.js";
import { LegacySession } from "./eras/legacy.js";
import { checkModernRequest, hasModernMeta, modernCall, refuseModern, serveModern } from "./eras/modern.js";
import { openSubscription } from "./eras/open-subscription.js";

const SENT: Promise<void> = Promise.resolve();

/**
 * A server bound to one transport (stdio, in-process). The first request that settles the era pins it: a
 * successful `initialize` pins 2025-11-25, a request with valid 2026 `_meta` pins 2026-07-28; afterwards the
 * other era's traffic is refused. In-flight requests are tracked so `notifications/cancelled` aborts them (and
 * ends a `subscriptions/listen` subscription) and a duplicate id is refused. In 2025-11-25 the client's
 * responses to server-to-client requests are routed to the session.
 */
export class ServerConnection {
  private pinned: Era | undefined;
  private legacy: LegacySession | undefined;
  private initializing: Promise<void> | undefined;
  /**
   * The oldest in-flight request, kept out of `inFlight` while it is the only one: one request at a time then
   * costs no map insertion and deletion (a map that goes from one entry to none reallocates its table). Filled
   * only while the map is empty.
   */
  private loneId: RequestId | undefined;
  private lone: LazyAbort | undefined;
  private readonly inFlight = new Map<RequestId, LazyAbort>();
  private isClosed = false;
  private readonly notify = (notification: JsonRpcNotification) => this.send(notification);
  private resolveClosed!: (reason: TransportCloseReason) => void;
  /** Resolves once with the reason the connection ended. */
  readonly closed: Promise<TransportCloseReason>;

  constructor(
    private readonly runtime: ServerRuntime,
    private readonly transport: Transport,
    private readonly onEnd: (connection: ServerConnection) => void,
  ) {
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  /** The era this connection is pinned to, once one is. */
  get era(): Era | undefined {
    return this.pinned;
  }

  /** Starts reading from the transport. */
  async start(): Promise<void> {
    await this.transport.start({
      message: (message, info) => this.receive(message, info),
      close: (reason) => this.end(reason),
    });
  }

  /** Closes the transport; in-flight handlers see their signal fire. Idempotent. */
  async close(): Promise<void> {
    await this.transport.close();
    this.end({ kind: "local" });
  }

  private receive(message: JsonRpcMessage, info: MessageInfo | undefined): void {
    if (this.isClosed) return;
    if (isRequest(message)) this.serve(message, info).catch(this.serveFailed);
    else if (isResponse(message)) {
      if (!this.legacy?.receiveResponse(message)) {
        this.runtime.config.logger.warn("dropped a response to no request", { id: message.id });
      }
    } else this.onNotification(message, info);
  }

  private async serve(request: JsonRpcRequest, info: MessageInfo | undefined): Promise<void> {
    if (this.inFlightAbort(request.id) !== undefined) {
      // `send` never rejects (a failure is logged): nothing to wait for.
      void this.send(
        errorResponse(
          request.id,
          new JsonRpcError(ErrorCode.InvalidRequest, "Invalid Request: duplicate request id"),
          this.pinned,
          this.runtime.config.logger,
        ),
      );
      return;
    }
    // Most requests are neither cancelled nor read their signal: the abort makes its AbortSignal only on use.
    const abort = new LazyAbort();
    if (this.lone === undefined && this.inFlight.size === 0) {
      this.loneId = request.id;
      this.lone = abort;
    } else this.inFlight.set(request.id, abort);
    let subscribed = false;
    try {
      const answer = await this.route(request, info, abort);
      if ("jsonrpc" in answer) {
        // A cancelled request gets no response (the client has already forgotten it).
        // Not awaited: `send` never rejects, and waiting would cost every request a hop.
        if (!abort.aborted) void this.send(answer);
        return;
      }
      // A subscription lives on: cancelling it (or losing the transport) ends it; its end frees the id.
      subscribed = true;
      abort.addEventListener("abort", () => answer.cancel());
      if (abort.aborted) answer.cancel();
      void answer.ended.then(() => this.forget(request.id, abort));
    } finally {
      if (!subscribed) this.forget(request.id, abort);
    }
  }

  private forget(id: RequestId, abort: LazyAbort): void {
    if (this.lone === abort) {
      this.lone = undefined;
      this.loneId = undefined;
    } else if (this.inFlight.get(id) === abort) this.inFlight.delete(id);
  }

  /** The abort of the in-flight request `id`, if there is one. */
  private inFlightAbort(id: RequestId): LazyAbort | undefined {
    if (this.lone !== undefined && this.loneId === id) return this.lone;
    return this.inFlight.size === 0 ? undefined : this.inFlight.get(id);
  }

  /** Routes by the pinned era; once pinned, without an `async` frame (its promise would add hops per request). */
  private route(
    request: JsonRpcRequest,
    info: MessageInfo | undefined,
    signal: LazyAbort,
  ): Promise<JsonRpcResponse | Subscription> {
    if (this.pinned === undefined) return this.routeUnpinned(request, info, signal);
    try {
      const identity = info?.identity;
      if (this.pinned === LEGACY_VERSION) return this.session().handle(request, { identity, signal });
      return this.routeModern(request, identity, signal);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private async routeUnpinned(
    request: JsonRpcRequest,
    info: MessageInfo | undefined,
    signal: LazyAbort,
  ): Promise<JsonRpcResponse | Subscription> {
    const identity = info?.identity;
    // Requests piped right behind an `initialize` wait for it: its outcome decides their era.
    if (this.pinned === undefined && this.initializing && request.method !== "initialize")
      await this.initializing;
    if (this.pinned === LEGACY_VERSION) return this.session().handle(request, { identity, signal });
    const legacyShaped =
      !hasModernMeta(request) && (request.method === "initialize" || request.method === "ping");
    if (this.pinned === undefined && legacyShaped) {
      const handled = this.session().handle(request, { identity, signal });
      if (request.method !== "initialize") return handled;
      const settled = handled.then(() => undefined);
      this.initializing = settled;
      const response = await handled;
      if (this.initializing === settled) this.initializing = undefined;
      if ("result" in response) this.pinned = LEGACY_VERSION;
      return response;
    }
    return this.routeModern(request, identity, signal);
  }

  private routeModern(
    request: JsonRpcRequest,
    identity: unknown,
    signal: LazyAbort,
  ): Promise<JsonRpcResponse | Subscription> {
    let meta: RequestMeta;
    try {
      meta = checkModernRequest(request, this.runtime.config.custom);
    } catch (error) {
      return Promise.resolve(refuseModern(this.runtime, request, error));
    }
    this.pinned = MODERN_VERSION;
    if (request.method === "subscriptions/listen") return this.listen(request, identity, signal, meta);
    return serveModern(this.runtime, request, { identity, signal, notify: this.notify }, meta);
  }

  /**
   * A 2026-07-28 subscription on this connection: its messages go out between the other traffic, each stamped
   * with the listen id. The client ends it with `notifications/cancelled`; an overflow ends it with a
   * `notifications/cancelled` from the server naming the listen id; a graceful end is its `complete` result.
   */
  private async listen(
    request: JsonRpcRequest,
    identity: unknown,
    signal: LazyAbort,
    meta: RequestMeta,
  ): Promise<JsonRpcResponse | Subscription> {
    const channel: SubscriptionChannel = {
      write: (message) => this.transport.send(message),
      end: (reason) => {
        if (reason !== "overflow") return;
        const cancelled: JsonRpcNotification = {
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: request.id, reason: "subscription queue overflow" },
        };
        const hook = this.runtime.config.hooks.notification;
        const call = hook && modernCall(request, meta, { identity });
        void this.send(hook ? hook(cancelled, { era: MODERN_VERSION, call, session: undefined }) : cancelled);
      },
    };
    try {
      return await openSubscription(this.runtime, request, channel, { identity, signal }, meta);
    } catch (error) {
      return errorResponse(request.id, error, MODERN_VERSION, this.runtime.config.logger);
    }
  }

  private onNotification(notification: JsonRpcNotification, info: MessageInfo | undefined): void {
    const params = notification.params;
    const received = this.runtime.config.hooks.received;
    if (received !== undefined) {
      const legacy = this.pinned === LEGACY_VERSION ? this.legacy : undefined;
      if (legacy !== undefined) legacy.noteNotification(notification, info?.identity);
      else {
        const era = this.pinned ?? (hasModernMeta(notification) ? MODERN_VERSION : LEGACY_VERSION);
        received(notification, { era, session: undefined, identity: info?.identity });
      }
    }
    if (notification.method === "notifications/cancelled" && isObject(params)) {
      const id = params.requestId;
      if (typeof id === "string" || typeof id === "number") {
        this.inFlightAbort(id)?.abort(
          new McpkitError("ABORTED", "cancelled by the client", { details: { id } }),
        );
      }
    } else if (notification.method === "notifications/initialized") {
      this.legacy?.markInitialized();
    } else if (this.pinned === LEGACY_VERSION) {
      this.legacy?.receiveNotification(notification, info?.identity);
    } else if (this.pinned === MODERN_VERSION || hasModernMeta(notification)) {
      serveCustomNotification(this.runtime, MODERN_VERSION, notification, info?.identity);
    }
  }

  private session(): LegacySession {
    this.legacy ??= new LegacySession(
      this.runtime,
      (n) => this.send(n),
      (message) => this.transport.send(message),
    );
    return this.legacy;
  }

  /** Sends; a failure is logged, never thrown. Not `async`: one `then` instead of a frame per message. */
  private send(message: JsonRpcMessage): Promise<void> {
    if (this.isClosed) return SENT;
    try {
      return this.transport.send(message).then(undefined, this.sendFailed);
    } catch (error) {
      this.sendFailed(error);
      return SENT;
    }
  }

  /** A guard: `serve` answers every failure itself, but no rejection may go unhandled. */
  private readonly serveFailed = (error: unknown): void => {
    this.runtime.config.logger.error("could not serve a request", error);
  };

  private readonly sendFailed = (error: unknown): void => {
    if (!this.isClosed) this.runtime.config.logger.warn("could not send a message", error);
  };

  private end(reason: TransportCloseReason): void {
    if (this.isClosed) return;
    this.isClosed = true;
    const closedError = new McpkitError("CLOSED", "connection closed", { cause: reason.error });
    const aborts = [...this.inFlight.values()];
    if (this.lone !== undefined) aborts.unshift(this.lone);
    this.lone = undefined;
    this.loneId = undefined;
    this.inFlight.clear();
    for (const abort of aborts) abort.abort(closedError);
    this.legacy?.close();
    this.onEnd(this);
    this.resolveClosed(reason);
  }
}
