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
  start(handlers: TransportHandlers): Promise<void>;
  send(message: JsonRpcMessage): Promise<void>;
  close(): Promise<void>;
}
