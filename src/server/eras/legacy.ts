import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import type { AbortLike, LazyAbort } from "../../jsonrpc/lazy-abort.js";
import { limitDetails, limitMessage } from "../../jsonrpc/limit-error.js";
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../../jsonrpc/message.js";
import { isNotification, isObject } from "../../jsonrpc/message.js";
import { LEGACY_CLIENT_METHODS } from "../../protocol/methods.js";
import { projectResult } from "../../protocol/projection.js";
import type { ClientCapabilities } from "../../protocol/types/capabilities.js";
import { type Implementation, LOGGING_LEVELS, type LoggingLevel } from "../../protocol/types/common.js";
import { LEGACY_VERSION } from "../../protocol/versions.js";
import { levelAllows, type NotificationSink, type RequestContext, requestContext } from "../core/context.js";
import { invalidParams, methodNotFound } from "../core/errors.js";
import { HANDLER_METHODS, invokeHandler } from "../core/invoke.js";
import { limitNotifications } from "../core/notification-caps.js";
import type { PluginCall, PluginData, PluginOutgoing, PluginSession } from "../core/plugin.js";
import { pluginResult } from "../core/plugins.js";
import { errorResponse, isOwnAbort, resultResponse } from "../core/respond.js";
import type { ServerRuntime } from "../core/runtime.js";
import type { CustomRequest } from "../custom/custom.js";
import { invokeCustom, serveCustomNotification } from "../custom/dispatch.js";
import { ClientRequests, type MessageSender } from "../state/client-requests.js";
import type { RoundInput } from "../state/input.js";
import { ask, runLegacyRounds } from "./legacy-input.js";

/** What the transport knows about one request of a 2025-11-25 session. */
export interface LegacyRequestEnv {
  identity?: unknown;
  signal?: AbortLike;
  /** Where this request's progress and log notifications go (default: the session's sink). */
  notify?: NotificationSink;
  /**
   * Where this request's server-to-client requests go (sampling, elicitation, roots), e.g. its own SSE stream
   * on HTTP (default: the session's channel, if it has one).
   */
  send?: MessageSender;
}

type Result = { [key: string]: unknown };

/**
 * One 2025-11-25 session: `initialize`, then `notifications/initialized`, then requests. Holds what the
 * handshake negotiated (client capabilities, log level), its `resources/subscribe` URIs and its pending
 * server-to-client requests. Its notifications go to one sink: the connection, or the session's GET stream on
 * HTTP. A handler's `inputRequired()` becomes real requests to the client (see `runLegacyRounds`).
 */
export class LegacySession implements PluginSession {
  /** The server-to-client requests of this session; the transport routes the client's responses here. */
  readonly clientRequests: ClientRequests;
  private clientCapabilities: ClientCapabilities = {};
  private clientInfo: Implementation | undefined;
  private logLevel: LoggingLevel | undefined;
  private state: "new" | "initializing" | "ready" | "closed" = "new";
  private readonly subscriptions = new Set<string>();
  /** The session's id (what plugins see of it): the transport's (HTTP: its `Mcp-Session-Id`), else a random one. */
  readonly id: string;
  /** Where the session's server-wide notifications go: the sink, behind the `notification` hooks if any. */
  private readonly sessionSink: NotificationSink;

  constructor(
    private readonly runtime: ServerRuntime,
    private readonly sink: NotificationSink,
    /** The session's own channel for server-to-client requests (a connection has one; HTTP sends per request). */
    private readonly send?: MessageSender,
    id?: string,
  ) {
    this.id = id ?? crypto.randomUUID();
    const { hooks } = runtime.config;
    const around = hooks.clientRequest;
    this.clientRequests = new ClientRequests(
      runtime.config.limits.maxClientRequests,
      runtime.config.handlerTimeoutMs,
      around === undefined
        ? undefined
        : (request, origin, send) =>
            around(
              request,
              { era: LEGACY_VERSION, call: origin as PluginCall | undefined, session: this },
              send,
            ),
    );
    this.sessionSink =
      hooks.notification === undefined
        ? sink
        : hooks.notifying(sink, { era: LEGACY_VERSION, call: undefined, session: this });
  }

  /** True once `initialize` has been answered with a result. */
  get initialized(): boolean {
    return this.state !== "new";
  }

  /** True once the client has sent `notifications/initialized` (and the session has not closed). */
  get ready(): boolean {
    return this.state === "ready";
  }

  /** Records `notifications/initialized`. */
  markInitialized(): void {
    if (this.state === "initializing") this.state = "ready";
  }

  /** Ends the session: its pending server-to-client requests fail, it gets no more notifications. */
  close(): void {
    if (this.state === "closed") return;
    const opened = this.state !== "new";
    this.state = "closed";
    this.runtime.sessions.delete(this);
    if (opened) this.runtime.config.hooks.sessionClosed?.(this);
    this.subscriptions.clear();
    this.clientRequests.close();
  }

  /** Routes a client's response to a server-to-client request; false when nothing awaits that id. */
  receiveResponse(response: JsonRpcResponse): boolean {
    return this.clientRequests.receive(response);
  }

  /** Tells the plugins' `received` hooks that the session's client sent `notification` (when some plugin has one). */
  noteNotification(notification: JsonRpcNotification, identity: unknown): void {
    this.runtime.config.hooks.received?.(notification, { era: LEGACY_VERSION, session: this, identity });
  }

  /**
   * Hands a client notification to the server's custom handler of that method (once `initialize` succeeded);
   * false when none takes it.
   */
  receiveNotification(notification: JsonRpcNotification, identity: unknown): boolean {
    if (this.state !== "initializing" && this.state !== "ready") return false;
    return serveCustomNotification(this.runtime, LEGACY_VERSION, notification, identity);
  }

  /** Sends a session-wide notification (list changed) once the session is ready. */
  async notifySession(notification: JsonRpcNotification): Promise<void> {
    if (this.ready) await this.sessionSink(notification);
  }

  /** The same as {@link notifySession} (the session as plugins see it). */
  notify(notification: JsonRpcNotification): Promise<void> {
    return this.notifySession(notification);
  }

  /** Sends `notifications/resources/updated` if this session subscribed to `uri`. */
  async notifyResourceUpdated(uri: string): Promise<void> {
    if (!this.ready || !this.subscriptions.has(uri)) return;
    await this.sessionSink({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } });
  }

  /** Serves one request of this session. Never throws: every failure is an error response. */
  async handle(request: JsonRpcRequest, env: LegacyRequestEnv): Promise<JsonRpcResponse> {
    const { config } = this.runtime;
    const { hooks } = config;
    let call: PluginCall | undefined;
    let response: JsonRpcResponse;
    try {
      const params = request.params ?? {};
      if (hooks.needsCall()) {
        call = this.call(request, env);
        if (hooks.admit !== undefined) await hooks.admit(call);
      }
      let result: Result;
      if (request.method === "initialize") result = this.initialize(params);
      else if (request.method === "ping") result = {};
      else if (!this.initialized) {
        throw new JsonRpcError(ErrorCode.InvalidRequest, "Invalid Request: session not initialized");
      } else if (request.method === "logging/setLevel") result = this.setLevel(params);
      else if (request.method === "resources/subscribe" && config.capabilities.resources?.subscribe) {
        result = this.subscribe(params);
      } else if (request.method === "resources/unsubscribe" && config.capabilities.resources?.subscribe) {
        this.subscriptions.delete(uriOf(params));
        result = {};
      } else if (HANDLER_METHODS.has(request.method)) {
        result = await this.serveHandler(request, params, env, undefined, call);
      } else {
        result = await this.serveOther(request, params, env, call);
      }
      response = resultResponse(
        request.id,
        projectResult(LEGACY_VERSION, request.method, result, config.cache, config.serverInfo),
      );
    } catch (error) {
      response = errorResponse(
        request.id,
        error,
        LEGACY_VERSION,
        isOwnAbort(error, env.signal) ? undefined : config.logger,
      );
    }
    return call === undefined || hooks.response === undefined ? response : hooks.response(response, call);
  }

  /** A plugin's method, else a custom one (`-32601` for a core method nobody serves, or an unknown one). */
  private async serveOther(
    request: JsonRpcRequest,
    params: Result,
    env: LegacyRequestEnv,
    call: PluginCall | undefined,
  ): Promise<Result> {
    const served = this.runtime.config.hooks.method(request.method);
    if (served !== undefined) {
      const base = call ?? this.call(request, env);
      const rounds = {
        capabilities: this.clientCapabilities,
        requests: this.clientRequests,
        send: this.hookedSend(env.send ?? this.send, { era: LEGACY_VERSION, call: base, session: this }),
        signal: env.signal,
        origin: base,
      };
      return pluginResult(
        await served(params, { ...base, signal: env.signal, ask: (requests) => ask(rounds, requests) }),
        request.method,
      );
    }
    if (LEGACY_CLIENT_METHODS.has(request.method)) {
      throw methodNotFound(request.method, "not supported by this server");
    }
    const custom = this.runtime.config.custom.request(LEGACY_VERSION, request.method);
    if (custom === undefined) throw methodNotFound(request.method);
    return this.serveHandler(request, params, env, custom, call);
  }

  /** `send`, the notifications it carries (cancellations of client requests) through the `notification` hooks. */
  private hookedSend(send: MessageSender | undefined, out: PluginOutgoing): MessageSender | undefined {
    const { hooks } = this.runtime.config;
    if (send === undefined || hooks.notification === undefined) return send;
    const notify = hooks.notifying(send, out);
    return (message) => (isNotification(message) ? notify(message) : send(message));
  }

  /** What the plugins' hooks learn about a request of this session. */
  private call(request: JsonRpcRequest, env: LegacyRequestEnv): PluginCall {
    return {
      era: LEGACY_VERSION,
      method: request.method,
      request,
      params: request.params ?? {},
      identity: env.identity,
      clientCapabilities: this.clientCapabilities,
      session: this,
      signal: env.signal,
    };
  }

  /** Serves a handler method, or the custom one `custom`, through the input rounds under the executor. */
  private serveHandler(
    request: JsonRpcRequest,
    params: Result,
    env: LegacyRequestEnv,
    custom: CustomRequest | undefined,
    admitted: PluginCall | undefined,
  ): Promise<Result> {
    const { config, executor } = this.runtime;
    const { hooks } = config;
    // The request's call info, made by handle() when a per-request hook needs it, else on first need here.
    let call = admitted;
    let sink = env.notify ?? this.sink;
    let send = env.send ?? this.send;
    // No call: no plugin with request hooks is awake for this request (see PluginHooks.needsCall).
    if (call !== undefined && hooks.notification !== undefined) {
      const out: PluginOutgoing = { era: LEGACY_VERSION, call, session: this };
      sink = hooks.notifying(sink, out);
      send = this.hookedSend(send, out);
    }
    // One budget for the whole request, across its input rounds.
    const notify = limitNotifications(sink, config.limits, config.logger, request);
    return runLegacyRounds({
      round: (input) =>
        executor.run(async (abort) => {
          const data = call === undefined ? undefined : hooks.context?.(call);
          const context = this.context(request, env, abort, input, notify, send, data, call);
          const answer: unknown = await (custom === undefined
            ? invokeHandler(config, request.method, params, context)
            : invokeCustom(custom, LEGACY_VERSION, params, context));
          if (!hooks.settles(answer)) return answer as Result;
          call ??= this.call(request, env);
          return (await hooks.settle(answer, call, context)) as Result;
        }, env.signal),
      capabilities: this.clientCapabilities,
      requests: this.clientRequests,
      send,
      signal: env.signal,
      origin: call,
      maxRounds: config.limits.maxInputRounds,
    });
  }

  private initialize(params: Result): Result {
    if (this.initialized)
      throw new JsonRpcError(ErrorCode.InvalidRequest, "Invalid Request: already initialized");
    if (typeof params.protocolVersion !== "string") throw invalidParams("protocolVersion must be a string");
    if (!isObject(params.capabilities)) throw invalidParams("capabilities must be an object");
    const info = params.clientInfo;
    if (!isObject(info) || typeof info.name !== "string" || typeof info.version !== "string") {
      throw invalidParams("clientInfo must have string name and version");
    }
    const { config } = this.runtime;
    this.clientCapabilities = params.capabilities;
    this.clientInfo = info as Implementation;
    this.state = "initializing";
    this.runtime.sessions.add(this);
    config.hooks.sessionOpened?.(this);
    // Whatever the client asked for, this server speaks one stateful revision and says so.
    const result: Result = {
      protocolVersion: LEGACY_VERSION,
      capabilities: config.capabilitiesByEra[LEGACY_VERSION],
      serverInfo: config.serverInfo,
    };
    if (config.instructions !== undefined) result.instructions = config.instructions;
    return result;
  }

  private setLevel(params: Result): Result {
    if (!LOGGING_LEVELS.includes(params.level as LoggingLevel))
      throw invalidParams("level is not a logging level");
    this.logLevel = params.level as LoggingLevel;
    return {};
  }

  private subscribe(params: Result): Result {
    const uri = uriOf(params);
    const limit = this.runtime.config.limits.maxSessionSubscriptions;
    if (!this.subscriptions.has(uri) && this.subscriptions.size >= limit) {
      const facts = { option: "maxSessionSubscriptions", limit, size: this.subscriptions.size + 1 };
      throw new JsonRpcError(
        ErrorCode.InternalError,
        limitMessage("Too many resource subscriptions on this session", facts, "subscriptions"),
        limitDetails(facts, { reason: "subscription_limit" }),
      );
    }
    this.subscriptions.add(uri);
    return {};
  }

  private context(
    request: JsonRpcRequest,
    env: LegacyRequestEnv,
    abort: LazyAbort,
    input: RoundInput,
    notify: NotificationSink,
    sender: MessageSender | undefined,
    pluginData: PluginData | undefined,
    origin: PluginCall | undefined,
  ): RequestContext {
    const meta = isObject(request.params?._meta) ? request.params._meta : {};
    return requestContext(
      {
        era: LEGACY_VERSION,
        request,
        identity: env.identity,
        meta,
        clientCapabilities: this.clientCapabilities,
        clientInfo: this.clientInfo,
        input,
        pluginData,
        origin,
        clientRequests: this.clientRequests,
        sender,
      },
      abort,
      meta.progressToken,
      (level) => this.logLevel === undefined || levelAllows(this.logLevel, level),
      notify,
    );
  }
}

function uriOf(params: Result): string {
  if (typeof params.uri !== "string") throw invalidParams("uri must be a string");
  return params.uri;
}
