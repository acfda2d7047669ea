/**
 * A raw Streamable HTTP peer for tests: sends exact bytes and headers over `node:http` (so a test can send a bad
 * `Host`, a chunked oversized body, or close a stream half way), reads JSON or SSE answers, and checks every
 * JSON-RPC message it sends and receives against the official schema of its era (a {@link WireValidator}).
 *
 * @example
 * const peer = new HttpPeer(url, "2026-07-28");
 * const reply = await peer.send(peer.request("tools/list"));
 * expect(reply.status).toBe(200);
 * expect(reply.messages.at(-1)).toMatchObject({ result: { tools: [] } });
 */
import {
  type ClientRequest,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from "node:http";
import type { JsonRpcMessage, JsonRpcRequest } from "../../src/jsonrpc/message.js";
import { type ServeHandle, type ServeOptions, serve } from "../../src/node/serve.js";
import { routingHeaders } from "../../src/protocol/routing-headers.js";
import { useCleanups } from "./interop-helpers.js";
import { parseSse, sseReader } from "./sse-reader.js";
import { type Era, WireValidator } from "./wire-schema.js";

export { parseSse, sseReader } from "./sse-reader.js";

/** What came back from one HTTP request. */
export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  contentType: string;
  /** The raw body text. */
  text: string;
  /** JSON-RPC messages of the body: the JSON object, or each SSE `data:` line. */
  messages: JsonRpcMessage[];
  /** SSE comment lines (keepalives), without the leading colon. */
  comments: string[];
}

/** Options of one raw request. */
export interface RawOptions {
  method?: string;
  headers?: { [name: string]: string | undefined };
  /** The body; an array of chunks is sent chunked, one write each. */
  body?: string | Uint8Array | Uint8Array[];
}

/** Sends one request and resolves with the response head (the body still streaming). */
export function rawStart(url: string, options: RawOptions = {}): Promise<IncomingMessage> {
  return rawOpen(url, options).response;
}

/** Sends one request; `request` lets a test abort it before any answer comes. */
export function rawOpen(
  url: string,
  options: RawOptions = {},
): { request: ClientRequest; response: Promise<IncomingMessage> } {
  const target = new URL(url);
  const headers: { [name: string]: string } = {};
  for (const [name, value] of Object.entries(options.headers ?? {}))
    if (value !== undefined) headers[name] = value;
  // A single-piece body declares its length (as most clients do); chunks go out chunked.
  const body = options.body;
  if (
    body !== undefined &&
    !Array.isArray(body) &&
    !Object.keys(headers).some((h) => h.toLowerCase() === "content-length")
  ) {
    headers["content-length"] = String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
  }
  let req!: ClientRequest;
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? "POST",
        headers,
      },
      resolve,
    );
    req.on("error", reject);
    if (Array.isArray(body)) for (const chunk of body) req.write(chunk);
    else if (body !== undefined) req.write(body);
    req.end();
  });
  return { request: req, response };
}

/** Reads a whole response. */
export async function readReply(res: IncomingMessage): Promise<Reply> {
  let text = "";
  res.setEncoding("utf8");
  for await (const chunk of res) text += chunk as string;
  const contentType = res.headers["content-type"] ?? "";
  let messages: JsonRpcMessage[] = [];
  let comments: string[] = [];
  if (contentType.startsWith("text/event-stream")) ({ messages, comments } = parseSse(text));
  else if (contentType.startsWith("application/json") && text !== "")
    messages = [JSON.parse(text) as JsonRpcMessage];
  return { status: res.statusCode ?? 0, headers: res.headers, contentType, text, messages, comments };
}

/** One raw request, read to its end. */
export async function raw(url: string, options: RawOptions = {}): Promise<Reply> {
  return readReply(await rawStart(url, options));
}

/** The `_meta` of a 2026-07-28 request from this peer. */
export function modernMeta(extra: { [key: string]: unknown } = {}): { [key: string]: unknown } {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "http-peer", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
    ...extra,
  };
}

/** A peer of one era whose traffic is schema-checked in order. */
export class HttpPeer {
  readonly validator: WireValidator;
  /** The legacy session, once `initialize` minted one. */
  sessionId: string | undefined;
  private nextId = 1;

  constructor(
    readonly url: string,
    readonly era: Era,
  ) {
    this.validator = new WireValidator(era);
  }

  /** A request with a fresh id; in 2026-07-28 its params carry the per-request `_meta` (plus `meta`). */
  request(method: string, params: { [key: string]: unknown } = {}, meta: { [key: string]: unknown } = {}) {
    const full = this.era === "2026-07-28" ? { ...params, _meta: modernMeta(meta) } : params;
    return { jsonrpc: "2.0", id: this.nextId++, method, params: full } satisfies JsonRpcRequest;
  }

  /** The headers this peer sends with `message`: routing headers (2026) or version and session (2025). */
  headersFor(message: { method?: string; params?: { [key: string]: unknown } }): { [name: string]: string } {
    const base = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    if (this.era === "2026-07-28") {
      // A response, or a deliberately malformed message (a non-string method), gets no routing headers.
      if (typeof message.method !== "string") return { ...base, "mcp-protocol-version": this.era };
      return { ...base, ...routingHeaders({ method: message.method, ...message }, this.era) };
    }
    if (message.method === "initialize") return base;
    const session = this.sessionId === undefined ? {} : { "mcp-session-id": this.sessionId };
    return { ...base, "mcp-protocol-version": this.era, ...session };
  }

  /**
   * POSTs `message` with this peer's headers (`headers` adds or replaces; `undefined` removes one), validating
   * the message (unless `validate: false`, for bad input on purpose) and every JSON-RPC message of the answer.
   * `body` sends other bytes than the message (its headers still derive from the message).
   */
  async send(
    message: unknown,
    options: { headers?: { [name: string]: string | undefined }; validate?: boolean; body?: string } = {},
  ): Promise<Reply> {
    if (options.validate !== false) this.validator.check(message, "client");
    const reply = await raw(this.url, {
      headers: this.merge(this.headersFor(message as JsonRpcRequest), options.headers),
      body: options.body ?? (typeof message === "string" ? message : JSON.stringify(message)),
    });
    this.checkReply(reply);
    if (typeof reply.headers["mcp-session-id"] === "string") this.sessionId = reply.headers["mcp-session-id"];
    return reply;
  }

  /**
   * Starts a request whose answer is read as it streams: POSTs `message` (checked) with this peer's headers,
   * or, with `method: "GET"` and no message, opens a GET stream. Every event read is checked as from the server.
   */
  stream(
    message: JsonRpcRequest | undefined,
    options: { method?: string; headers?: { [name: string]: string | undefined } } = {},
  ): {
    request: ClientRequest;
    response: Promise<{ res: IncomingMessage; events: ReturnType<typeof sseReader> }>;
  } {
    if (message !== undefined) this.validator.check(message, "client");
    const base = message === undefined ? {} : this.headersFor(message);
    const opened = rawOpen(this.url, {
      method: options.method ?? "POST",
      headers: this.merge(base, options.headers),
      ...(message === undefined ? {} : { body: JSON.stringify(message) }),
    });
    return {
      request: opened.request,
      response: opened.response.then((res) => ({
        res,
        events: sseReader(res, (event) => this.validator.check(event, "server")),
      })),
    };
  }

  /** Opens a legacy session: `initialize`, then `notifications/initialized`. */
  async open(options: { headers?: { [name: string]: string | undefined } } = {}): Promise<Reply> {
    const reply = await this.send(
      this.request("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "http-peer", version: "1.0.0" },
      }),
      options,
    );
    if (this.sessionId !== undefined) {
      const ack = await this.send({ jsonrpc: "2.0", method: "notifications/initialized" }, options);
      if (ack.status !== 202) throw new Error(`initialized answered ${ack.status}`);
    }
    return reply;
  }

  /** Checks every message of an answer as sent by the server. */
  checkReply(reply: Reply): void {
    for (const message of reply.messages) this.validator.check(message, "server");
  }

  /** `base` with `extra` on top: names compare case-insensitively; the casing of `extra` is what is sent. */
  merge(
    base: { [name: string]: string },
    extra: { [name: string]: string | undefined } = {},
  ): { [name: string]: string | undefined } {
    const out: { [name: string]: string | undefined } = { ...base };
    for (const [name, value] of Object.entries(extra)) {
      for (const key of Object.keys(out)) if (key.toLowerCase() === name.toLowerCase()) delete out[key];
      out[name] = value;
    }
    return out;
  }
}

/**
 * Registers an `afterEach` that closes what the test served; returns `serve` with that cleanup. Call once at the
 * top of a test file. Everything listens on 127.0.0.1 only.
 */
export function useServe(): (
  target: Parameters<typeof serve>[0],
  options?: Omit<ServeOptions, "host">,
) => Promise<ServeHandle> {
  const cleanup = useCleanups();
  return async (target, options = {}) => {
    const handle = await serve(target, { ...options, host: "127.0.0.1" });
    cleanup(() => handle.close());
    return handle;
  };
}
