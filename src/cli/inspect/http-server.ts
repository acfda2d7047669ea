import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import { UsageError } from "../exit-codes.js";
import { BadRequest, type InspectorApi } from "./api.js";
import type { EventHub } from "./events.js";
import { allowedOrigins, checkRequest, type Refusal } from "./guard.js";

/** Largest request body the page may send (tool arguments, a sampling reply). */
export const MAX_BODY_BYTES = 8_000_000;

/** The page's own policy: its bundle only, no inline script, nothing from elsewhere; views framed from here. */
const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Where the page's files are: `page.js` and `page.css`, built by `npm run build` next to the CLI. */
export interface InspectorAssets {
  dir: URL;
}

/** A running inspector web server. */
export interface InspectorServer {
  /** `http://127.0.0.1:PORT/?token=...`: the page, with the token. */
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const commonHeaders = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

/** The page: a shell that loads the bundle; everything it shows is built with DOM text nodes. */
function pageHtml(token: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>mcpkit inspect</title><link rel="stylesheet" href="/page.css?token=${token}"></head>
<body><div id="app"></div><script type="module" src="/page.js?token=${token}"></script></body></html>
`;
}

/**
 * Starts the inspector's HTTP server on 127.0.0.1 only (`port` 0: any free port), with a fresh random token
 * that every request must carry (see `checkRequest`), except the single-use URL of an App view.
 *
 * @example
 * const server = await startInspectorServer({ port: 0, api, events, assets });
 * console.log(server.url);
 */
export async function startInspectorServer(options: {
  port: number;
  api: InspectorApi;
  events: EventHub;
  assets: InspectorAssets;
}): Promise<InspectorServer> {
  const { api, events, assets } = options;
  const token = randomBytes(32).toString("base64url");
  let port = options.port;
  const files = new Map<string, Promise<Buffer>>();
  const asset = (name: string) => {
    let file = files.get(name);
    if (file === undefined) {
      file = readFile(new URL(name, assets.dir));
      files.set(name, file);
    }
    return file;
  };

  const refuse = (res: ServerResponse, refusal: Refusal) => {
    res.writeHead(refusal.status, { ...commonHeaders, "content-type": "text/plain; charset=utf-8" });
    res.end(`${refusal.reason}\n`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = url.pathname;
    const view = /^\/view\/([A-Za-z0-9_-]{32})$/.exec(path);
    const refusal = checkRequest({ port, token }, req.method, req.headers, url, view !== null);
    if (refusal !== undefined) return refuse(res, refusal);
    if (view !== null) {
      const pending = api.takeView(view[1] as string);
      if (pending === undefined || req.method !== "GET")
        return refuse(res, { status: 404, reason: "no such view" });
      res.writeHead(200, {
        ...commonHeaders,
        "content-type": "text/html; charset=utf-8",
        // The iframe's sandbox attribute, again as a header: the view stays sandboxed even opened on its own.
        "content-security-policy": `${pending.csp}; sandbox allow-scripts allow-forms; frame-ancestors ${allowedOrigins(port).join(" ")}`,
      });
      return void res.end(pending.html);
    }
    if (req.method === "GET") {
      if (path === "/") {
        res.writeHead(200, {
          ...commonHeaders,
          "content-type": "text/html; charset=utf-8",
          "content-security-policy": PAGE_CSP,
          "x-frame-options": "DENY",
        });
        return void res.end(pageHtml(token));
      }
      if (path === "/page.js" || path === "/page.css") {
        const body = await asset(path.slice(1));
        res.writeHead(200, {
          ...commonHeaders,
          "content-type": path.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8",
        });
        return void res.end(body);
      }
      if (path === "/events") {
        const last = Number(req.headers["last-event-id"]);
        if (!events.attach(res, Number.isSafeInteger(last) ? last : undefined)) {
          refuse(res, { status: 403, reason: "too many pages are open" });
        }
        return;
      }
      return refuse(res, { status: 404, reason: "not found" });
    }
    if (path !== "/api") return refuse(res, { status: 404, reason: "not found" });
    if (!(req.headers["content-type"] ?? "").startsWith("application/json")) {
      return refuse(res, { status: 415, reason: "the body must be application/json" });
    }
    const body = await readBody(req);
    if (body === undefined)
      return refuse(res, { status: 413, reason: `the body is over ${MAX_BODY_BYTES} bytes` });
    let op: unknown;
    let params: unknown;
    try {
      ({ op, params } = JSON.parse(body) as { op: unknown; params: unknown });
    } catch {
      return refuse(res, { status: 400, reason: "the body is not JSON" });
    }
    const reply = (status: number, value: unknown) => {
      res.writeHead(status, { ...commonHeaders, "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (typeof op !== "string" || (params !== undefined && (typeof params !== "object" || params === null))) {
      return reply(400, { error: { message: "expected { op, params }" } });
    }
    try {
      const result = await api.run(op, (params ?? {}) as { [key: string]: unknown });
      reply(200, { result: result ?? null });
    } catch (error) {
      if (error instanceof BadRequest) return reply(400, { error: { message: error.message } });
      reply(200, { error: describeError(error) });
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, commonHeaders);
      res.end(error instanceof Error ? error.message : "internal error");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "EADDRINUSE" || error.code === "EACCES"
          ? new UsageError(
              `--port ${options.port}: ${error.code === "EACCES" ? "not allowed" : "already in use"} on 127.0.0.1`,
            )
          : error,
      );
    });
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    close: async () => {
      events.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** An error as the page shows it: the message, and the JSON-RPC code and data or mcpkit's code. */
function describeError(error: unknown): { [key: string]: unknown } {
  if (error instanceof JsonRpcError) return { message: error.message, code: error.code, data: error.data };
  if (error instanceof Error) {
    const { code, details } = error as Error & { code?: unknown; details?: unknown };
    // A callback's failure says why (a sampling request the user rejected): its cause.
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return {
      message: `${error.message}${cause}`,
      ...(code === undefined ? {} : { code }),
      ...(details === undefined ? {} : { details }),
    };
  }
  return { message: String(error) };
}
