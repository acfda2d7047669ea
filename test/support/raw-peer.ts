import type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  RequestId,
} from "../../src/jsonrpc/message.js";
import type { ServerConnection } from "../../src/server/connection.js";
import type { Server } from "../../src/server/server.js";
import { createInProcessPair } from "../../src/transports/in-process.js";
import type { Transport } from "../../src/transports/transport.js";
import { type ValidatingPair, validatingPair, WireValidator, wrapTransport } from "./validating-transport.js";

/** The 2026-07-28 `_meta` a well-behaved client sends. */
export function modernMeta(extra: { [key: string]: unknown } = {}): { [key: string]: unknown } {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "raw-peer", version: "1.0.0" },
    ...extra,
  };
}

/**
 * A hand-driven JSON-RPC peer for server tests: sends exactly the messages a test writes and records what comes
 * back, so a test can cross rules a real client never would.
 */
export class RawPeer {
  readonly notifications: JsonRpcNotification[] = [];
  /** Server-to-client requests received (2025-11-25 sampling, elicitation, roots), in order. */
  readonly serverRequests: JsonRpcRequest[] = [];
  /**
   * Answers each server-to-client request: return `{ result }` or `{ error }` to send that response, or
   * `undefined` to leave the request unanswered. Without it requests are only recorded.
   */
  answer:
    | ((request: JsonRpcRequest) => ServerRequestReply | undefined | Promise<ServerRequestReply | undefined>)
    | undefined;
  readonly responses = new Map<RequestId, JsonRpcResponse>();
  private waiters = new Map<RequestId, (response: JsonRpcResponse) => void>();
  private nextId = 1;
  closed = false;

  constructor(private readonly transport: Transport) {}

  async start(): Promise<this> {
    await this.transport.start({
      message: (message) => this.receive(message),
      close: () => {
        this.closed = true;
      },
    });
    return this;
  }

  /** Sends a request and waits for its response. */
  request(
    method: string,
    params?: { [key: string]: unknown },
    id: RequestId = this.nextId++,
  ): Promise<JsonRpcResponse> {
    const done = this.waitFor(id);
    const message: JsonRpcMessage =
      params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
    void this.transport.send(message);
    return done;
  }

  /** Sends a 2026-07-28 request with full `_meta` (merged over `metaExtra`). */
  modern(
    method: string,
    params: { [key: string]: unknown } = {},
    metaExtra: { [key: string]: unknown } = {},
  ): Promise<JsonRpcResponse> {
    return this.request(method, { ...params, _meta: modernMeta(metaExtra) });
  }

  /** Runs the 2025-11-25 handshake. */
  async initialize(capabilities: { [key: string]: unknown } = {}): Promise<JsonRpcResponse> {
    const response = await this.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities,
      clientInfo: { name: "raw-peer", version: "1.0.0" },
    });
    await this.notify("notifications/initialized");
    return response;
  }

  notify(method: string, params?: { [key: string]: unknown }): Promise<void> {
    return this.transport.send(
      params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params },
    );
  }

  send(message: JsonRpcMessage): Promise<void> {
    return this.transport.send(message);
  }

  waitFor(id: RequestId): Promise<JsonRpcResponse> {
    const seen = this.responses.get(id);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.set(id, resolve));
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  private async reply(request: JsonRpcRequest): Promise<void> {
    const reply = await this.answer?.(request);
    if (reply === undefined || this.closed) return;
    await this.transport.send({ jsonrpc: "2.0", id: request.id, ...reply } as JsonRpcMessage);
  }

  private receive(message: JsonRpcMessage): void {
    if ("method" in message) {
      if (!("id" in message)) this.notifications.push(message);
      else {
        this.serverRequests.push(message);
        void this.reply(message);
      }
      return;
    }
    if (message.id === undefined) return;
    this.responses.set(message.id, message);
    this.waiters.get(message.id)?.(message);
    this.waiters.delete(message.id);
  }
}

/** What a {@link RawPeer} answers a server-to-client request with. */
export type ServerRequestReply =
  | { result: { [key: string]: unknown } }
  | { error: { code: number; message: string } };

/** The result of a response, or a thrown description of its error. */
export function resultOf(response: JsonRpcResponse): { [key: string]: unknown } {
  if ("error" in response) throw new Error(`expected a result, got error ${JSON.stringify(response.error)}`);
  return response.result;
}

/** The error of a response, or a thrown description of its result. */
export function errorOf(response: JsonRpcResponse): { code: number; message: string; data?: unknown } {
  if (!("error" in response))
    throw new Error(`expected an error, got result ${JSON.stringify(response.result)}`);
  return response.error;
}

/**
 * A server connected to a {@link RawPeer} over a validating in-process pair: every message is checked against
 * the schema of its era. For tests that send invalid requests on purpose, pass `lenient: true`: then only what
 * the server sends is checked.
 */
export async function connectRaw(
  server: Server,
  options: { lenient?: boolean; identity?: unknown } = {},
): Promise<{ peer: RawPeer; connection: ServerConnection; pair: ValidatingPair | undefined }> {
  if (options.lenient) {
    const [client, serverSide] = createInProcessPair({ serverIdentity: options.identity });
    const validator = WireValidator.auto();
    const connection = await server.connect(
      wrapTransport(serverSide, "server", validator, { validate: "outbound" }),
    );
    return { peer: await new RawPeer(client).start(), connection, pair: undefined };
  }
  const pair = validatingPair({ serverIdentity: options.identity });
  const connection = await server.connect(pair.server);
  return { peer: await new RawPeer(pair.client).start(), connection, pair };
}
