import { positiveInteger } from "../jsonrpc/config-check.js";
import { McpkitError } from "../jsonrpc/errors.js";
import { isObject } from "../jsonrpc/message.js";
import type { ResultObject } from "../jsonrpc/pending.js";
import { copyInto, shallowCopy } from "../jsonrpc/shallow-copy.js";
import type { ClientCapabilities, ServerCapabilities } from "../protocol/types/capabilities.js";
import type { Implementation } from "../protocol/types/common.js";
import type { InputRequests, InputResponses } from "../protocol/types/input.js";
import type { SubscriptionFilter } from "../protocol/types/subscriptions.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../protocol/versions.js";
import type { Transport } from "../transports/transport.js";
import { CallbackRunner } from "./callbacks.js";
import { RpcChannel } from "./channel.js";
import { metaOf, withoutMeta } from "./custom.js";
import { Deadline } from "./deadline.js";
import { invokeSafely, routeNotification } from "./inbound.js";
import { InputAnswerer } from "./input-answerer.js";
import { completeInput, type InputLoopConfig, isInputRequiredResult } from "./input-required.js";
import type { InputResolver } from "./input-types.js";
import { negotiate } from "./negotiate.js";
import { NotificationRunner } from "./notification-runner.js";
import { type ClientConfig, checkTimeout, resolveClientOptions } from "./options.js";
import { collectPages, DEFAULT_MAX_ITEMS, DEFAULT_MAX_PAGES } from "./pagination.js";
import { ignore, type ProgressDeadline, progressDeadline } from "./progress-deadline.js";
import { modernNotificationMeta, paramsForEra } from "./request-params.js";
import { checkResult } from "./results.js";
import { ServerRequests } from "./server-requests.js";
import type { ListenOptions, Subscription } from "./subscription-types.js";
import { Subscriptions } from "./subscriptions.js";
import type {
  CallToolOptions,
  ClientOptions,
  ConnectionInfo,
  ListAllOptions,
  RequestOptions,
} from "./types.js";

type State = "new" | "connecting" | "connected" | "closed";

/**
 * The connection engine under {@link Client}: options, the connect ladder, the one-deadline exchange and
 * close. Operations live in `Client`.
 */
export abstract class ClientCore {
  protected readonly config: ClientConfig;
  private readonly channel: RpcChannel;
  private state: State = "new";
  private info: ConnectionInfo | undefined;
  private readonly callbacks: CallbackRunner;
  /** Runs the notification callbacks: bounded concurrency and queue. */
  private readonly notifications: NotificationRunner;
  private readonly input: InputLoopConfig;
  private readonly serverRequests: ServerRequests;
  private readonly subscriptions: Subscriptions;
  private notificationMeta: { [key: string]: unknown } | undefined;
  /** Why the transport ended underneath, when it did. */
  private lost: McpkitError | undefined;

  constructor(options: ClientOptions) {
    this.config = resolveClientOptions(options);
    const { logger, onLog, onNotification, capabilities } = this.config;
    const runner = new NotificationRunner(
      {
        maxConcurrent: this.config.maxConcurrentNotificationCallbacks,
        maxQueued: this.config.maxQueuedNotifications,
        timeoutMs: this.config.callbackTimeoutMs,
      },
      logger,
    );
    this.notifications = runner;
    this.channel = new RpcChannel(
      this.config.transport,
      this.config.maxPendingRequests,
      logger,
      {
        notification: (notification) => {
          if (this.subscriptions.route(notification)) return;
          if (
            notification.method === "notifications/cancelled" &&
            this.serverRequests.cancelled(notification.params)
          )
            return;
          const handler = this.config.notificationHandlers[notification.method];
          if (handler !== undefined) {
            const { method, params } = notification;
            const context = { era: this.info?.era ?? LEGACY_VERSION, method, meta: metaOf(params) };
            runner.run(method, (p: typeof params) => handler(withoutMeta(p), context), params);
            return;
          }
          routeNotification(notification, { onLog, onNotification, logger, runner });
        },
        request: (request) => this.serverRequests.answer(request),
        transportError: (error) => {
          const { onTransportError } = this.config;
          if (onTransportError) invokeSafely(logger, "onTransportError", onTransportError, error);
          else
            logger.warn(`the transport reported: ${error.message}`, { code: error.code, ...error.details });
        },
        closed: (error) => {
          this.state = "closed";
          this.lost = error;
          this.subscriptions.endAll({ reason: "transport_closed", error });
          this.callbacks.close(error);
        },
      },
      runner,
    );
    this.callbacks = new CallbackRunner(this.config.maxConcurrentCallbacks, this.config.callbackTimeoutMs);
    const answerer = new InputAnswerer(this.config.input, this.callbacks, logger);
    this.input = { answerer, capabilities, maxRounds: this.config.maxInputRounds };
    this.serverRequests = new ServerRequests({
      era: () => this.info?.era,
      capabilities,
      answerer,
      logger,
      custom: this.config.requestHandlers,
      callbacks: this.callbacks,
    });
    this.subscriptions = new Subscriptions(this.channel, this.config);
  }

  /**
   * Starts the transport and agrees on an era with the server, all within `connectTimeoutMs` (or until
   * `signal` aborts). Resolves with what was learned; on failure the transport is closed. Call it once.
   *
   * @example
   * const info = await client.connect({ signal: AbortSignal.timeout(5_000) });
   * console.log(info.era, info.serverInfo?.name);
   */
  async connect(options: { signal?: AbortSignal } = {}): Promise<ConnectionInfo> {
    if (this.state !== "new") {
      throw new McpkitError("UNSUPPORTED", "connect() may be called once; create a new Client to reconnect", {
        details: { state: this.state },
      });
    }
    this.state = "connecting";
    const deadline = new Deadline({
      timeoutMs: this.config.connectTimeoutMs,
      signal: options.signal,
      what: "connect",
    });
    try {
      await deadline.race(this.channel.start());
      const info = await negotiate({
        channel: this.channel,
        meta: this.config,
        pinned: this.config.protocolVersion,
        deadline,
        lenient: this.config.versionFallback === "lenient",
        acceptOlderVersions: this.config.acceptOlderVersions,
        probeTimeoutFallsBack: this.config.transport.fallsBackOnProbeTimeout !== false,
      });
      if (this.state !== "connecting") throw this.closedError("the client closed during connect");
      this.info = info;
      this.state = "connected";
      return info;
    } catch (error) {
      this.state = "closed";
      await this.channel.close(new McpkitError("CLOSED", "connect failed", { cause: error })).catch(() => {});
      throw error;
    } finally {
      deadline.dispose();
    }
  }

  /**
   * Closes the transport and fails every pending operation with `McpkitError` `CLOSED`. Idempotent; rejects
   * only when the transport's cleanup failed.
   *
   * @example
   * await client.close();
   */
  close(): Promise<void> {
    this.state = "closed";
    this.subscriptions.endAll({ reason: "client_closed" });
    this.callbacks.close(new McpkitError("CLOSED", "the client was closed"));
    this.notifications.close();
    return this.channel.close(new McpkitError("CLOSED", "the client was closed"));
  }

  /** What `connect()` learned; undefined before. */
  get connection(): ConnectionInfo | undefined {
    return this.info;
  }

  /** The era the connection is pinned to; undefined before `connect()`. */
  get era(): Era | undefined {
    return this.info?.era;
  }

  /** The agreed version string (`2026-07-28`, `2025-11-25`, `2025-06-18`, ...); undefined before `connect()`. */
  get protocolVersion(): string | undefined {
    return this.info?.protocolVersion;
  }

  /** The server's identity, when it sent one. */
  get serverInfo(): Implementation | undefined {
    return this.info?.serverInfo;
  }

  /** @internal The capabilities this client declares. */
  get ownCapabilities(): ClientCapabilities {
    return this.config.capabilities;
  }

  /**
   * @internal Answers a 2026-07-28 task's input requests through the client's resolver or per-kind handlers,
   * under the same bounds as an input round (`INPUT_REQUIRED` without a resolver).
   */
  answerTaskInput(
    requests: InputRequests,
    taskId: string,
    signal?: AbortSignal,
    own?: InputResolver,
  ): Promise<InputResponses> {
    const answerer = own === undefined ? this.input.answerer : this.answererOf(own);
    if (!answerer.configured) {
      return Promise.reject(
        new McpkitError("INPUT_REQUIRED", `task ${taskId} needs input and the client has no resolver`, {
          details: { taskId, inputRequests: requests },
        }),
      );
    }
    return answerer.answer(
      requests,
      { era: MODERN_VERSION, method: "tasks/update", params: { taskId }, round: 1 },
      { signal },
    );
  }

  /** An answerer of one operation's own resolver (`RequestOptions.onInputRequired`), made only when one is given. */
  private answererOf(own: InputResolver): InputAnswerer {
    return new InputAnswerer(
      { onInputRequired: own, onSampling: undefined, onElicitation: undefined, onRoots: undefined },
      this.callbacks,
      this.config.logger,
    );
  }

  /** The server's capabilities; undefined before `connect()`. */
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.info?.capabilities;
  }

  /** The server's instructions for the model, when it sent some. */
  get instructions(): string | undefined {
    return this.info?.instructions;
  }

  /** One operation with one deadline: era-shaped params, the exchange, and the result's shape check. */
  protected send(
    method: string,
    params: { [key: string]: unknown },
    options: RequestOptions = {},
    unresolvedInput: "return" | "throw" = "throw",
  ): Promise<ResultObject> {
    let era: Era;
    let deadline: Deadline;
    try {
      era = this.requireConnected();
      const timeoutMs = checkTimeout("timeoutMs", options.timeoutMs, this.config.requestTimeoutMs);
      if (options.resetTimeoutOnProgress === true || options.maxTotalTimeoutMs !== undefined) {
        deadline = progressDeadline(method, timeoutMs, options, this.config.clock);
        options = { ...options, onProgress: options.onProgress ?? this.config.onProgress ?? ignore };
      } else deadline = new Deadline({ timeoutMs, signal: options.signal, what: method });
    } catch (error) {
      return Promise.reject(error);
    }
    // `exchange` with the deadline's disposal folded into its one `then`: a plain answer (the common case)
    // reaches the caller one hop after it arrives.
    let answer: Promise<ResultObject>;
    try {
      answer = this.requestOnce(era, method, params, options, deadline);
    } catch (error) {
      deadline.dispose();
      return Promise.reject(error);
    }
    return answer.then(
      (raw) => {
        let settled = true;
        try {
          const first = checkResult(method, raw);
          if (era === LEGACY_VERSION || !isInputRequiredResult(first)) return first;
          settled = false;
          return this.inputRounds(era, method, params, options, deadline, unresolvedInput, first).then(
            (result) => {
              deadline.dispose();
              return result;
            },
            (error: unknown) => {
              deadline.dispose();
              throw error;
            },
          );
        } finally {
          if (settled) deadline.dispose();
        }
      },
      (error: unknown) => {
        deadline.dispose();
        throw error;
      },
    );
  }

  /**
   * Sends one notification shaped for the era: in 2026-07-28 its `_meta` gets the client's envelope (protocol
   * version, capabilities, info; the caller's other keys kept), so a dual-era server can tell its era.
   */
  protected sendNotification(method: string, params: { [key: string]: unknown } | undefined): Promise<void> {
    let era: Era;
    try {
      era = this.requireConnected();
    } catch (error) {
      return Promise.reject(error);
    }
    if (era === LEGACY_VERSION) return this.channel.notify(method, params);
    const shaped = shallowCopy(params);
    const meta = shallowCopy(isObject(shaped._meta) ? shaped._meta : undefined);
    copyInto(meta, this.cancelMeta());
    shaped._meta = meta;
    return this.channel.notify(method, shaped);
  }

  /** Fails with `UNSUPPORTED`, sending nothing, unless the connection is in the 2025-11-25 era. */
  protected requireLegacy(method: string): void {
    const era = this.requireConnected();
    if (era !== LEGACY_VERSION) {
      throw new McpkitError("UNSUPPORTED", `${method} does not exist in ${era}`, {
        details: { method, era },
      });
    }
  }

  /** 2026-07-28 only: opens a subscription (see `Client.listenSubscriptions`). */
  protected listen(filter: SubscriptionFilter, options?: ListenOptions): Promise<Subscription> {
    const era = this.requireConnected();
    if (era === LEGACY_VERSION) {
      throw new McpkitError("UNSUPPORTED", `subscriptions/listen does not exist in ${era}`, {
        details: { method: "subscriptions/listen", era },
      });
    }
    return this.subscriptions.listen(filter, options);
  }

  /** Walks every page of a list method under one deadline and the walk's limits. */
  protected async collect<T>(method: string, member: string, options: ListAllOptions): Promise<T[]> {
    const era = this.requireConnected();
    const limits = {
      maxPages: positiveInteger(options.maxPages, DEFAULT_MAX_PAGES, "maxPages"),
      maxItems: positiveInteger(options.maxItems, DEFAULT_MAX_ITEMS, "maxItems"),
    };
    const deadline = new Deadline({
      timeoutMs: checkTimeout("timeoutMs", options.timeoutMs, this.config.requestTimeoutMs),
      signal: options.signal,
      what: `${method} (all pages)`,
    });
    const perPage: RequestOptions = options.meta ? { meta: options.meta } : {};
    try {
      return await collectPages<T>(member, limits, (cursor) =>
        this.exchange(era, method, cursor === undefined ? {} : { cursor }, perPage, deadline),
      );
    } finally {
      deadline.dispose();
    }
  }

  /**
   * One exchange, and in 2026-07-28 the input rounds it asks for, under the operation's one deadline. Chained
   * with `then` rather than nested `async` calls: the answer reaches the caller in fewer hops.
   */
  private exchange(
    era: Era,
    method: string,
    params: { [key: string]: unknown },
    options: RequestOptions,
    deadline: Deadline,
    unresolved: "return" | "throw" = "throw",
  ): Promise<ResultObject> {
    let answer: Promise<ResultObject>;
    try {
      answer = this.requestOnce(era, method, params, options, deadline);
    } catch (error) {
      return Promise.reject(error);
    }
    return answer.then((raw) => {
      const first = checkResult(method, raw);
      if (era === LEGACY_VERSION || !isInputRequiredResult(first)) return first;
      return this.inputRounds(era, method, params, options, deadline, unresolved, first);
    });
  }

  /** The 2026-07-28 input rounds a first answer asked for, under the operation's deadline. */
  private inputRounds(
    era: Era,
    method: string,
    params: { [key: string]: unknown },
    options: RequestOptions,
    deadline: Deadline,
    unresolved: "return" | "throw",
    first: ResultObject,
  ): Promise<ResultObject> {
    const send = (retry: { [key: string]: unknown }) =>
      this.exchangeOnce(era, method, retry, options, deadline);
    const own = options.onInputRequired;
    const input = own === undefined ? this.input : { ...this.input, answerer: this.answererOf(own) };
    return completeInput(first, { method, params, deadline, send, unresolved }, input);
  }

  private async exchangeOnce(
    era: Era,
    method: string,
    params: { [key: string]: unknown },
    options: RequestOptions,
    deadline: Deadline,
  ): Promise<ResultObject> {
    return checkResult(method, await this.requestOnce(era, method, params, options, deadline));
  }

  /** Sends one request shaped for the era; its raw result, unchecked. May throw before sending. */
  private requestOnce(
    era: Era,
    method: string,
    params: { [key: string]: unknown },
    options: RequestOptions,
    deadline: Deadline,
  ): Promise<ResultObject> {
    return this.channel.request(method, paramsForEra(era, this.config, params, options.meta), {
      deadline,
      onProgress: options.onProgress ?? this.config.onProgress,
      onProgressArrived: (deadline as ProgressDeadline).progressed,
      cancelOnAbort: era === LEGACY_VERSION || !cancelsByStream(this.config.transport),
      cancelMeta: era === LEGACY_VERSION ? undefined : this.cancelMeta(),
      toolInputSchema: (options as CallToolOptions).toolInputSchema,
    });
  }

  /** The `_meta` of this client's 2026 notifications, built once (each use copies it). */
  private cancelMeta(): { [key: string]: unknown } {
    this.notificationMeta ??= modernNotificationMeta(this.config);
    return this.notificationMeta;
  }

  private requireConnected(): Era {
    if (this.state === "connected" && this.info) return this.info.era;
    if (this.state === "closed") throw this.closedError("the client is closed");
    throw new McpkitError("CLOSED", "the client is not connected", { details: { state: this.state } });
  }

  /** A `CLOSED` error that, when the transport ended underneath, says why (and keeps it as `cause`). */
  private closedError(message: string): McpkitError {
    const lost = this.lost;
    if (!lost) return new McpkitError("CLOSED", message, { details: { state: this.state } });
    return new McpkitError("CLOSED", `${message}: ${lost.message}`, {
      details: { state: this.state },
      cause: lost,
    });
  }
}

/**
 * A transport that cancels a request by closing its response stream (2026-07-28 Streamable HTTP) says so with
 * `cancelsByStream: true`; on all others (stdio, in-process) the client sends `notifications/cancelled`.
 */
function cancelsByStream(transport: Transport): boolean {
  return (transport as { cancelsByStream?: unknown }).cancelsByStream === true;
}
