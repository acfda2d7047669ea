import { createServer as createNodeServer, type Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createHttpHandler, type HttpHandler } from "../http/server/handler.js";
import type { HttpHandlerOptions } from "../http/server/options.js";
import { nonNegativeInteger, positiveInteger } from "../jsonrpc/config-check.js";
import { McpkitError } from "../jsonrpc/errors.js";
import { Server } from "../server/port.js";
import { type FetchHandler, toNodeHandler } from "./adapter.js";

/** Options of {@link serve}. */
export interface ServeOptions {
  /**
   * Interface to listen on (default `127.0.0.1`: loopback only). A public one (`0.0.0.0`) also needs the
   * handler's `allowedHosts` to name the public host: other Hosts get 403.
   */
  host?: string;
  /** Port (default 0: any free port; read the chosen one from `url`). */
  port?: number;
  /** The endpoint path (default `/mcp`); other paths answer 404. */
  path?: string;
  /**
   * More paths the handler answers besides `path`, such as the well-known paths of Protected Resource Metadata
   * (mcpkit/auth's `protectedResourceMetadata(...).paths`, answered by its `handle` in front of the MCP handler).
   */
  extraPaths?: readonly string[];
  /** Options of the handler `serve` builds when given a {@link Server}. */
  handler?: HttpHandlerOptions;
  /** Bounds on slow or idle clients (see {@link ServeTimeouts}; each field has a default). */
  timeouts?: ServeTimeouts;
}

/**
 * How long `serve` waits on a client, in milliseconds (0 turns a bound off). They bound receiving a request:
 * once a request has arrived whole, its answer (a long SSE or `subscriptions/listen` stream) is not cut.
 */
export interface ServeTimeouts {
  /** Time to receive a request's headers (default 10,000): a client that dribbles headers is dropped. */
  headersMs?: number;
  /** Time to receive a whole request, headers and body (default 30,000); then 408 and the socket closes. */
  requestMs?: number;
  /** Idle time allowed between requests on a keep-alive connection (default 5,000). */
  keepAliveMs?: number;
  /** How often the two receive bounds are checked (default 1,000): a stalled client lasts at most this longer. */
  checkIntervalMs?: number;
}

const DEFAULT_TIMEOUTS: Required<ServeTimeouts> = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
  checkIntervalMs: 1_000,
};

function resolveTimeouts(given: ServeTimeouts = {}): Required<ServeTimeouts> {
  const timeouts = { ...DEFAULT_TIMEOUTS };
  for (const [key, value] of Object.entries(given) as [keyof ServeTimeouts, number | undefined][]) {
    const check = key === "checkIntervalMs" ? positiveInteger : nonNegativeInteger;
    timeouts[key] = check(value, timeouts[key], `timeouts.${key}`, "serve option ");
  }
  // node:http requires it: headers arrive within the request's own bound.
  if (timeouts.requestMs > 0 && timeouts.headersMs > timeouts.requestMs) {
    throw new McpkitError("INVALID_CONFIG", "serve option timeouts.headersMs must be at most requestMs", {
      details: { key: "timeouts.headersMs" },
    });
  }
  return timeouts;
}

/** A listening server. */
export interface ServeHandle {
  /** The endpoint's URL, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: string;
  /** The underlying `node:http` server. */
  readonly server: NodeServer;
  /** Stops listening, ends every open request and stream, and closes a handler `serve` built itself. */
  close(): Promise<void>;
}

/**
 * Listens on `node:http` (127.0.0.1, a free port, `/mcp` by default) with an mcpkit server (its handler is
 * built with `options.handler`) or any fetch-style handler. Slow clients are bounded by `options.timeouts`
 * (headers within 10 s, a whole request within 30 s, 5 s idle keep-alive).
 *
 * @example
 * const { url, close } = await serve(server);
 * console.log(`MCP endpoint at ${url}`);
 */
export async function serve(target: Server | FetchHandler, options: ServeOptions = {}): Promise<ServeHandle> {
  const { host = "127.0.0.1", port = 0, path = "/mcp", extraPaths = [] } = options;
  const timeouts = resolveTimeouts(options.timeouts);
  const owned: HttpHandler | undefined =
    target instanceof Server ? createHttpHandler(target, options.handler ?? {}) : undefined;
  if (!owned && options.handler !== undefined) {
    throw new McpkitError("INVALID_CONFIG", "serve option handler applies only when serving a Server", {
      details: { key: "handler" },
    });
  }
  const handler: FetchHandler = owned ?? (target as FetchHandler);
  const listener = toNodeHandler(handler);
  const server = createNodeServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
    },
    (req, res) => {
      const target = req.url ?? "/";
      const query = target.indexOf("?");
      const pathname = query < 0 ? target : target.slice(0, query);
      if (pathname !== path && !extraPaths.includes(pathname)) {
        res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not Found");
        return;
      }
      void listener(req, res);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}${path}`,
    server,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Open SSE streams would hold close() forever: end them (their handlers see the client leave).
      server.closeAllConnections();
      await owned?.close();
      await closed;
    },
  };
}
