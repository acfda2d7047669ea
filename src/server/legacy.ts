import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError } from "../jsonrpc/errors.js";
import type { JsonRpcRequest, JsonRpcResponse } from "../jsonrpc/message.js";
import { isObject } from "../jsonrpc/message.js";
import { LEGACY_CLIENT_METHODS } from "../protocol/methods.js";
import { projectResult } from "../protocol/projection.js";
import type { ClientCapabilities } from "../protocol/types/capabilities.js";
import { type Implementation, LOGGING_LEVELS, type LoggingLevel } from "../protocol/types/common.js";
import { LEGACY_VERSION } from "../protocol/versions.js";
import { levelAllows, type NotificationSink, notificationSenders, type RequestContext } from "./context.js";
import { invalidParams, methodNotFound } from "./errors.js";
import type { CallbackExecutor } from "./executor.js";
import { HANDLER_METHODS, invokeHandler } from "./invoke.js";
import type { ServerConfig } from "./options.js";
import { errorResponse, resultResponse } from "./respond.js";

/** What the transport knows about one request of a 2025-11-25 session. */
export interface LegacyRequestEnv {
  identity?: unknown;
  signal?: AbortSignal;
  /** Where this request's progress and log notifications go (default: the session's sink). */
  notify?: NotificationSink;
}

/**
 * One 2025-11-25 session: `initialize`, then `notifications/initialized`, then requests. Holds what the
 * handshake negotiated (client capabilities, log level). Its notifications go to one sink: the connection, or
 * the session's GET stream on HTTP.
 */
export class LegacySession {
  private clientCapabilities: ClientCapabilities = {};
  private clientInfo: Implementation | undefined;
  private logLevel: LoggingLevel | undefined;
  private state: "new" | "initializing" | "ready" = "new";

  constructor(
    private readonly config: ServerConfig,
    private readonly executor: CallbackExecutor,
    private readonly notify: NotificationSink,
  ) {}

  /** True once `initialize` has been answered with a result. */
  get initialized(): boolean {
    return this.state !== "new";
  }

  /** True once the client has sent `notifications/initialized`. */
  get ready(): boolean {
    return this.state === "ready";
  }

  /** Records `notifications/initialized`. */
  markInitialized(): void {
    if (this.state === "initializing") this.state = "ready";
  }

  /** Serves one request of this session. Never throws: every failure is an error response. */
  async handle(request: JsonRpcRequest, env: LegacyRequestEnv): Promise<JsonRpcResponse> {
    try {
      const params = request.params ?? {};
      let result: { [key: string]: unknown };
      if (request.method === "initialize") result = this.initialize(params);
      else if (request.method === "ping") result = {};
      else if (!this.initialized) {
        throw new JsonRpcError(ErrorCode.InvalidRequest, "Invalid Request: session not initialized");
      } else if (request.method === "logging/setLevel") result = this.setLevel(params);
      else if (HANDLER_METHODS.has(request.method)) {
        result = await this.executor.run(
          (signal) => invokeHandler(this.config, request.method, params, this.context(request, env, signal)),
          env.signal,
        );
      } else if (LEGACY_CLIENT_METHODS.has(request.method)) {
        throw methodNotFound(request.method, "not supported by this server");
      } else throw methodNotFound(request.method);
      return resultResponse(
        request.id,
        projectResult(LEGACY_VERSION, request.method, result, {
          cache: this.config.cache,
          serverInfo: this.config.serverInfo,
        }),
      );
    } catch (error) {
      return errorResponse(request.id, error, LEGACY_VERSION, this.config.logger);
    }
  }

  private initialize(params: { [key: string]: unknown }): { [key: string]: unknown } {
    if (this.initialized)
      throw new JsonRpcError(ErrorCode.InvalidRequest, "Invalid Request: already initialized");
    if (typeof params.protocolVersion !== "string") throw invalidParams("protocolVersion must be a string");
    if (!isObject(params.capabilities)) throw invalidParams("capabilities must be an object");
    const info = params.clientInfo;
    if (!isObject(info) || typeof info.name !== "string" || typeof info.version !== "string") {
      throw invalidParams("clientInfo must have string name and version");
    }
    this.clientCapabilities = params.capabilities;
    this.clientInfo = info as Implementation;
    this.state = "initializing";
    // Whatever the client asked for, this server speaks one stateful revision and says so.
    const result: { [key: string]: unknown } = {
      protocolVersion: LEGACY_VERSION,
      capabilities: this.config.capabilities,
      serverInfo: this.config.serverInfo,
    };
    if (this.config.instructions !== undefined) result.instructions = this.config.instructions;
    return result;
  }

  private setLevel(params: { [key: string]: unknown }): { [key: string]: unknown } {
    if (!LOGGING_LEVELS.includes(params.level as LoggingLevel))
      throw invalidParams("level is not a logging level");
    this.logLevel = params.level as LoggingLevel;
    return {};
  }

  private context(request: JsonRpcRequest, env: LegacyRequestEnv, signal: AbortSignal): RequestContext {
    const meta = isObject(request.params?._meta) ? request.params._meta : {};
    return {
      era: LEGACY_VERSION,
      method: request.method,
      requestId: request.id,
      identity: env.identity,
      signal,
      meta,
      clientCapabilities: this.clientCapabilities,
      clientInfo: this.clientInfo,
      ...notificationSenders(
        meta.progressToken,
        (level) => this.logLevel === undefined || levelAllows(this.logLevel, level),
        env.notify ?? this.notify,
        signal,
      ),
    };
  }
}
