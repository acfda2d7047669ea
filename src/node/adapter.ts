import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import type { Answer } from "../http/server/answer.js";
import { type RequestView, serveView } from "../http/server/view.js";
import { shallowCopy } from "../jsonrpc/shallow-copy.js";
import { CONSUMED_BODY_MESSAGE, leftBody, parsedBytes } from "./parsed-body.js";
import { NodeRequestView } from "./request-view.js";

/** Any fetch-style handler: the mcpkit HTTP handler, `app.fetch` of Hono, and the like. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/**
 * A `node:http` request listener. `parsedBody` is a body a framework already parsed (Fastify's `request.body`);
 * without it, a body a middleware parsed is read from `req.body`. A function there (Express's `next`) is
 * ignored, so the listener mounts in Express as it is.
 */
export type NodeListener = (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => Promise<void>;

/** Bytes of request body queued before the adapter stops reading the socket until the handler catches up. */
const BODY_HIGH_WATER_MARK = 64 * 1024;

/**
 * Adapts a fetch-style handler to `node:http`. The request body streams in with backpressure (the handler
 * counts it against its own limit and may stop reading early); the response body streams out the same way,
 * waiting for `drain`; when the client disconnects before the response is complete, the Request's `signal`
 * fires and the response stream is cancelled, which is how the handler learns that a client cancelled.
 *
 * Given an mcpkit handler (`createHttpHandler`), it serves the same pipeline without building a Web `Request`
 * or `Response` per request: headers and body are read from the Node request directly, and a JSON answer is
 * written in one piece with its `Content-Length`.
 *
 * Behind a body parser (Express's `express.json()`) the stream is read already: the parsed `req.body` is used
 * (a JSON value encoded again and held to `maxBodyBytes`, a `Buffer` or string as the bytes). A stream read by a
 * middleware that left no usable body is answered 500 `-32603` saying so, never left waiting.
 *
 * @example
 * const listener = toNodeHandler(createHttpHandler(server));
 * http.createServer(listener).listen(3000, "127.0.0.1");
 */
export function toNodeHandler(handler: FetchHandler): NodeListener {
  const serve = (handler as { [serveView]?: (request: RequestView) => Promise<Answer> })[serveView];
  if (typeof serve === "function") return viewListener(serve);
  return async (req, res, parsedBody) => {
    const controller = new AbortController();
    const gone = () => {
      if (!res.writableFinished) controller.abort(new Error("the client disconnected"));
    };
    res.on("close", gone);
    // A write racing the client's disconnect errors the response; that is the same disconnect.
    res.on("error", gone);
    const left = leftBody(req, parsedBody);
    let body: Uint8Array | undefined;
    if (left.kind !== "stream") {
      try {
        // The handler counts a parsed body against its own limit, as it would the stream.
        body = parsedBytes(left, Number.POSITIVE_INFINITY);
      } catch {
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        res.end(CONSUMED_BODY_MESSAGE);
        return;
      }
      req.resume();
    }
    let request: Request;
    try {
      request = toRequest(req, controller.signal, body);
    } catch {
      badHost(res);
      return;
    }
    let response: Response;
    try {
      response = await handler(request);
    } catch {
      internalError(res);
      return;
    }
    await writeStream(response, req, res, (stop) => controller.signal.addEventListener("abort", stop));
  };
}

/** The listener of an mcpkit handler: the pipeline reads a {@link NodeRequestView}, its answer is written here. */
function viewListener(serve: (request: RequestView) => Promise<Answer>): NodeListener {
  // Keep-alive clients send the same Host on every request: it is checked once.
  let urlHost: string | undefined;
  return async (req, res, parsedBody) => {
    const view = new NodeRequestView(req, res, parsedBody);
    const host = view.firstHost;
    if (host !== urlHost) {
      if (!formsUrl(view)) {
        badHost(res);
        return;
      }
      urlHost = host;
    }
    let answer: Answer;
    try {
      answer = await serve(view);
    } catch {
      internalError(res);
      return;
    }
    if ("response" in answer) {
      await writeStream(answer.response, req, res, view.onGone);
      return;
    }
    // A copy that stays fast to add to (a spread's copy is not: jsonrpc/shallow-copy.ts).
    const headers = shallowCopy(answer.headers) as OutgoingHttpHeaders;
    // A body the handler did not read to its end: the connection cannot be reused.
    if (!req.complete) headers.connection = "close";
    const body = answer.body;
    if (body === null || typeof body === "string") {
      if (body !== null) headers["content-length"] = Buffer.byteLength(body);
      res.writeHead(answer.status, headers);
      res.end(body ?? undefined);
      return;
    }
    res.writeHead(answer.status, headers);
    await pump(body, res, view.onGone);
  };
}

/** True when the request's Host forms a URL (else the request is malformed: 400). */
function formsUrl(view: NodeRequestView): boolean {
  if (!view.firstHost) return false;
  try {
    new URL(view.url());
    return true;
  } catch {
    return false;
  }
}

function badHost(res: ServerResponse): void {
  res.writeHead(400, { "content-type": "text/plain; charset=utf-8", connection: "close" });
  res.end("Bad Request: invalid Host header");
}

function internalError(res: ServerResponse): void {
  if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
  res.end("Internal Server Error");
}

/** Builds the Web Request of a Node request; throws when its Host cannot form a URL. */
function toRequest(req: IncomingMessage, signal: AbortSignal, body: Uint8Array | undefined): Request {
  const host = req.headers.host;
  if (!host) throw new TypeError("no Host header");
  const scheme = (req.socket as TLSSocket).encrypted ? "https" : "http";
  // Origin-form targets only, appended (never resolved): a `//other` target must not change the URL's host.
  const target = req.url?.startsWith("/") ? req.url : "/";
  const url = new URL(`${scheme}://${host}${target}`);
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] ?? "";
    if (!name.startsWith(":")) headers.append(name, req.rawHeaders[i + 1] ?? "");
  }
  const method = req.method ?? "GET";
  const init: RequestInit & { duplex?: "half" } = { method, headers, signal };
  if (method !== "GET" && method !== "HEAD") {
    init.body = body ?? bodyStream(req);
    init.duplex = "half";
  }
  return new Request(url, init);
}

/** The request body as a byte stream that pauses the socket while the reader is behind. */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let detach = () => {};
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const onData = (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        };
        const onEnd = () => {
          detach();
          controller.close();
        };
        const onError = (error: Error) => {
          detach();
          controller.error(error);
        };
        detach = () => {
          req.off("data", onData);
          req.off("end", onEnd);
          req.off("error", onError);
        };
        req.on("data", onData);
        req.on("end", onEnd);
        req.on("error", onError);
      },
      pull() {
        req.resume();
      },
      cancel() {
        // The handler has read enough (a body over its limit): discard the rest as it arrives.
        detach();
        req.resume();
      },
    },
    { highWaterMark: BODY_HIGH_WATER_MARK, size: (chunk) => chunk.byteLength },
  );
}

/** Writes a Web `Response`: its head, then its body as it streams. */
async function writeStream(
  response: Response,
  req: IncomingMessage,
  res: ServerResponse,
  onGone: (stop: () => void) => void,
): Promise<void> {
  const headers: OutgoingHttpHeaders = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie?.() ?? [];
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  // A body the handler did not read to its end: the connection cannot be reused.
  if (!req.complete) headers.connection = "close";
  res.writeHead(response.status, headers);
  const body = response.body;
  if (body === null) {
    res.end();
    return;
  }
  await pump(body, res, onGone);
}

/** Streams a body out after its head, waiting for `drain`; cancels it when the client goes away. */
async function pump(
  body: ReadableStream<Uint8Array>,
  res: ServerResponse,
  onGone: (stop: () => void) => void,
): Promise<void> {
  res.flushHeaders();
  const reader = body.getReader();
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    reader.cancel().catch(() => {});
  };
  onGone(stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) {
        stop();
        return;
      }
      if (!res.write(value)) await drainOrClose(res);
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    // The body is complete: a later close is no disconnect to report.
    stopped = true;
  }
}

function drainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
