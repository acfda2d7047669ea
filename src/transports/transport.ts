import type { JsonRpcMessage } from "../jsonrpc/message.js";

/**
 * Why a transport ended. `error` is set when the end was not asked for (the peer vanished, a frame broke the
 * protocol, cleanup failed).
 */
export interface TransportCloseReason {
  /** What ended it: our own `close()`, the peer, or a failure. */
  kind: "local" | "remote" | "error";
  error?: Error;
}

/** What a transport knows about one inbound message beyond its bytes. */
export interface MessageInfo {
  /**
   * The authenticated principal, set only by a transport from authenticated input (never from headers,
   * arguments or `_meta`).
   */
  identity?: unknown;
}

/** The callbacks a transport's owner gives to `start()`. */
export interface TransportHandlers {
  /** One decoded JSON-RPC message from the peer. */
  message(message: JsonRpcMessage, info?: MessageInfo): void;
  /** Called once, when the transport has ended for good. */
  close(reason: TransportCloseReason): void;
  /**
   * A failure the transport survived but its owner should know about; the transport stays open. Streamable
   * HTTP reports here a 2025-11-25 session's GET stream that gave up for good (`McpkitError` `TRANSPORT`,
   * `details.reason` `"listener_failed"`): server-to-client requests and notifications stop arriving. Never
   * called after `close`. Without it, the transport logs the failure.
   */
  error?(error: Error): void;
  /** The owner's logger, for what the transport drops or survives (a client passes its own). */
  logger?: TransportLogger;
}

/** Where a transport reports what it drops or survives. Never given secrets (tokens, header values). */
export interface TransportLogger {
  /** Something was dropped or survived that the owner should know about. */
  warn(message: string, details?: { [key: string]: unknown }): void;
  /** Detail for debugging; optional. */
  debug?(message: string, details?: { [key: string]: unknown }): void;
}

/** Per-message hints a sender may give; transports use what applies to them and ignore the rest. */
export interface TransportSendOptions {
  /**
   * The operation's end. A transport that cancels by stream (`cancelsByStream`) ends the request's exchange
   * when it aborts; a transport whose `send` waits for the answer stops waiting.
   */
  signal?: AbortSignal;
  /**
   * `tools/call`: the called tool's input schema, passed by the caller. Streamable HTTP mirrors its
   * `x-mcp-header` arguments into `Mcp-Param-*` headers without having listed the tool.
   */
  toolInputSchema?: { readonly [key: string]: unknown };
}

/**
 * A bidirectional JSON-RPC message channel. Every mcpkit client and server connection runs on one.
 *
 * Contract: `start()` once; `send()` resolves once the message is handed to the channel (and rejects with an
 * `McpkitError` of code `CLOSED` after the end); `close()` is idempotent and rejects only when cleanup failed.
 * `handlers.close` fires exactly once, whoever ended the transport.
 *
 * @example
 * const [clientSide, serverSide] = createInProcessPair();
 * await serverSide.start({ message: (m) => console.log(m), close: () => {} });
 */
export interface Transport {
  /**
   * True when the channel cancels a request by ending its response stream (Streamable HTTP in 2026-07-28), so
   * the client must not send `notifications/cancelled`. Absent means false.
   */
  readonly cancelsByStream?: boolean;
  /**
   * Whether a probe that times out may fall back to `initialize` (with `versionFallback: "lenient"` only).
   * Streamable HTTP says `false`: there a server that does not speak 2026-07-28 answers (400, or -32601), so a
   * timeout is an error. Absent means true.
   */
  readonly fallsBackOnProbeTimeout?: boolean;
  /**
   * A server-side transport's launch-static identity: the one it attaches to every inbound message
   * (`MessageInfo.identity`), fixed when it was made (stdio's `identity` option). A server connecting it warns
   * once when its cache defaults are public (see `cache`). Absent: none, or one that varies per message.
   */
  readonly identity?: unknown;
  /** Opens the channel and starts delivering to `handlers`. Called once. */
  start(handlers: TransportHandlers): Promise<void>;
  /**
   * Sends one message. Streamable HTTP resolves once the request's answer has been delivered (or the
   * notification accepted), and rejects with an `McpkitError` when the exchange failed; it may reject a
   * `server/discover` with `VERSION_NEGOTIATION` to say that the answer held no JSON-RPC error (an HTTP 400
   * without one): a fallback signal only to a client with `versionFallback: "lenient"`.
   */
  send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void>;
  /** Ends the channel and releases what it holds. Idempotent. */
  close(): Promise<void>;
}
