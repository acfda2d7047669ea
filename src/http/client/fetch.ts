import { McpkitError } from "../../jsonrpc/errors.js";
import { isObject } from "../../jsonrpc/message.js";
import type { HttpClient, HttpClientExchange, HttpClientRequest, HttpClientResponse } from "./exchange.js";

/** A `fetch` as the transport calls it (the platform's by default; tests and proxies may pass their own). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/**
 * The {@link HttpClient} on a `fetch`: redirects are not followed (`redirect: "manual"`), aborting an exchange
 * aborts the fetch and cancels its body. Whatever content decoding the platform does happens before the
 * transport sees the bytes. The abort holds even on a fetch that ignores its signal (a proxy's, an in-process
 * one): a head still awaited rejects, and a body being read is cancelled, so no timeout and no `close()` waits
 * on it.
 */
export function fetchHttpClient(fetchImpl: FetchLike): HttpClient {
  return {
    request(request: HttpClientRequest): HttpClientExchange {
      const init: RequestInit = {
        method: request.method,
        headers: request.headers,
        redirect: "manual",
      };
      if (request.body !== undefined) init.body = request.body;
      return new FetchExchange(fetchImpl, request.url.href, init);
    },
  };
}

/** One fetch in flight: its head, then its body, both ended by `abort()` whatever the fetch does with it. */
class FetchExchange implements HttpClientExchange {
  readonly response: Promise<HttpClientResponse>;
  private readonly controller = new AbortController();
  private answer: FetchResponse | undefined;
  private reject: ((reason: unknown) => void) | undefined;

  constructor(fetchImpl: FetchLike, url: string, init: RequestInit) {
    const signal = this.controller.signal;
    init.signal = signal;
    this.response = new Promise((resolve, reject) => {
      this.reject = reject;
      try {
        fetchImpl(url, init).then((answer) => {
          this.reject = undefined;
          if (signal.aborted) {
            // Aborted while the head was coming, on a fetch that answered all the same.
            void answer.body?.cancel(signal.reason).catch(() => {});
            reject(signal.reason);
            return;
          }
          this.answer = new FetchResponse(answer);
          resolve(this.answer);
        }, reject);
      } catch (error) {
        reject(error);
      }
    });
  }

  abort(reason: unknown): void {
    this.controller.abort(reason);
    const reject = this.reject;
    this.reject = undefined;
    reject?.(reason);
    this.answer?.cancel(reason);
  }
}

class FetchResponse implements HttpClientResponse {
  readonly status: number;
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;

  constructor(private readonly response: Response) {
    this.status = response.type === "opaqueredirect" ? 0 : response.status;
  }

  header(name: string): string | undefined {
    return this.response.headers.get(name) ?? undefined;
  }

  async pipe(onChunk: (chunk: Uint8Array) => boolean): Promise<void> {
    const body = this.response.body;
    if (body === null) return;
    const reader = body.getReader();
    this.reader = reader;
    try {
      for (;;) {
        const step = await reader.read();
        if (step.done) return;
        if (!onChunk(step.value)) {
          void reader.cancel().catch(() => {});
          return;
        }
      }
    } catch (error) {
      void reader.cancel().catch(() => {});
      throw error;
    }
  }

  discard(): void {
    void this.response.body?.cancel().catch(() => {});
  }

  /** The exchange was aborted: a pending read ends (the transport then fails it with the abort's reason). */
  cancel(reason: unknown): void {
    const pending = this.reader ?? this.response.body;
    void pending?.cancel(reason).catch(() => {});
  }
}

/**
 * The HTTP stack of the transport's options: `http`, else `fetch`, else the platform's `fetch`. Throws
 * `McpkitError` `INVALID_CONFIG` for both, a malformed one, or no `fetch` at all.
 */
export function httpStackOf(options: { http?: HttpClient; fetch?: FetchLike }): HttpClient {
  if (options.http !== undefined) {
    if (options.fetch !== undefined) throw invalid("http", "and fetch are exclusive: pass one");
    if (!isObject(options.http) || typeof options.http.request !== "function") {
      throw invalid("http", "must be an HttpClient (an object with a request(request) method)");
    }
    return options.http;
  }
  if (options.fetch !== undefined) {
    if (typeof options.fetch !== "function") throw invalid("fetch", "must be a function");
    return fetchHttpClient(options.fetch);
  }
  const platform = (globalThis as { fetch?: FetchLike }).fetch;
  if (typeof platform !== "function") throw invalid("fetch", "must be a function (no global fetch found)");
  return fetchHttpClient((url, init) => platform(url, init));
}

function invalid(key: string, problem: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", `${key} ${problem}`, { details: { key } });
}
