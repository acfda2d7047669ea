import type { Clock } from "../jsonrpc/clock.js";
import type { McpkitError } from "../jsonrpc/errors.js";
import type { JsonRpcNotification } from "../jsonrpc/message.js";
import type { ClientCapabilities, ServerCapabilities } from "../protocol/types/capabilities.js";
import type { CacheHints, Implementation, LoggingLevel } from "../protocol/types/common.js";
import type { LoggingMessageParams, ProgressParams } from "../protocol/types/lifecycle.js";
import type { JsonSchemaValidatorFactory } from "../protocol/validation.js";
import type { Era } from "../protocol/versions.js";
import type { Transport } from "../transports/transport.js";
import type { ServerNotificationCallback, ServerRequestCallback } from "./custom.js";
import type { InputOptions, InputResolver } from "./input-types.js";

/**
 * Where the client reports what it drops or survives: malformed or unsolicited messages, and callbacks that
 * threw. Defaults to `console.warn`.
 */
export interface ClientLogger {
  /** Something the client dropped or survived, such as a late answer. */
  warn(message: string, details?: { [key: string]: unknown }): void;
  /** Detail for debugging; optional. */
  debug?(message: string, details?: { [key: string]: unknown }): void;
}

/** A server notification the client has no dedicated callback for (list changes, resource updates, ...). */
export type ServerNotification = Pick<JsonRpcNotification, "method" | "params">;

/**
 * Options of `new Client(...)`. Unknown keys and bad values are rejected with `McpkitError` `INVALID_CONFIG`.
 *
 * @example
 * const client = new Client({
 *   transport,
 *   clientInfo: { name: "my-app", version: "1.0.0" },
 *   requestTimeoutMs: 10_000,
 *   onNotification: (n) => n.method === "notifications/tools/list_changed" && refreshTools(),
 * });
 */
export interface ClientOptions extends InputOptions {
  /** The channel to the server. The client starts it in `connect()` and closes it in `close()`. */
  transport: Transport;
  /** Who this client is: `{ name, version }`. */
  clientInfo: Implementation;
  /** What this client can do (default `{}`). Sent in every 2026 request and in `initialize`. */
  capabilities?: ClientCapabilities;
  /**
   * Pin one era: `"2026-07-28"` sends only `server/discover` and never falls back; `"2025-11-25"` goes straight
   * to `initialize` and never emits 2026 metadata. Absent: prefer 2026-07-28, fall back to 2025-11-25 as
   * `versionFallback` says.
   */
  protocolVersion?: Era;
  /**
   * Which answers to `server/discover` make an unpinned client fall back to `initialize`.
   *
   * - `"strict"` (default): only `-32601` (method not found) and `-32022` naming a 2025 version (also inside an
   *   HTTP 400). Any other error, an HTTP 400 without a JSON-RPC error, or a probe that times out fails
   *   `connect()` with `McpkitError` `VERSION_NEGOTIATION` (or `TIMEOUT`), so an intermediary's error cannot
   *   silently downgrade the connection.
   * - `"lenient"`: also any error that is not a recognized 2026-07-28 error, an HTTP 400 with an empty or
   *   unrecognized body, and (off HTTP) a probe that times out: the spec's era-detection rule, for servers that
   *   answer `server/discover` this way (the official v1 SDK over HTTP answers `400 -32000`).
   *
   * Authentication, TLS, network, size and malformed-answer failures never fall back.
   *
   * @example
   * new Client({ transport, clientInfo, versionFallback: "lenient" });
   */
  versionFallback?: "strict" | "lenient";
  /**
   * Accept a server that answers `initialize` with `2025-06-18` or `2025-03-26` (spoken on the 2025 path with
   * that revision's differences). Default false: such an answer fails `connect()` with `VERSION_NEGOTIATION`.
   *
   * @example
   * new Client({ transport, clientInfo, protocolVersion: "2025-11-25", acceptOlderVersions: true });
   */
  acceptOlderVersions?: boolean;
  /** The default deadline of one operation, in milliseconds (default 30,000). */
  requestTimeoutMs?: number;
  /** The deadline of the whole `connect()`, every negotiation attempt included (default 60,000). */
  connectTimeoutMs?: number;
  /** How many requests may await an answer at once (default 1,024). */
  maxPendingRequests?: number;
  /** 2026-07-28: the log level sent in every request's `_meta`; without it the server sends no log messages. */
  logLevel?: LoggingLevel;
  /**
   * Called for server notifications other than log messages and progress (and those `notificationHandlers`
   * take). Like `onLog` and `onProgress`, it runs within `maxConcurrentNotificationCallbacks` and
   * `maxQueuedNotifications`; it may return a promise.
   */
  onNotification?: (notification: ServerNotification) => void;
  /**
   * 2025-11-25: callbacks answering custom server-to-client requests, by method (core names are refused with
   * `INVALID_CONFIG`). Each runs as the sampling/elicitation/roots callbacks do: at most `maxConcurrentCallbacks`
   * at once, `callbackTimeoutMs` each, aborted when the server cancels. A method without a callback gets
   * `-32601`, as does every server request in 2026-07-28.
   *
   * @example
   * requestHandlers: { "acme/confirm": async ({ action }, { signal }) => ({ accepted: await ask(action, signal) }) }
   */
  requestHandlers?: { [method: string]: ServerRequestCallback };
  /**
   * Callbacks taking server notifications, by method: custom names, and the core list changes, resource updates
   * and elicitation completions (which then no longer reach `onNotification`). Failures are logged.
   *
   * @example
   * notificationHandlers: { "acme/partial": ({ rows }) => table.append(rows) }
   */
  notificationHandlers?: { [method: string]: ServerNotificationCallback };
  /** Called for each `notifications/message`. */
  onLog?: (message: LoggingMessageParams) => void;
  /**
   * Receives the progress of every call that has no `onProgress` of its own. When set, every operation asks
   * the server for progress (a `progressToken` is added).
   */
  onProgress?: (progress: ProgressParams) => void;
  /**
   * Called when the transport reports a failure it survived, e.g. over Streamable HTTP the GET stream of a
   * 2025-11-25 session giving up for good (`McpkitError` `TRANSPORT`, `details.reason` `"listener_failed"`,
   * with `status` or `reconnects`): server-to-client requests and notifications no longer arrive, while calls
   * still work. Default: reported to `logger.warn`.
   */
  onTransportError?: (error: McpkitError) => void;
  /** Where dropped messages and failing callbacks are reported (default `console.warn`). */
  logger?: ClientLogger;
  /**
   * Notification callbacks (`onProgress`, `onLog`, `onNotification`) running at once (default 32). A callback
   * that returns a promise runs until it settles, holding its slot at most `callbackTimeoutMs`. Callbacks start
   * in the order their notifications arrived.
   *
   * @example
   * new Client({ transport, clientInfo, onLog: (m) => db.insert(m), maxConcurrentNotificationCallbacks: 4 });
   */
  maxConcurrentNotificationCallbacks?: number;
  /**
   * Notifications waiting for a callback slot (default 1,024; 0: none waits). One that finds the queue full is
   * dropped, with one `logger.warn` per burst (the count of a burst goes to `logger.debug` once it drained).
   */
  maxQueuedNotifications?: number;
  /**
   * Rate limit of the logger, so that a server cannot drive log volume (default 60,000 ms; 0 logs every line):
   * the first line of a kind is logged, further ones within this interval are only counted, and one line then
   * says how many (`dropped a response for an unknown request id: 9999 more in the last 60 s`). The client
   * passes its limited logger to its transport.
   */
  logIntervalMs?: number;
  /** 2026-07-28: most subscriptions open at once (default 64); one more is refused with `CAPACITY`. */
  maxSubscriptions?: number;
  /** 2026-07-28: the default event queue of a subscription (default 256); see `ListenOptions.queueSize`. */
  subscriptionQueueSize?: number;
  /**
   * Check each `callTool` result's `structuredContent` against the `outputSchema` the tool was listed with
   * (`listTools` / `listAllTools`; at most 1,024 tools remembered, the oldest forgotten first). A mismatch
   * rejects with `McpkitError` `INVALID_RESULT`. Default `false`.
   */
  validateStructuredContent?: boolean;
  /**
   * Compiles output schemas for `validateStructuredContent` (default: `jsonSchemaValidator` of
   * `mcpkit/validation`, loaded on first use).
   */
  jsonSchemaValidator?: JsonSchemaValidatorFactory;
  /**
   * The clock of the client's own waits: the backoff before a subscription listens again (default: the
   * runtime's timers). Tests pass a manual one.
   */
  clock?: Clock;
}

/**
 * Per-call options of every client operation.
 *
 * @example
 * await client.callTool("build", {}, { timeoutMs: 120_000, signal, onProgress: (p) => bar.update(p.progress) });
 */
export interface RequestOptions {
  /** Aborting it rejects the call with `McpkitError` `ABORTED`. */
  signal?: AbortSignal;
  /** This call's deadline in milliseconds (default: the client's `requestTimeoutMs`). */
  timeoutMs?: number;
  /** Asks the server for progress (a `progressToken` is added) and receives it. */
  onProgress?: (progress: ProgressParams) => void;
  /**
   * Each progress notification of this call restarts its `timeoutMs` (default false: `timeoutMs` bounds the
   * whole call, progress or not). A progress token is requested even without `onProgress`. The call then ends
   * with `TIMEOUT` after `timeoutMs` without progress, or after `maxTotalTimeoutMs` in all.
   */
  resetTimeoutOnProgress?: boolean;
  /** With `resetTimeoutOnProgress`: the longest the whole call may take (default: no bound beyond `signal`). */
  maxTotalTimeoutMs?: number;
  /** Extra `_meta` keys such as `traceparent`. Keys the client sets itself win. */
  meta?: { [key: string]: unknown };
  /**
   * 2026-07-28: answers this operation's `input_required` rounds instead of the client's `onInputRequired` or
   * per-kind handlers (the capabilities the client declared still bound what a server may ask). A 2025-11-25
   * server request names no call: it goes to the client's own.
   *
   * @example
   * await client.callTool("deploy", { env: "prod" }, { onInputRequired: (requests) => askThisUser(requests) });
   */
  onInputRequired?: InputResolver;
}

/**
 * Per-call options of `callTool`.
 *
 * @example
 * await client.callTool("search", { region: "eu" }, { toolInputSchema: tool.inputSchema });
 */
export interface CallToolOptions extends RequestOptions {
  /**
   * The tool's input schema, when the caller has it (e.g. from its own cache): Streamable HTTP mirrors its
   * `x-mcp-header` arguments into `Mcp-Param-*` headers from it instead of from the tools it has listed.
   */
  toolInputSchema?: { readonly [key: string]: unknown };
}

/**
 * Bounds and deadline of a `listAll*` walk. The deadline covers every page.
 *
 * @example
 * const tools = await client.listAllTools({ maxPages: 20, timeoutMs: 10_000 });
 */
export interface ListAllOptions {
  /** Most pages to fetch (default 100). */
  maxPages?: number;
  /** Most items to collect (default 100,000). */
  maxItems?: number;
  signal?: AbortSignal;
  /** The deadline of the whole walk (default: the client's `requestTimeoutMs`). */
  timeoutMs?: number;
  /** Extra `_meta` keys sent with every page request. */
  meta?: { [key: string]: unknown };
}

/** What `connect()` learned about the server. */
export interface ConnectionInfo {
  /** The era the connection is pinned to. */
  era: Era;
  /** The version string agreed: `2026-07-28`, or what `initialize` answered (`2025-11-25`, `2025-06-18`, ...). */
  protocolVersion: string;
  /** The server's identity; in 2026 read from the discover result's `_meta`, absent when not sent. */
  serverInfo?: Implementation;
  capabilities: ServerCapabilities;
  instructions?: string;
  /** 2026: the versions `server/discover` listed. */
  supportedVersions?: string[];
  /** 2026: the cache hints of the discover result, as received. Nothing is cached. */
  cache?: Partial<CacheHints>;
}

/** A 2026-07-28 cacheable result's hints, present as the server sent them (absent from 2025 servers). */
export type WithCacheHints<T> = T & Partial<CacheHints>;
