import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import { isObject, type JsonRpcRequest, type RequestId } from "../jsonrpc/message.js";
import type { ClientCapabilities } from "../protocol/types/capabilities.js";
import type { InputRequest } from "../protocol/types/input.js";
import { type Era, LEGACY_VERSION } from "../protocol/versions.js";
import type { CallbackRunner } from "./callbacks.js";
import { metaOf, type ServerRequestCallback, withoutMeta } from "./custom.js";
import type { InputAnswerer } from "./input-answerer.js";
import { INPUT_METHODS, inputProblem } from "./input-checks.js";
import type { ClientLogger } from "./types.js";

/** The answer to one server-to-client request; `undefined` sends nothing (the server cancelled it). */
export type ServerRequestAnswer =
  | { result: { [key: string]: unknown } }
  | { error: { code: number; message: string; data?: unknown } };

/** What {@link ServerRequests} needs from the client. */
export interface ServerRequestsDeps {
  /** The connection's era; undefined before `connect()` settles it. */
  era(): Era | undefined;
  capabilities: ClientCapabilities;
  answerer: InputAnswerer;
  logger: ClientLogger;
  /** Callbacks of custom server requests, by method, and the runner that bounds them. */
  custom: { readonly [method: string]: ServerRequestCallback };
  callbacks: CallbackRunner;
}

/**
 * Answers the server's requests to the client. 2025-11-25: `ping` gets `{}`; `sampling/createMessage`,
 * `elicitation/create` and `roots/list` go to the client's {@link InputAnswerer} (a one-entry map keyed by the
 * request id) when the client declared the capability (otherwise -32601, and -32602 for a use of it that
 * needs an undeclared sub-capability, without calling anything). A callback that throws, hangs past
 * `callbackTimeoutMs`, finds no free slot, or answers badly gets -32603 (a thrown `JsonRpcError` is sent as
 * is); a `notifications/cancelled` from the server aborts the callback's signal and no answer is sent. A
 * custom method with a `requestHandlers` callback runs under the same bounds; any other method gets -32601.
 * 2026-07-28 has no server-to-client requests: everything gets -32601.
 */
export class ServerRequests {
  private readonly inFlight = new Map<RequestId, AbortController>();

  constructor(private readonly deps: ServerRequestsDeps) {}

  /** Answers one request (asynchronously for the input methods). */
  answer(request: JsonRpcRequest): ServerRequestAnswer | Promise<ServerRequestAnswer | undefined> {
    const era = this.deps.era();
    const legacy = era === undefined || era === LEGACY_VERSION;
    if (request.method === "ping" && legacy) return { result: {} };
    const custom = this.deps.custom[request.method];
    if (custom !== undefined && legacy) {
      if (this.inFlight.has(request.id)) return error(ErrorCode.InvalidRequest, "duplicate request id");
      return this.runCustom(request, custom);
    }
    if (!legacy || !INPUT_METHODS.has(request.method)) return methodNotFound(request.method);
    const input = { method: request.method, params: request.params ?? {} };
    const problem = inputProblem(input, this.deps.capabilities);
    if (problem?.kind === "capability") return methodNotFound(request.method, problem.message);
    if (problem !== undefined) return error(ErrorCode.InvalidParams, problem.message);
    if (this.deps.answerer.handlerFor(request.method) === undefined) {
      return methodNotFound(request.method, `the client has no handler for ${request.method}`);
    }
    if (this.inFlight.has(request.id)) return error(ErrorCode.InvalidRequest, "duplicate request id");
    return this.run(request.id, input as InputRequest);
  }

  /**
   * Takes a server `notifications/cancelled` naming one of its requests in progress: aborts its callback and
   * suppresses the answer. Returns false when no such request is in progress.
   */
  cancelled(params: unknown): boolean {
    if (!isObject(params)) return false;
    const id = params.requestId;
    if (typeof id !== "string" && typeof id !== "number") return false;
    const controller = this.inFlight.get(id);
    if (controller === undefined) return false;
    controller.abort(new McpkitError("ABORTED", "the server cancelled its request", { details: { id } }));
    return true;
  }

  private async run(id: RequestId, request: InputRequest): Promise<ServerRequestAnswer | undefined> {
    const controller = new AbortController();
    this.inFlight.set(id, controller);
    const key = String(id);
    const params = request.params ?? {};
    try {
      const responses = await this.deps.answerer.answer(
        { [key]: request },
        { era: LEGACY_VERSION, method: request.method, params, round: 1, serverRequestId: id },
        { signal: controller.signal },
      );
      if (controller.signal.aborted) return undefined;
      const response = responses[key];
      if (response === undefined) {
        this.deps.logger.warn("a client callback left a server request unanswered", {
          method: request.method,
        });
        return error(ErrorCode.InternalError, "client callback gave no answer");
      }
      return { result: response };
    } catch (failure) {
      if (controller.signal.aborted) return undefined;
      return this.failed(request.method, failure);
    } finally {
      this.inFlight.delete(id);
    }
  }

  /** Runs a custom request's callback under the runner's bounds; its object result is the answer. */
  private async runCustom(
    request: JsonRpcRequest,
    callback: ServerRequestCallback,
  ): Promise<ServerRequestAnswer | undefined> {
    const controller = new AbortController();
    const { id, method } = request;
    this.inFlight.set(id, controller);
    try {
      const params = withoutMeta(request.params);
      const meta = metaOf(request.params);
      const result = await this.deps.callbacks.run(
        method,
        (signal) => callback(params, { era: LEGACY_VERSION, method, requestId: id, meta, signal }),
        { signal: controller.signal },
      );
      if (controller.signal.aborted) return undefined;
      if (!isObject(result)) {
        this.deps.logger.warn(`the ${method} callback did not answer with an object`, { result });
        return error(ErrorCode.InternalError, "client callback answered badly");
      }
      return { result };
    } catch (failure) {
      if (controller.signal.aborted) return undefined;
      if (failure instanceof JsonRpcError) return { error: failure.toJSON() };
      return this.failed(method, failure);
    } finally {
      this.inFlight.delete(id);
    }
  }

  private failed(method: string, failure: unknown): ServerRequestAnswer {
    if (failure instanceof McpkitError) {
      if (failure.cause instanceof JsonRpcError) return { error: failure.cause.toJSON() };
      if (failure.code === "TIMEOUT") return error(ErrorCode.InternalError, "client callback timed out");
      if (failure.code === "CAPACITY") {
        return error(ErrorCode.InternalError, failure.message, ...(failure.details ? [failure.details] : []));
      }
      if (failure.code === "CLOSED") return error(ErrorCode.InternalError, "the client is closing");
    }
    try {
      this.deps.logger.warn(`answering ${method} failed`, { error: failure });
    } catch {
      // A logger that throws has nowhere left to report to.
    }
    return error(ErrorCode.InternalError, "client callback failed");
  }
}

function methodNotFound(method: string, why?: string): ServerRequestAnswer {
  return error(
    ErrorCode.MethodNotFound,
    `Method not found: ${method}`,
    ...(why === undefined ? [] : [{ reason: why }]),
  );
}

function error(code: number, message: string, ...data: [] | [unknown]): ServerRequestAnswer {
  return { error: data.length > 0 ? { code, message, data: data[0] } : { code, message } };
}
