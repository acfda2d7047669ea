/**
 * Adapters between mcpkit's {@link Transport} and the `Transport` interface of the official MCP TypeScript SDKs
 * (v1 `@modelcontextprotocol/sdk` and v2 `@modelcontextprotocol/client`/`server`). Both are structural: nothing
 * here imports the official packages, so one adapter serves both SDK generations.
 *
 * - {@link toOfficialTransport} hands an mcpkit transport to an official `Client`/`Server`/`serveStdio`.
 * - {@link fromOfficialTransport} lets an mcpkit client or server run over an official transport (for example
 *   one half of an official `InMemoryTransport.createLinkedPair()`).
 *
 * Put a validating transport (`wrapTransport` / `validatingPair` from `./validating-transport.js`) on the mcpkit
 * side of either adapter and every message is checked against the official schema of its era.
 *
 * @example
 * const pair = validatingPair({ era: "2026-07-28" });
 * await fixtureServer().connect(pair.server);
 * await officialClient.connect(toOfficialTransport(pair.client));
 */
import { McpkitError } from "../../src/jsonrpc/errors.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/message.js";
import { isObject } from "../../src/jsonrpc/message.js";
import type {
  MessageInfo,
  Transport,
  TransportCloseReason,
  TransportHandlers,
} from "../../src/transports/transport.js";

/**
 * What an official SDK transport looks like from outside, for both v1 and v2. Only `start`, `send` and `close`
 * are required; the callbacks are plain properties that the SDK assigns (and v2 reassigns during its
 * `server/discover` probe window).
 */
export interface OfficialTransport {
  start(): Promise<void>;
  send(message: unknown, options?: unknown): Promise<void>;
  close(): Promise<void>;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: unknown, extra?: unknown) => void) | undefined;
  setProtocolVersion?: ((version: string) => void) | undefined;
  setSupportedProtocolVersions?: ((versions: string[]) => void) | undefined;
}

/**
 * An official transport as {@link fromOfficialTransport} accepts it. The callback parameters are `never` so
 * that both v1's generic `onmessage` and v2's `(message: JSONRPCMessage, extra?) => void` fit.
 */
export interface OfficialTransportLike {
  start(): Promise<void>;
  send(message: never, options?: never): Promise<void>;
  close(): Promise<void>;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: never, extra?: never) => void) | undefined;
}

/** Our transport seen through the official interface. */
export class OfficialTransportAdapter implements OfficialTransport {
  // Plain writable own properties: the SDKs assign them, v2 rewrites them (and `start`) on the instance.
  onclose: (() => void) | undefined = undefined;
  onerror: ((error: Error) => void) | undefined = undefined;
  onmessage: ((message: unknown, extra?: unknown) => void) | undefined = undefined;
  /** The version the official side told us it negotiated (`setProtocolVersion`), for assertions. */
  protocolVersion: string | undefined;
  /** The versions an official v2 peer announced at connect (`setSupportedProtocolVersions`). */
  supportedProtocolVersions: string[] | undefined;
  /** How our transport ended, once it has. */
  closeReason: TransportCloseReason | undefined;
  private started = false;
  private ended = false;

  // No `sessionId` (both official clients skip the handshake when it is set) and no `stderr`/`pid` (v2 would
  // then treat this as a stdio transport, whose probe timeout falls back instead of failing).
  constructor(readonly inner: Transport) {}

  async start(): Promise<void> {
    if (this.started) throw new Error("official-bridge: start() called twice");
    this.started = true;
    await this.inner.start({
      // Read `this.onmessage` at delivery time, never captured at start: v2 swaps it after its probe window.
      message: (message, info) => {
        if (info?.identity !== undefined) this.onmessage?.(message, { authInfo: info.identity });
        else this.onmessage?.(message);
      },
      close: (reason) => {
        if (this.ended) return;
        this.ended = true;
        this.closeReason = reason;
        if (reason.error) this.onerror?.(reason.error);
        this.onclose?.();
      },
    });
  }

  send(message: unknown, _options?: unknown): Promise<void> {
    if (!isObject(message)) {
      return Promise.reject(new TypeError("official-bridge: a message must be an object"));
    }
    return this.inner.send(message as unknown as JsonRpcMessage);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.supportedProtocolVersions = [...versions];
  }
}

/**
 * Wraps an mcpkit transport in the official `Transport` interface: `start`/`send`/`close` and the
 * `onmessage`/`onclose`/`onerror` properties. `onclose` fires once, whoever ended the transport (an end with an
 * error reports it through `onerror` first); an mcpkit `identity` arrives as `extra.authInfo`.
 */
export function toOfficialTransport(ours: Transport): OfficialTransportAdapter {
  return new OfficialTransportAdapter(ours);
}

/** An official transport seen through mcpkit's {@link Transport} contract. */
export class McpkitTransportAdapter implements Transport {
  private handlers: TransportHandlers | undefined;
  private closing = false;
  /** The official side fired `onclose` (its end may still be queued behind earlier deliveries). */
  private innerClosed = false;
  private ended = false;
  private lastError: Error | undefined;
  /** Deliveries in order: messages and the close travel the same queue, so none is seen after the close. */
  private queue: Promise<void> = Promise.resolve();

  constructor(readonly inner: OfficialTransportLike) {}

  async start(handlers: TransportHandlers): Promise<void> {
    if (this.handlers) throw new McpkitError("PROTOCOL", "transport already started");
    this.handlers = handlers;
    const inner = this.inner as OfficialTransport;
    // The official in-memory pair delivers synchronously inside the peer's send(); mcpkit expects a send
    // never to re-enter the sender's stack, so each delivery is deferred to a microtask, in order.
    inner.onmessage = (message, extra) => {
      const info = messageInfo(extra);
      this.defer(() => {
        if (!this.ended) handlers.message(message as JsonRpcMessage, info);
      });
    };
    inner.onerror = (error) => {
      this.lastError = error;
    };
    // The official in-memory close() fires onclose on both sides (v1: on every call), so "who closed" is ours
    // to track.
    inner.onclose = () => {
      this.innerClosed = true;
      const reason: TransportCloseReason = this.closing
        ? { kind: "local" }
        : this.lastError
          ? { kind: "error", error: this.lastError }
          : { kind: "remote" };
      this.defer(() => this.end(reason));
    };
    await this.inner.start();
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (this.closing || this.ended) throw new McpkitError("CLOSED", "transport is closed");
    try {
      await this.inner.send(message as never);
    } catch (error) {
      // The official pair refuses a send once the peer has closed: that is our CLOSED; anything else is a
      // transport failure.
      if (this.innerClosed) throw new McpkitError("CLOSED", "transport is closed", { cause: error });
      throw new McpkitError("TRANSPORT", "the official transport failed to send", { cause: error });
    }
  }

  async close(): Promise<void> {
    if (this.closing || this.ended) return;
    this.closing = true;
    try {
      await this.inner.close();
    } finally {
      // The official close() fires onclose; if it did not (or not yet), end here all the same.
      await this.queue;
      this.end({ kind: "local" });
    }
  }

  private defer(step: () => void): void {
    // A throwing handler must not stall the queue; its error still surfaces as an uncaught exception.
    this.queue = this.queue.then(step).catch((error: unknown) => {
      queueMicrotask(() => {
        throw error;
      });
    });
  }

  private end(reason: TransportCloseReason): void {
    if (this.ended) return;
    this.ended = true;
    this.handlers?.close(reason);
  }
}

/**
 * Wraps an official transport (v1 or v2; typically one half of `InMemoryTransport.createLinkedPair()`) in
 * mcpkit's {@link Transport} contract: deliveries are asynchronous and ordered, `handlers.close` fires once
 * with `local`/`remote`/`error`, `send` after the end rejects with `McpkitError` `CLOSED`, and `close()` is
 * idempotent. The official `extra.authInfo` arrives as `info.identity`.
 */
export function fromOfficialTransport(theirs: OfficialTransportLike): McpkitTransportAdapter {
  return new McpkitTransportAdapter(theirs);
}

function messageInfo(extra: unknown): MessageInfo | undefined {
  if (!isObject(extra) || extra.authInfo === undefined) return undefined;
  return { identity: extra.authInfo };
}
