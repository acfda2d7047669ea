import { unencodableResponse } from "../jsonrpc/codec.js";
import { McpkitError } from "../jsonrpc/errors.js";
import { jsonCopy } from "../jsonrpc/json-copy.js";
import { isResponse, type JsonRpcMessage } from "../jsonrpc/message.js";
import type { MessageInfo, Transport, TransportCloseReason, TransportHandlers } from "./transport.js";

/** Options for {@link createInProcessPair}. */
export interface InProcessPairOptions {
  /** Identity attached to every message the server side receives, as an authenticating transport would. */
  serverIdentity?: unknown;
  /**
   * Clone each message on delivery (default `true`), so neither side can mutate what the other holds, just as
   * on a real wire. A message that JSON cannot carry (a `BigInt`, a cycle) is refused as on a real wire: `send`
   * rejects, and a response is replaced by a `-32603` `Response could not be encoded` for its id. The metadata
   * that mcpkit repeats in every message (the client's and server's identity, frozen once) is handed on as it
   * is: nobody can change it, so it needs no copy.
   */
  clone?: boolean;
}

/** Settled once: sends chain their delivery on it. */
const SENT: Promise<void> = Promise.resolve();

class InProcessTransport implements Transport {
  peer: InProcessTransport | undefined;
  private handlers: TransportHandlers | undefined;
  private backlog: JsonRpcMessage[] = [];
  private closed = false;

  constructor(
    private readonly info: MessageInfo | undefined,
    private readonly clone: boolean,
  ) {}

  /** The server side's `serverIdentity`, attached to every message it receives. */
  get identity(): unknown {
    return this.info?.identity;
  }

  async start(handlers: TransportHandlers): Promise<void> {
    if (this.handlers) throw new McpkitError("PROTOCOL", "transport already started");
    this.handlers = handlers;
    const queued = this.backlog;
    this.backlog = [];
    for (const message of queued) handlers.message(message, this.info);
  }

  // Not `async`, and delivered on a promise reaction rather than with `queueMicrotask`: Node's `queueMicrotask`
  // makes an `AsyncResource` and a bound function for every call, and an `async` send a promise of its own.
  send(message: JsonRpcMessage): Promise<void> {
    if (this.closed) return Promise.reject(new McpkitError("CLOSED", "transport is closed"));
    const peer = this.peer;
    if (!peer) return Promise.reject(new McpkitError("CLOSED", "transport has no peer"));
    let copy: JsonRpcMessage;
    try {
      copy = this.clone ? jsonCopy(message) : message;
    } catch (error) {
      // A response that cannot be encoded (a BigInt, a cycle) still answers its request, as on a real wire.
      if (isResponse(message) && message.id !== undefined) {
        const answer = unencodableResponse(message.id);
        queueMicrotask(() => peer.deliver(answer));
      }
      return Promise.reject(error);
    }
    // Delivery is asynchronous, as on any real channel: a send never re-enters the sender's stack.
    return SENT.then(() => peer.deliver(copy));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.end({ kind: "local" });
    const peer = this.peer;
    // Like a pipe, what was sent before close() still arrives: the peer ends after the queued deliveries.
    if (peer) queueMicrotask(() => peer.end({ kind: "remote" }));
  }

  /**
   * Hands a message to this side's handlers. A handler's throw is reported as a throwing `queueMicrotask`
   * callback's would be (an uncaught exception), never as a rejection of the sender's `send`.
   */
  private deliver(message: JsonRpcMessage): void {
    if (this.closed) return;
    try {
      if (this.handlers) this.handlers.message(message, this.info);
      else this.backlog.push(message);
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }

  private end(reason: TransportCloseReason): void {
    if (this.closed) return;
    this.closed = true;
    this.backlog = [];
    this.handlers?.close(reason);
  }
}

/**
 * Two linked transports: what one sends, the other receives. Use it to embed a server in the same process as
 * its client, and in tests.
 *
 * @example
 * const [clientTransport, serverTransport] = createInProcessPair();
 * server.connect(serverTransport);
 * const client = new Client({ transport: clientTransport, clientInfo: { name: "me", version: "1.0.0" } });
 * await client.connect();
 */
export function createInProcessPair(
  options: InProcessPairOptions = {},
): [client: Transport, server: Transport] {
  const clone = options.clone ?? true;
  const client = new InProcessTransport(undefined, clone);
  const server = new InProcessTransport(
    options.serverIdentity === undefined ? undefined : { identity: options.serverIdentity },
    clone,
  );
  client.peer = server;
  server.peer = client;
  return [client, server];
}
