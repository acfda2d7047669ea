import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../jsonrpc/message.js";
import type { ServerCapabilities } from "../protocol/types/capabilities.js";
import type { Transport } from "../transports/transport.js";
import { ServerConnection } from "./connection.js";
import type { NotificationSink } from "./context.js";
import { CallbackExecutor } from "./executor.js";
import { LegacySession } from "./legacy.js";
import { type ModernRequestEnv, serveModern } from "./modern.js";
import { buildServerConfig, type ServerConfig, type ServerOptions } from "./options.js";

const LIST_CHANGED = {
  tools: "notifications/tools/list_changed",
  resources: "notifications/resources/list_changed",
  prompts: "notifications/prompts/list_changed",
} as const;

/**
 * An MCP server that speaks both eras. Its configuration is frozen at creation; every connection shares one
 * handler executor (deadline and admission limit).
 *
 * @example
 * const server = createServer({ serverInfo: { name: "demo", version: "1.0.0" }, handler });
 * const [clientTransport, serverTransport] = createInProcessPair();
 * await server.connect(serverTransport);
 */
export class Server {
  private readonly executor: CallbackExecutor;
  private readonly connections = new Set<ServerConnection>();
  private readonly sessionSinks = new Set<NotificationSink>();

  /** @internal Use {@link createServer}. */
  constructor(readonly config: ServerConfig) {
    this.executor = new CallbackExecutor({
      timeoutMs: config.handlerTimeoutMs,
      maxConcurrent: config.maxConcurrentHandlers,
    });
  }

  /** The capabilities this server advertises. */
  get capabilities(): ServerCapabilities {
    return this.config.capabilities;
  }

  /** Handler calls running now, across every connection. */
  get runningHandlers(): number {
    return this.executor.running;
  }

  /** Serves the server on a transport (stdio, in-process) until either side closes it. */
  async connect(transport: Transport): Promise<ServerConnection> {
    const connection = new ServerConnection(this.config, this.executor, transport, (c) =>
      this.connections.delete(c),
    );
    this.connections.add(connection);
    try {
      await connection.start();
    } catch (error) {
      this.connections.delete(connection);
      throw error;
    }
    return connection;
  }

  /**
   * Serves one stateless 2026-07-28 request outside any connection (the HTTP transport's path). Never throws.
   */
  handleModern(request: JsonRpcRequest, env: ModernRequestEnv): Promise<JsonRpcResponse> {
    return serveModern(this.config, this.executor, request, env);
  }

  /** Opens a 2025-11-25 session whose notifications go to `notify` (the HTTP transport's path). */
  createLegacySession(notify: NotificationSink): LegacySession {
    return new LegacySession(this.config, this.executor, notify);
  }

  /**
   * Adds a sink that receives every list-changed notification (the HTTP handler's sessions, which are not
   * connections). Returns the function that removes it.
   */
  addSessionSink(sink: NotificationSink): () => void {
    this.sessionSinks.add(sink);
    return () => {
      this.sessionSinks.delete(sink);
    };
  }

  /**
   * Tells every ready 2025-11-25 session that a list changed. Needs `listChanged` for that family in the
   * options; otherwise nothing is sent.
   */
  async notifyListChanged(family: keyof typeof LIST_CHANGED): Promise<void> {
    if (!this.config.capabilities[family]?.listChanged) return;
    const notification: JsonRpcNotification = { jsonrpc: "2.0", method: LIST_CHANGED[family] };
    await Promise.all([
      ...[...this.connections].map((c) => c.notifySession(notification)),
      ...[...this.sessionSinks].map((sink) => sink(notification)),
    ]);
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.connections].map((c) => c.close()));
  }
}

/**
 * Creates a server from a low-level handler and options. Throws `McpkitError` `INVALID_CONFIG` for bad options
 * or a partial callback family.
 *
 * @example
 * const server = createServer({
 *   serverInfo: { name: "calc", version: "1.0.0" },
 *   handler: {
 *     listTools: () => ({ tools: [{ name: "add", inputSchema: { type: "object" } }] }),
 *     callTool: ({ arguments: a }) => ({ content: [{ type: "text", text: String(Number(a.x) + Number(a.y)) }] }),
 *   },
 * });
 */
export function createServer(options: ServerOptions): Server {
  return new Server(buildServerConfig(options));
}
