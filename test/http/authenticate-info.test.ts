/**
 * The `authenticate` hook's second argument: the decoded JSON-RPC message of a POST (both eras; in 2026-07-28
 * already checked against the routing headers), `undefined` for a legacy GET or DELETE. The `Request` it gets
 * has no body left, so this is how a hook learns the method and the called tool.
 */
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import type { AuthenticateInfo } from "../../src/http/server/options.js";
import { ServerBuilder } from "../../src/server/index.js";
import { HttpPeer, rawStart, useServe } from "../support/http-peer.js";

const serve = useServe();

async function start() {
  const seen: (AuthenticateInfo["message"] | "none")[] = [];
  const server = new ServerBuilder({ serverInfo: { name: "info", version: "1.0.0" } })
    .tool({ name: "ping", inputSchema: { type: "object" } }, () => ({
      content: [{ type: "text", text: "pong" }],
    }))
    .build();
  const handler = createHttpHandler(server, {
    authenticate: (_request, info) => {
      seen.push(info === undefined ? "none" : info.message);
      return { principal: "alice" };
    },
  });
  const { url } = await serve(handler);
  return { url, seen };
}

describe("the authenticate hook's info", () => {
  it("carries the 2026-07-28 message: method and tool name", async () => {
    const { url, seen } = await start();
    const peer = new HttpPeer(url, "2026-07-28");
    const call = peer.request("tools/call", { name: "ping", arguments: {} });
    const reply = await peer.send(call);
    expect(reply.status, reply.text).toBe(200);
    expect(seen).toEqual([call]);
  });

  it("carries each 2025-11-25 POST's message, and nothing for a GET", async () => {
    const { url, seen } = await start();
    const peer = new HttpPeer(url, "2025-11-25");
    await peer.open();
    const call = peer.request("tools/call", { name: "ping", arguments: {} });
    expect((await peer.send(call)).status).toBe(200);
    const get = await rawStart(url, {
      method: "GET",
      headers: {
        accept: "text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        "mcp-session-id": peer.sessionId ?? "",
      },
    });
    expect(get.statusCode).toBe(200);
    get.destroy();
    const methods = seen.map((message) =>
      message === undefined || message === "none" ? message : (message as { method: string }).method,
    );
    expect(methods).toEqual(["initialize", "notifications/initialized", "tools/call", undefined]);
    expect(seen[2]).toEqual(call);
  });
});
