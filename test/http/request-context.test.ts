// An abort sent by one request for another runs in the context of the request it aborts (issue 18): on
// Cloudflare Workers a handler's abort listener may only touch its own request's I/O (clearing its own timer is
// I/O there). Node's AsyncLocalStorage stands in for the Workers I/O context: promise reactions run in the
// context they were created in, as Workers deliver cross-request promise resolutions.
import { AsyncLocalStorage } from "node:async_hooks";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { until } from "../support/until.js";

const requestContext = new AsyncLocalStorage<string>();
const URL_ = "http://127.0.0.1/mcp";

function post(body: unknown, headers: { [name: string]: string } = {}): Request {
  return new Request(URL_, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

describe("aborts across requests", () => {
  it("runs a 2025 notifications/cancelled abort in the cancelled request's own context", async () => {
    const seen: { started?: string | undefined; aborted?: string | undefined } = {};
    const server = new ServerBuilder({ serverInfo: { name: "ctx", version: "1" } })
      .tool({ name: "wait", inputSchema: { type: "object" } }, (_args, ctx) => {
        seen.started = requestContext.getStore();
        return new Promise((_resolve, reject) =>
          ctx.signal.addEventListener("abort", () => {
            seen.aborted = requestContext.getStore();
            reject(ctx.signal.reason);
          }),
        );
      })
      .build();
    const handler = createHttpHandler(server);
    const init = await handler(
      post({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    );
    const session = {
      "mcp-session-id": init.headers.get("mcp-session-id") ?? "",
      "mcp-protocol-version": "2025-11-25",
    };
    await handler(post({ jsonrpc: "2.0", method: "notifications/initialized" }, session));
    const call = requestContext.run("the call", () =>
      handler(
        post(
          { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "wait", arguments: {} } },
          session,
        ),
      ),
    );
    await until(() => seen.started !== undefined);
    await requestContext.run("the cancellation", () =>
      handler(post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } }, session)),
    );
    await until(() => seen.aborted !== undefined);
    expect(seen).toEqual({ started: "the call", aborted: "the call" });
    expect((await call).status).toBe(202);
    await handler.close();
  });
});
