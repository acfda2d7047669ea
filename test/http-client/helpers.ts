/**
 * Shared pieces of the HTTP client tests: an mcpkit client over {@link StreamableHttpClientTransport} whose every
 * JSON-RPC message is checked against the official schema of its era, a logger that records, a scripted
 * `node:http` peer on 127.0.0.1 that records what it was sent, and an HTTP stack that records request headers.
 *
 * Every test here runs on both HTTP stacks of the transport: `fetch` by default, and `nodeHttp()` when
 * `MCPKIT_TEST_HTTP=node` (the `http-client-node` vitest project sets it). {@link stackOptions} gives the
 * transport options of the stack in force.
 *
 * @example
 * const peer = await scripted((req, res) => json(res, 200, { jsonrpc: "2.0", id: req.body.id, result: {} }));
 * const { client } = httpClient(peer.url, { era: "2025-11-25" });
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "../../src/client/client.js";
import type { ClientOptions } from "../../src/client/types.js";
import type { HttpClient } from "../../src/http/client/exchange.js";
import {
  type StreamableHttpClientOptions,
  StreamableHttpClientTransport,
} from "../../src/http/client/transport.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/message.js";
import { nodeHttp } from "../../src/node/http-client.js";
import { useCleanups } from "../support/interop-helpers.js";
import { type WireRecord, wrapTransport } from "../support/validating-transport.js";
import { type Era, WireValidator } from "../support/wire-schema.js";

export const MODERN = "2026-07-28" as const;
export const LEGACY = "2025-11-25" as const;

/** A logger that keeps what it is told. */
export interface RecordingLogger {
  warn(message: string, details?: { [key: string]: unknown }): void;
  debug(message: string, details?: { [key: string]: unknown }): void;
  lines: { level: "warn" | "debug"; message: string; details: unknown }[];
  /** Everything logged, as one string (for "no secret appears" checks). */
  text(): string;
}

export function recordingLogger(): RecordingLogger {
  const lines: RecordingLogger["lines"] = [];
  return {
    lines,
    warn: (message, details) => lines.push({ level: "warn", message, details }),
    debug: (message, details) => lines.push({ level: "debug", message, details }),
    text: () => JSON.stringify(lines),
  };
}

/** One HTTP request a fetch sent, as the server would see its headers (lowercase names). */
export interface SentRequest {
  method: string;
  headers: { [name: string]: string };
  body: JsonRpcMessage | undefined;
}

/** A platform `fetch` that records every request it sends. */
export function recordingFetch(): { fetch: StreamableHttpClientOptions["fetch"] & {}; sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  return {
    sent,
    fetch: (url, init) => {
      const headers: { [name: string]: string } = {};
      new Headers(init.headers as ConstructorParameters<typeof Headers>[0]).forEach((value, name) => {
        headers[name] = value;
      });
      const body = typeof init.body === "string" ? (JSON.parse(init.body) as JsonRpcMessage) : undefined;
      sent.push({ method: init.method ?? "GET", headers, body });
      return fetch(url, init as RequestInit);
    },
  };
}

/** The HTTP stack these tests run on. */
export const HTTP_STACK: "fetch" | "node" = process.env.MCPKIT_TEST_HTTP === "node" ? "node" : "fetch";

/** An {@link HttpClient} that records every request it sends, then sends it on `inner`. */
export function recordingHttp(inner: HttpClient): { http: HttpClient; sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  const http: HttpClient = {
    request: (request) => {
      const headers: { [name: string]: string } = {};
      for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
      const body = request.body === undefined ? undefined : (JSON.parse(request.body) as JsonRpcMessage);
      sent.push({ method: request.method, headers, body });
      return inner.request(request);
    },
    close: () => inner.close?.(),
  };
  return { http, sent };
}

/** The transport options of the stack in force ({@link HTTP_STACK}), recording what is sent. */
export function stackOptions(): {
  options: Pick<StreamableHttpClientOptions, "fetch" | "http">;
  sent: SentRequest[];
} {
  if (HTTP_STACK === "node") {
    const { http, sent } = recordingHttp(nodeHttp());
    return { options: { http }, sent };
  }
  const { fetch, sent } = recordingFetch();
  return { options: { fetch }, sent };
}

/** What {@link httpClient} built. */
export interface HttpClientKit {
  client: Client;
  transport: StreamableHttpClientTransport;
  logger: RecordingLogger;
  /** Every JSON-RPC message that crossed, in order, both ways. */
  messages: WireRecord[];
  sent: SentRequest[];
}

/**
 * An mcpkit client on a Streamable HTTP transport to `url`, its traffic checked against the schema of `era`
 * (both ways, failing the test through `useWireValidation`). Closed after the test.
 */
export function httpClient(
  url: string,
  options: {
    era?: Era;
    /** The client's pinned era; default: the ladder (unpinned). */
    pin?: Era;
    transport?: Partial<StreamableHttpClientOptions>;
    client?: Partial<ClientOptions>;
    cleanup?: (...cleanups: Array<() => Promise<unknown>>) => void;
  } = {},
): HttpClientKit {
  const logger = recordingLogger();
  const recorder = stackOptions();
  const transport = new StreamableHttpClientTransport({
    url,
    logger,
    ...recorder.options,
    ...options.transport,
  });
  const validator = options.era ? new WireValidator(options.era) : WireValidator.auto();
  const messages: WireRecord[] = [];
  const client = new Client({
    transport: wrapTransport(transport, "client", validator, { messages }),
    clientInfo: { name: "mcpkit-http-test", version: "1.0.0" },
    logger,
    ...(options.pin ? { protocolVersion: options.pin } : {}),
    ...options.client,
  });
  options.cleanup?.(() => client.close());
  return { client, transport, logger, messages, sent: recorder.sent };
}

/** A request as a scripted peer received it. */
export interface Received {
  method: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, when there was one. */
  body: { [key: string]: unknown } & {
    id?: number | string;
    method?: string;
    params?: { [key: string]: unknown };
  };
}

/** A scripted `node:http` peer on 127.0.0.1. */
export interface ScriptedPeer {
  url: string;
  received: Received[];
  /** TCP connections accepted so far. */
  connections: number;
  /** Connections open now. */
  open: number;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 (a free port) and answers every request with `handle`; records each request. Closed by
 * the test's cleanups when given.
 */
export async function scripted(
  handle: (request: Received, response: ServerResponse) => void | Promise<void>,
  cleanup?: (...cleanups: Array<() => Promise<unknown>>) => void,
): Promise<ScriptedPeer> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const request: Received = {
        method: req.method ?? "GET",
        headers: req.headers,
        body: text === "" ? {} : (JSON.parse(text) as Received["body"]),
      };
      received.push(request);
      void Promise.resolve(handle(request, res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const peer: ScriptedPeer = {
    url: `http://127.0.0.1:${port}/mcp`,
    received,
    connections: 0,
    open: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on("connection", (socket) => {
    peer.connections++;
    peer.open++;
    socket.on("close", () => peer.open--);
  });
  cleanup?.(() => peer.close());
  return peer;
}

/** Answers with a JSON body. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: { [name: string]: string } = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

/** Starts an SSE answer; `send` writes one message event. */
export function sse(
  res: ServerResponse,
  headers: { [name: string]: string } = {},
): (message: unknown) => void {
  res.writeHead(200, { "content-type": "text/event-stream", ...headers });
  return (message) => res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/** The results a scripted 2026 server answers with. */
export const modern = {
  discover: (id: unknown) => ({
    jsonrpc: "2.0",
    id,
    result: {
      resultType: "complete",
      supportedVersions: [MODERN],
      capabilities: { tools: {} },
      ttlMs: 0,
      cacheScope: "public",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "scripted", version: "1.0.0" } },
    },
  }),
  tools: (id: unknown, tools: unknown[], extra: { [key: string]: unknown } = {}) => ({
    jsonrpc: "2.0",
    id,
    result: { resultType: "complete", tools, ttlMs: 0, cacheScope: "public", ...extra },
  }),
  text: (id: unknown, text: string) => ({
    jsonrpc: "2.0",
    id,
    result: { resultType: "complete", content: [{ type: "text", text }] },
  }),
  error: (id: unknown, code: number, message: string, data?: unknown) => ({
    jsonrpc: "2.0",
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  }),
};

/** The results a scripted 2025 server answers with. */
export const legacy = {
  initialize: (id: unknown, version: string = LEGACY) => ({
    jsonrpc: "2.0",
    id,
    result: {
      protocolVersion: version,
      capabilities: { tools: {} },
      serverInfo: { name: "scripted", version: "1.0.0" },
    },
  }),
  tools: (id: unknown, tools: unknown[]) => ({ jsonrpc: "2.0", id, result: { tools } }),
  text: (id: unknown, text: string) => ({
    jsonrpc: "2.0",
    id,
    result: { content: [{ type: "text", text }] },
  }),
};

/** Sets up the per-file cleanups (call once at the top of a test file). */
export function useHttpCleanups(): (...cleanups: Array<() => Promise<unknown>>) => void {
  return useCleanups();
}
