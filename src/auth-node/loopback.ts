import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Options of {@link startLoopbackRedirect}. */
export interface LoopbackRedirectOptions {
  /** The port on 127.0.0.1; default 0 (any free port; register `http://127.0.0.1/...` with port-agnostic servers). */
  port?: number;
  /** The callback path. Default `/callback`. */
  path?: string;
  /** How long `next()` waits for the browser. Default 300,000 ms. */
  timeoutMs?: number;
  /** The page the browser shows after the redirect. */
  successHtml?: string;
}

/** A loopback listener that receives OAuth redirects (RFC 8252 §7.3). */
export interface LoopbackRedirect {
  /** The redirect URI to register and send, e.g. `http://127.0.0.1:53123/callback`. */
  readonly redirectUri: string;
  /** Resolves with the next redirect that reaches the callback path (its full URL), or rejects on timeout. */
  next(): Promise<URL>;
  /** Stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a listener on 127.0.0.1 for the authorization redirect of a CLI or desktop app. Only GETs to the
 * callback path count; the query is handed over as is (the OAuth client validates `state` and `iss` before using
 * the code). Pair it with `OAuthClient`'s `onAuthorizationUrl`.
 *
 * @example
 * const loopback = await startLoopbackRedirect();
 * const oauth = new OAuthClient({
 *   redirectUri: loopback.redirectUri,
 *   onAuthorizationUrl: async (url) => { console.error(`Open ${url}`); return loopback.next(); },
 * });
 */
export async function startLoopbackRedirect(
  options: LoopbackRedirectOptions = {},
): Promise<LoopbackRedirect> {
  const path = options.path ?? "/callback";
  const timeoutMs = options.timeoutMs ?? 300_000;
  const html =
    options.successHtml ?? "<!doctype html><title>Signed in</title><p>You can close this window.</p>";
  const waiters: Array<(url: URL) => void> = [];
  const arrived: URL[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (request.method !== "GET" || url.pathname !== path) {
      response.writeHead(404).end();
      return;
    }
    response
      .writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
      .end(html);
    const full = new URL(`${redirectUri}${url.search}`);
    const waiter = waiters.shift();
    if (waiter) waiter(full);
    else arrived.push(full);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const redirectUri = `http://127.0.0.1:${port}${path}`;
  return {
    redirectUri,
    next() {
      const ready = arrived.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise<URL>((resolve, reject) => {
        const timer = setTimeout(() => {
          const index = waiters.indexOf(deliver);
          if (index >= 0) waiters.splice(index, 1);
          reject(new Error(`no redirect reached ${redirectUri} within ${timeoutMs} ms`));
        }, timeoutMs);
        const deliver = (url: URL) => {
          clearTimeout(timer);
          resolve(url);
        };
        waiters.push(deliver);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
