import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import { bodyTooLarge, declaredTooLarge, type RequestView } from "../http/server/view.js";
import { joinChunks } from "../jsonrpc/codec.js";
import { leftBody, parsedBytes } from "./parsed-body.js";

/** The headers of a Node request by lowercase name, repeated ones joined with `, ` (as `Headers.get` does). */
interface HeaderMap {
  readonly values: { [name: string]: string };
  /** The first `Host` header (the one `req.headers.host` names). */
  readonly firstHost: string | undefined;
}

function headerMap(raw: readonly string[]): HeaderMap {
  const values: { [name: string]: string } = Object.create(null);
  let firstHost: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    // HTTP/2 pseudo-headers (`:path`) are not headers of the request.
    if (name.startsWith(":")) continue;
    const key = name.toLowerCase();
    const value = raw[i + 1] as string;
    const held = values[key];
    values[key] = held === undefined ? value : `${held}, ${value}`;
    if (key === "host" && firstHost === undefined) firstHost = value;
  }
  return { values, firstHost };
}

/**
 * A {@link RequestView} of a `node:http` request: headers read from `rawHeaders` once, the body gathered from the
 * socket against the limit (no stream, no `Request`), disconnects seen through the response's `close`. The Web
 * `Request` the `authenticate` hook takes is built only when it is asked for.
 */
export class NodeRequestView implements RequestView {
  readonly method: string;
  readonly scheme: string;
  private readonly headers: HeaderMap;
  private goneCallbacks: Array<() => void> | undefined;
  private web: Request | undefined;

  /**
   * @param parsed the body a framework already parsed (the listener's third argument), if any; see
   *   {@link leftBody}.
   */
  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly parsed?: unknown,
  ) {
    this.method = req.method ?? "GET";
    this.scheme = (req.socket as TLSSocket).encrypted ? "https" : "http";
    this.headers = headerMap(req.rawHeaders);
  }

  /** The socket's peer address (`undefined` once the socket is gone). */
  get remoteAddress(): string | undefined {
    return this.req.socket.remoteAddress;
  }

  get host(): string | null {
    return this.headers.values.host ?? null;
  }

  /** The first `Host` header, the one that must form a URL. */
  get firstHost(): string | undefined {
    return this.headers.firstHost;
  }

  /** The URL of the request: the origin-form target under the `Host` (never resolved against it). */
  url(): string {
    const target = this.req.url?.startsWith("/") ? this.req.url : "/";
    return `${this.scheme}://${this.headers.firstHost ?? ""}${target}`;
  }

  header(name: string): string | null {
    return this.headers.values[name] ?? null;
  }

  body(maxBytes: number): Promise<Uint8Array> {
    const req = this.req;
    const left = leftBody(req, this.parsed);
    if (left.kind !== "stream") {
      // The stream is not ours to read (or is read already): discard whatever of it is still to come.
      req.resume();
      try {
        return Promise.resolve(parsedBytes(left, maxBytes));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    if (declaredTooLarge(this.header("content-length"), maxBytes)) {
      // Discard the rest as it arrives; the connection closes after the answer.
      req.resume();
      return Promise.reject(bodyTooLarge(maxBytes, Number(this.header("content-length"))));
    }
    return new Promise((resolve, reject) => {
      const chunks: Uint8Array[] = [];
      let total = 0;
      const onData = (chunk: Buffer) => {
        total += chunk.byteLength;
        if (total > maxBytes) {
          detach();
          req.resume();
          reject(bodyTooLarge(maxBytes, total));
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = () => {
        detach();
        resolve(joinChunks(chunks, total));
      };
      const onError = (error: Error) => {
        detach();
        reject(error);
      };
      const onClose = () => {
        if (!req.complete) onError(new Error("the client disconnected"));
      };
      const detach = () => {
        req.off("data", onData);
        req.off("end", onEnd);
        req.off("error", onError);
        req.off("close", onClose);
      };
      req.on("data", onData);
      req.on("end", onEnd);
      req.on("error", onError);
      req.on("close", onClose);
      // A middleware may have paused the stream; a `data` listener alone does not resume it then.
      req.resume();
    });
  }

  readonly onGone = (callback: () => void): void => {
    if (this.isGone) {
      callback();
      return;
    }
    if (this.goneCallbacks === undefined) {
      this.goneCallbacks = [];
      this.res.on("close", this.gone);
      this.res.on("error", this.gone);
    }
    this.goneCallbacks.push(callback);
  };

  private get isGone(): boolean {
    return this.res.destroyed && !this.res.writableFinished;
  }

  /** The client went away before the answer was complete (a write racing the disconnect errors the response). */
  private readonly gone = (): void => {
    if (this.res.writableFinished || this.goneCallbacks === undefined) return;
    const callbacks = this.goneCallbacks;
    this.goneCallbacks = [];
    for (const call of callbacks) call();
  };

  request(): Request {
    if (this.web === undefined) {
      const headers = new Headers();
      const raw = this.req.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) {
        const name = raw[i] as string;
        if (!name.startsWith(":")) headers.append(name, raw[i + 1] as string);
      }
      const controller = new AbortController();
      this.onGone(() => controller.abort(new Error("the client disconnected")));
      // The body is the handler's to read (it was, before the hook runs): the hook sees the head only.
      this.web = new Request(this.url(), { method: this.method, headers, signal: controller.signal });
    }
    return this.web;
  }
}
