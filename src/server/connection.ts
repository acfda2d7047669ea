import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  RequestId,
} from "../jsonrpc/message.js";
import { isObject, isRequest, isResponse } from "../jsonrpc/message.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../protocol/versions.js";
import type { MessageInfo, Transport, TransportCloseReason } from "../transports/transport.js";
import type { CallbackExecutor } from "./executor.js";
import { LegacySession } from "./legacy.js";
import { checkModernRequest, hasModernMeta, serveModern } from "./modern.js";
import type { ServerConfig } from "./options.js";
import { errorResponse } from "./respond.js";

/**
 * A server bound to one transport (stdio, in-process). The first request that settles the era pins it: a
 * successful `initialize` pins 2025-11-25, a request with valid 2026 `_meta` pins 2026-07-28; afterwards the
 * other era's traffic is refused. In-flight requests are tracked so `notifications/cancelled` aborts them and
 * a duplicate id is refused.
 */
export class ServerConnection {
  private pinned: Era | undefined;
  private legacy: LegacySession | undefined;
  private initializing: Promise<void> | undefined;
  private readonly inFlight = new Map<RequestId, AbortController>();
  private isClosed = false;
  private resolveClosed!: (reason: TransportCloseReason) => void;
  /** Resolves once with the reason the connection ended. */
  readonly closed: Promise<TransportCloseReason>;

  constructor(
    private readonly config: ServerConfig,
    private readonly executor: CallbackExecutor,
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

  /** Sends a notification if this is a ready 2025-11-25 session (list-changed and the like). */
  async notifySession(notification: JsonRpcNotification): Promise<void> {
    if (this.pinned === LEGACY_VERSION && this.legacy?.ready && !this.isClosed) await this.send(notification);
  }

  private receive(message: JsonRpcMessage, info: MessageInfo | undefined): void {
    if (this.isClosed) return;
    if (isRequest(message)) void this.serve(message, info);
    else if (isResponse(message))
      this.config.logger.warn("dropped a response to no request", { id: message.id });
    else this.onNotification(message);
  }

  private async serve(request: JsonRpcRequest, info: MessageInfo | undefined): Promise<void> {
    if (this.inFlight.has(request.id)) {
      await this.send(
        errorResponse(
          request.id,
          new JsonRpcError(ErrorCode.InvalidRequest, "Invalid Request: duplicate request id"),
          this.pinned,
          this.config.logger,
        ),
      );
      return;
    }
    const controller = new AbortController();
    this.inFlight.set(request.id, controller);
    try {
      const response = await this.route(request, info, controller.signal);
      // A cancelled request gets no response (the client has already forgotten it).
      if (!controller.signal.aborted) await this.send(response);
    } finally {
      if (this.inFlight.get(request.id) === controller) this.inFlight.delete(request.id);
    }
  }

  private async route(
    request: JsonRpcRequest,
    info: MessageInfo | undefined,
    signal: AbortSignal,
  ): Promise<JsonRpcResponse> {
    const env = { identity: info?.identity, signal };
    // Requests piped right behind an `initialize` wait for it: its outcome decides their era.
    if (this.pinned === undefined && this.initializing && request.method !== "initialize")
      await this.initializing;
    if (this.pinned === LEGACY_VERSION) return this.session().handle(request, env);
    const legacyShaped =
      !hasModernMeta(request) && (request.method === "initialize" || request.method === "ping");
    if (this.pinned === undefined && legacyShaped) {
      const handled = this.session().handle(request, env);
      if (request.method !== "initialize") return handled;
      const settled = handled.then(() => undefined);
      this.initializing = settled;
      const response = await handled;
      if (this.initializing === settled) this.initializing = undefined;
      if ("result" in response) this.pinned = LEGACY_VERSION;
      return response;
    }
    let meta: ReturnType<typeof checkModernRequest>;
    try {
      meta = checkModernRequest(request);
    } catch (error) {
      return errorResponse(request.id, error, MODERN_VERSION, this.config.logger);
    }
    this.pinned = MODERN_VERSION;
    return serveModern(this.config, this.executor, request, { ...env, notify: (n) => this.send(n) }, meta);
  }

  private onNotification(notification: JsonRpcNotification): void {
    const params = notification.params;
    if (notification.method === "notifications/cancelled" && isObject(params)) {
      const id = params.requestId;
      if (typeof id === "string" || typeof id === "number") {
        this.inFlight
          .get(id)
          ?.abort(new McpkitError("ABORTED", "cancelled by the client", { details: { id } }));
      }
    } else if (notification.method === "notifications/initialized") {
      this.legacy?.markInitialized();
    }
  }

  private session(): LegacySession {
    this.legacy ??= new LegacySession(this.config, this.executor, (n) => this.send(n));
    return this.legacy;
  }

  private async send(message: JsonRpcMessage): Promise<void> {
    if (this.isClosed) return;
    try {
      await this.transport.send(message);
    } catch (error) {
      if (!this.isClosed) this.config.logger.warn("could not send a message", error);
    }
  }

  private end(reason: TransportCloseReason): void {
    if (this.isClosed) return;
    this.isClosed = true;
    const closedError = new McpkitError("CLOSED", "connection closed", { cause: reason.error });
    for (const controller of this.inFlight.values()) controller.abort(closedError);
    this.inFlight.clear();
    this.onEnd(this);
    this.resolveClosed(reason);
  }
}
