// The MCP server every runtime of the matrix serves (test/runtimes), from the built dist/. Short limits so the
// matrix sees deadlines, expiry and capacity recovery in seconds.
import { createHttpHandler } from "../../../dist/http/index.js";
import { ServerBuilder } from "../../../dist/server/index.js";

/**
 * A server and its fetch handler. `tight` (the default) has the short limits the server checks cross; the
 * server the in-runtime clients talk to is roomy. `keepAliveMs` is the handler's (default its own, 15 s).
 */
export function createApp({ tight = true, keepAliveMs } = {}) {
  /** `running` while a `sleep` call runs; then why it was aborted: a client's cancellation, or the deadline. */
  let sleepAbort = "";
  const server = new ServerBuilder({
    serverInfo: { name: "runtime-matrix", version: "1.0.0" },
    handlerTimeoutMs: tight ? 2_000 : 30_000,
    maxConcurrentHandlers: tight ? 2 : 64,
    logger: { warn() {}, error() {} },
  })
    .tool({ name: "add", inputSchema: { type: "object" } }, ({ a, b }) => ({
      content: [{ type: "text", text: String(Number(a) + Number(b)) }],
    }))
    .tool({ name: "progress", inputSchema: { type: "object" } }, async (_args, ctx) => {
      await ctx.progress(1, 2, "half");
      await ctx.progress(2, 2, "done");
      return { content: [{ type: "text", text: `progress ${ctx.era}` }] };
    })
    .tool({ name: "hang", inputSchema: { type: "object" } }, (_args, ctx) => {
      // Never answers: only its signal ends it.
      return new Promise((_resolve, reject) => {
        ctx.signal.addEventListener("abort", () => {
          reject(ctx.signal.reason);
        });
      });
    })
    .tool({ name: "sleep", inputSchema: { type: "object" } }, (_args, ctx) => {
      // A timer of this request, cleared by the abort: on Workers that is I/O of this request's context.
      sleepAbort = "running";
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve({ content: [{ type: "text", text: "woke" }] }), 60_000);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          sleepAbort = ctx.signal.reason?.message ?? String(ctx.signal.reason);
          reject(ctx.signal.reason);
        });
      });
    })
    .tool({ name: "sleepAbort", inputSchema: { type: "object" } }, () => ({
      content: [{ type: "text", text: sleepAbort }],
    }))
    .resource({ uri: "test://hello", name: "hello", mimeType: "text/plain" }, (uri) => ({
      contents: [{ uri, mimeType: "text/plain", text: "hello" }],
    }))
    .prompt({ name: "greet", arguments: [{ name: "name", required: true }] }, ({ name }) => ({
      messages: [{ role: "user", content: { type: "text", text: `Hello ${name}` } }],
    }))
    .buildDynamic();
  let extra = 0;
  const handler = createHttpHandler(server, {
    allowedHosts: ["*"],
    sessions: tight ? { idleTimeoutMs: 2_000, maxSessions: 4 } : {},
    ...(keepAliveMs === undefined ? {} : { keepAliveMs }),
  });
  /**
   * The fetch handler each runtime serves: `/change` adds a tool (a list_changed goes to every 2025 session and
   * listen stream), `/stats` counts sessions and listen streams, everything else is the MCP endpoint.
   */
  async function fetchHandler(request) {
    const path = new URL(request.url).pathname;
    if (path === "/change") {
      extra++;
      server.tools.add({ name: `extra-${extra}`, inputSchema: { type: "object" } }, () => ({ content: [] }));
      return new Response("changed");
    }
    if (path === "/stats") {
      return Response.json({ sessions: handler.sessionCount, listens: handler.subscriptionCount });
    }
    return handler(request);
  }
  return { server, handler, fetchHandler };
}
