import {
  type ClientRequest,
  type ClientRequestArgs,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { Duplex, Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type {
  HttpClient,
  HttpClientExchange,
  HttpClientRequest,
  HttpClientResponse,
} from "../http/client/exchange.js";
import { McpkitError } from "../jsonrpc/errors.js";

/** Options of {@link nodeHttp}. */
export interface NodeHttpOptions {
  /**
   * The certificate authorities `https` trusts, PEM (default: Node's bundled roots, and `NODE_EXTRA_CA_CERTS`).
   * Certificates are always verified; there is no way to turn that off.
   */
  ca?: string | Buffer | Array<string | Buffer>;
  /**
   * Resolves the host name of each new connection (default: `dns.lookup`), as `net.connect`'s `lookup`: the
   * connection goes to the address it answers, so a lookup that refuses an address (failing with an error) keeps
   * every connection off it. A URL with an IP literal is not looked up.
   *
   * @example
   * nodeHttp({ lookup: (host, options, callback) => dns.lookup(host, { ...options, family: 4 }, callback) })
   */
  lookup?: LookupFunction;
}

/** The most of an unwanted body's rest drained to keep its connection, and for how long. */
const DRAIN_BYTES = 65_536;
const DRAIN_MS = 1_000;

/** The request option that carries the connect timeout down to the agent's `createConnection`. */
const CONNECT_TIMEOUT = "mcpkitConnectTimeoutMs";
type TimedArgs = ClientRequestArgs & { [CONNECT_TIMEOUT]?: number };

/**
 * The Streamable HTTP client's {@link HttpClient} on `node:http` / `node:https`, with keep-alive agents: about
 * twice as cheap per request as `fetch` on Node 20. Pass it as the transport's `http` option:
 *
 * - a new connection (TCP, and the TLS handshake for `https`) must open within the policy's `connectTimeoutMs`,
 *   or the request fails with `TIMEOUT` (`details.timeout: "connect"`); a reused one needs no connect;
 * - `https` verifies the server's certificate against the default roots (or `ca`);
 * - no redirect is followed (Node never does); aborting an exchange destroys its request, which closes the
 *   connection, so the server sees the stream end;
 * - a body the server content-encoded anyway (`gzip`, `deflate`, `br`; the transport asks for `identity`) is
 *   decoded with `node:zlib`, its wire bytes and its decoded bytes each counted against their limit; any other
 *   coding fails with `TRANSPORT` (`details.reason: "unsupported_encoding"`);
 * - `close()` (called by the transport's `close()`) destroys the agents' sockets: nothing stays open.
 *
 * One `nodeHttp()` belongs to one transport.
 *
 * @example
 * import { StreamableHttpClientTransport } from "mcpkit/http";
 * import { nodeHttp } from "mcpkit/node";
 * const transport = new StreamableHttpClientTransport({ url: "https://mcp.example.com/mcp", http: nodeHttp() });
 */
export function nodeHttp(options: NodeHttpOptions = {}): HttpClient {
  return new NodeHttpClient(options);
}

class NodeHttpClient implements HttpClient {
  private plain: HttpAgent | undefined;
  private secure: HttpsAgent | undefined;
  private lastUrl: URL | undefined;
  private target: ClientRequestArgs = {};

  constructor(private readonly options: NodeHttpOptions) {}

  request(request: HttpClientRequest): HttpClientExchange {
    if (request.url !== this.lastUrl) {
      this.lastUrl = request.url;
      this.target = this.targetOf(request.url);
    }
    return new NodeExchange(this.target, request);
  }

  close(): void {
    this.plain?.destroy();
    this.secure?.destroy();
  }

  private targetOf(url: URL): ClientRequestArgs {
    let agent: HttpAgent;
    const { ca, lookup } = this.options;
    const base = lookup === undefined ? { keepAlive: true } : { keepAlive: true, lookup };
    if (url.protocol === "https:") {
      this.secure ??= new TimedHttpsAgent(ca === undefined ? base : { ...base, ca });
      agent = this.secure;
    } else {
      this.plain ??= new TimedHttpAgent(base);
      agent = this.plain;
    }
    const target: ClientRequestArgs = {
      protocol: url.protocol,
      hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
      path: `${url.pathname}${url.search}`,
      agent,
    };
    if (url.port !== "") target.port = Number(url.port);
    return target;
  }
}

/** Bounds the opening of a new connection: TCP connect, and the TLS handshake when `secure`. */
function timeConnect(socket: Duplex | null | undefined, args: TimedArgs, secure: boolean): void {
  const ms = args[CONNECT_TIMEOUT];
  if (socket === null || socket === undefined || ms === undefined || !Number.isFinite(ms)) return;
  const timer = setTimeout(
    () =>
      socket.destroy(
        new McpkitError("TIMEOUT", `the HTTP connect timeout of ${ms} ms passed`, {
          details: { timeout: "connect", timeoutMs: ms },
        }),
      ),
    Math.min(ms, 2_147_483_647),
  );
  const done = () => clearTimeout(timer);
  socket.once(secure ? "secureConnect" : "connect", done);
  socket.once("close", done);
}

class TimedHttpAgent extends HttpAgent {
  override createConnection(
    args: ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const socket = super.createConnection(args, callback);
    timeConnect(socket, args, false);
    return socket;
  }
}

class TimedHttpsAgent extends HttpsAgent {
  override createConnection(
    args: ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const socket = super.createConnection(args, callback);
    timeConnect(socket, args, true);
    return socket;
  }
}

/** One request on `node:http`: settles once, whether the head, an error or an abort comes first. */
class NodeExchange implements HttpClientExchange {
  readonly response: Promise<HttpClientResponse>;
  aborted = false;
  reason: unknown;
  private settled = false;
  private resolveHead!: (response: HttpClientResponse) => void;
  private rejectHead!: (reason: unknown) => void;
  private req: ClientRequest | undefined;
  private head: NodeResponse | undefined;

  constructor(target: ClientRequestArgs, request: HttpClientRequest) {
    this.response = new Promise((resolve, reject) => {
      this.resolveHead = resolve;
      this.rejectHead = reject;
    });
    try {
      // Spelled out, not spread: a spread literal's later members take V8's slow path (jsonrpc/shallow-copy.ts).
      const args: TimedArgs = {
        protocol: target.protocol,
        hostname: target.hostname,
        path: target.path,
        agent: target.agent,
        method: request.method,
        headers: request.headers,
        [CONNECT_TIMEOUT]: request.connectTimeoutMs,
      };
      if (target.port !== undefined) args.port = target.port;
      const req = target.protocol === "https:" ? httpsRequest(args) : httpRequest(args);
      this.req = req;
      req.on("response", (res: IncomingMessage) => this.onHead(res));
      req.on("error", (error: Error) => this.fail(error));
      // Node sets Content-Length from the body given to end().
      req.end(request.body);
    } catch (error) {
      this.fail(error);
    }
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.destroy();
    this.fail(reason);
  }

  /** Closes the connection (a request whose response already ended and freed its socket is left alone). */
  destroy(): void {
    this.req?.destroy();
  }

  private onHead(res: IncomingMessage): void {
    if (this.settled) {
      res.resume();
      return;
    }
    this.settled = true;
    this.head = new NodeResponse(res, this);
    this.resolveHead(this.head);
  }

  private fail(error: unknown): void {
    if (!this.settled) {
      this.settled = true;
      this.rejectHead(error);
      return;
    }
    this.head?.fail(error);
  }
}

/** A response head and its body, read once by `pipe` or released by `discard`. */
class NodeResponse implements HttpClientResponse {
  readonly status: number;
  private done = false;
  private failed: { error: unknown } | undefined;
  private rejectPipe: ((error: unknown) => void) | undefined;
  private decoder: Transform | undefined;

  constructor(
    private readonly res: IncomingMessage,
    private readonly exchange: NodeExchange,
  ) {
    this.status = res.statusCode ?? 0;
    res.on("error", (error: Error) => this.fail(error));
  }

  header(name: string): string | undefined {
    const value = this.res.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(", ") : value;
  }

  pipe(onChunk: (chunk: Uint8Array) => boolean, onWire?: (bytes: number) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.failed) {
        reject(this.failed.error);
        return;
      }
      if (this.done) {
        resolve();
        return;
      }
      this.rejectPipe = reject;
      const res = this.res;
      const finish = () => {
        if (this.done) return;
        this.done = true;
        resolve();
      };
      const take = (chunk: Uint8Array) => {
        if (this.done) return;
        let more: boolean;
        try {
          more = onChunk(chunk);
        } catch (error) {
          this.stop(error);
          return;
        }
        if (!more) {
          this.done = true;
          this.release();
          resolve();
        }
      };
      const coding = (this.header("content-encoding") ?? "identity").trim().toLowerCase();
      if (coding === "identity") {
        res.on("data", take);
        res.on("end", finish);
      } else {
        const decoder = decoderFor(coding);
        if (decoder === undefined) {
          this.stop(
            new McpkitError("TRANSPORT", "the server answered with a content coding mcpkit does not decode", {
              details: { reason: "unsupported_encoding" },
            }),
          );
          return;
        }
        this.decoder = decoder;
        decoder.on("data", take);
        decoder.on("end", finish);
        decoder.on("error", () =>
          this.stop(
            new McpkitError("PROTOCOL", "the response body could not be decoded", {
              details: { reason: "malformed_response" },
            }),
          ),
        );
        res.on("data", (chunk: Buffer) => {
          if (this.done) return;
          try {
            onWire?.(chunk.byteLength);
          } catch (error) {
            this.stop(error);
            return;
          }
          decoder.write(chunk);
        });
        res.on("end", () => decoder.end());
      }
      res.on("close", () => {
        if (!res.complete) this.fail(new Error("the response ended early"));
      });
    });
  }

  discard(): void {
    if (this.done) return;
    this.done = true;
    this.release();
  }

  /** The exchange failed (network, abort): a pending pipe rejects, a later one will. */
  fail(error: unknown): void {
    if (this.done) return;
    this.done = true;
    this.failed = { error };
    this.decoder?.destroy();
    this.exchange.destroy();
    this.rejectPipe?.(error);
  }

  /** The reader failed (a limit, a malformed body): the request is cut and the pipe rejects with `error`. */
  private stop(error: unknown): void {
    if (this.done) return;
    this.done = true;
    this.failed = { error };
    this.decoder?.destroy();
    if (this.res.complete && this.decoder === undefined) this.res.resume();
    else this.exchange.destroy();
    this.rejectPipe?.(error);
  }

  /**
   * The rest of the body is not wanted. A server ends a stream right after its answer, so the rest is drained
   * (at most {@link DRAIN_BYTES}, within {@link DRAIN_MS}) and the connection goes back to the pool; past
   * either bound it is closed.
   */
  private release(): void {
    const res = this.res;
    if (this.decoder !== undefined) {
      this.decoder.destroy();
      this.exchange.destroy();
      return;
    }
    if (!res.complete) {
      let left = DRAIN_BYTES;
      const cut = () => {
        clearTimeout(timer);
        this.exchange.destroy();
      };
      const timer = setTimeout(cut, DRAIN_MS).unref();
      res.on("data", (chunk: Buffer) => {
        left -= chunk.byteLength;
        if (left < 0) cut();
      });
      res.once("close", () => clearTimeout(timer));
    }
    res.resume();
  }
}

function decoderFor(coding: string): Transform | undefined {
  switch (coding) {
    case "gzip":
    case "x-gzip":
      return createGunzip();
    case "deflate":
      return createInflate();
    case "br":
      return createBrotliDecompress();
    default:
      return undefined;
  }
}
