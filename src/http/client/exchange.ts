/**
 * The seam between the Streamable HTTP client transport and an HTTP stack: one request/response exchange at the
 * level the transport needs. The transport applies the policy (timeouts, byte limits, redirects, concurrency,
 * secret-free errors) on top of any implementation: `fetch` (`mcpkit/http`, the default) or `node:http`
 * (`nodeHttp()` from `mcpkit/node`).
 */

/** Request headers as a plain record. */
export type HeaderRecord = { readonly [name: string]: string };

/** One HTTP request, complete: the transport has already merged and checked every header. */
export interface HttpClientRequest {
  readonly method: "POST" | "GET" | "DELETE";
  /** The endpoint's absolute URL (`http:` or `https:`, already checked against the policy). */
  readonly url: URL;
  readonly headers: HeaderRecord;
  /** The body of a POST (one JSON text). */
  readonly body: string | undefined;
  /**
   * The longest time a new connection may take to open (TCP, and TLS for `https`), for stacks that expose that
   * step; one that passes rejects the exchange with `McpkitError` `TIMEOUT` (`details.timeout: "connect"`).
   */
  readonly connectTimeoutMs: number;
}

/** A response whose head arrived. */
export interface HttpClientResponse {
  /** The status; `0` when the platform hides it (a browser's opaque redirect), which the transport refuses. */
  readonly status: number;
  /** A response header (name in lowercase), several values joined with `", "`; undefined when absent. */
  header(name: string): string | undefined;
  /**
   * Delivers the body, chunk by chunk in order, to `onChunk`; resolves when it ended, rejects when it failed or
   * the exchange was aborted. When `onChunk` returns `false` the reader has what it needs: delivery stops, the
   * promise resolves, and the rest of the body is released as by `discard()`. When `onChunk` throws, reading
   * stops, the body is cancelled and the promise rejects. A stack that content-decodes the body passes decoded
   * chunks to `onChunk` and, when it can, reports the bytes as they came off the wire to `onWire` (which may
   * throw as `onChunk` may). Called at most once.
   */
  pipe(onChunk: (chunk: Uint8Array) => boolean, onWire?: (bytes: number) => void): Promise<void>;
  /**
   * The body (or its rest) is not wanted: release it, keeping the connection for reuse when the rest is small and
   * arrives promptly, closing it otherwise.
   */
  discard(): void;
}

/** One exchange in flight. */
export interface HttpClientExchange {
  /** Settles with the response head, or rejects (network failure, abort, connect timeout). */
  readonly response: Promise<HttpClientResponse>;
  /**
   * Ends the exchange at any point, before the head or while the body streams: the request is cancelled (the
   * connection closed, so the server sees the stream end), and a pending `response` or `pipe` rejects.
   */
  abort(reason: unknown): void;
}

/**
 * An HTTP stack the client transport runs on. Failures it classifies itself (a connect timeout, a body it
 * cannot decode) reject with an `McpkitError`; any other rejection is reported by the transport as a network
 * failure carrying only its `code`, never its message (which may quote the request).
 */
export interface HttpClient {
  /** Starts one request; the exchange settles with the response head, then streams the body. */
  request(request: HttpClientRequest): HttpClientExchange;
  /** Releases what the stack holds (pooled connections); the transport calls it from its `close()`. */
  close?(): void;
}
