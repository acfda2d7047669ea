/**
 * DNS-rebinding protection and identity over real HTTP on 127.0.0.1: Host and Origin (defaults, port-specific
 * entries), and the `authenticate` hook (its identity reaches the handler; its failure is a clean 500; identity
 * never comes from headers, arguments or `_meta`).
 */
import { describe, expect, it } from "vitest";
import type { ServerLogger } from "../../src/server/core/options.js";
import { fixtureServer } from "../support/fixture-server.js";
import { HttpPeer, raw, useServe } from "../support/http-peer.js";

const serve = useServe();
const MODERN = "2026-07-28";

function recordingLogger(): ServerLogger & { errors: unknown[][] } {
  const errors: unknown[][] = [];
  return { errors, warn: () => {}, error: (...args: unknown[]) => errors.push(args) };
}

/** The identity the fixture's `whoami` tool saw, or the error. */
async function whoami(peer: HttpPeer, headers: { [name: string]: string | undefined } = {}, args = {}) {
  const reply = await peer.send(peer.request("tools/call", { name: "whoami", arguments: args }), { headers });
  const last = reply.messages.at(-1) as { result?: { content: Array<{ text: string }> } } | undefined;
  const text = last?.result?.content[0]?.text;
  return {
    reply,
    seen: text === undefined ? undefined : (JSON.parse(text) as { identity: unknown }).identity,
  };
}

describe("Host and Origin", () => {
  it("refuses a non-loopback Host with 403 before reading the request, accepts loopback hosts", async () => {
    const { url } = await serve(fixtureServer());
    const peer = new HttpPeer(url, MODERN);
    const port = new URL(url).port;
    for (const host of [
      "evil.example.com",
      `evil.example.com:${port}`,
      "127.0.0.1.nip.io",
      "localhost.evil.com",
    ]) {
      const reply = await peer.send(peer.request("tools/list"), { headers: { host } });
      expect(reply.status, host).toBe(403);
      expect(reply.text).toContain(`Forbidden: host "${host}" is not allowed`);
      expect(reply.messages).toEqual([]);
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, "localhost", "[::1]:1"]) {
      expect((await peer.send(peer.request("tools/list"), { headers: { host } })).status, host).toBe(200);
    }
    // A Host that cannot form a URL is a malformed request: the Node adapter answers 400 (RFC 9112).
    expect((await peer.send(peer.request("tools/list"), { headers: { host: "a b" } })).status).toBe(400);
    // GET and DELETE are checked first too (403, not 405).
    expect((await raw(url, { method: "GET", headers: { host: "evil.example.com" } })).status).toBe(403);
  });

  it("refuses a non-loopback Origin with 403; no Origin (not a browser) passes", async () => {
    const { url } = await serve(fixtureServer());
    const peer = new HttpPeer(url, MODERN);
    for (const origin of ["http://evil.example.com", "null", "https://localhost.evil.com"]) {
      const reply = await peer.send(peer.request("tools/list"), { headers: { origin } });
      expect(reply.status, origin).toBe(403);
      expect(reply.text).toBe("Forbidden: origin not allowed");
    }
    for (const origin of [
      "http://localhost:5173",
      "https://127.0.0.1:8443",
      "http://[::1]:3000",
      undefined,
    ]) {
      expect((await peer.send(peer.request("tools/list"), { headers: { origin } })).status, origin).toBe(200);
    }
  });

  it("lets a port-specific origin entry authorize only that port; configured hosts replace the defaults", async () => {
    const { url } = await serve(fixtureServer(), {
      handler: { allowedOrigins: ["http://localhost:3000"], allowedHosts: ["127.0.0.1"] },
    });
    const peer = new HttpPeer(url, MODERN);
    const status = async (headers: { [name: string]: string }) =>
      (await peer.send(peer.request("tools/list"), { headers })).status;
    expect(await status({ origin: "http://localhost:3000" })).toBe(200);
    expect(await status({ origin: "http://localhost:3001" })).toBe(403);
    expect(await status({ origin: "https://localhost:3000" })).toBe(403);
    expect(await status({ origin: "http://127.0.0.1:3000" })).toBe(403);
    expect(await status({ host: "localhost" })).toBe(403);
  });
});

describe("identity", () => {
  it("hands the authenticate hook's identity to the handler, in both eras", async () => {
    const { url } = await serve(fixtureServer(), {
      handler: {
        authenticate: (request) => {
          const token = request.headers.get("authorization");
          return token === "Bearer alice-token" ? { user: "alice", roles: ["admin"] } : undefined;
        },
      },
    });
    const modern = new HttpPeer(url, MODERN);
    const { seen } = await whoami(modern, { authorization: "Bearer alice-token" });
    expect(seen).toEqual({ user: "alice", roles: ["admin"] });
    expect((await whoami(modern)).seen).toBeNull();
    const legacy = new HttpPeer(url, "2025-11-25");
    await legacy.open({ headers: { authorization: "Bearer alice-token" } });
    expect((await whoami(legacy, { authorization: "Bearer alice-token" })).seen).toEqual({
      user: "alice",
      roles: ["admin"],
    });
  });

  it("never takes identity from headers, arguments or _meta", async () => {
    const { url } = await serve(fixtureServer());
    const peer = new HttpPeer(url, MODERN);
    const reply = await peer.send(
      peer.request(
        "tools/call",
        { name: "whoami", arguments: { identity: "mallory" } },
        { identity: "mallory" },
      ),
      { headers: { "x-identity": "mallory", authorization: "Bearer mallory" } },
    );
    expect(reply.messages.at(-1)).toMatchObject({
      result: { content: [{ text: JSON.stringify({ identity: null, era: MODERN }) }] },
    });
  });

  it("answers a failing hook with 500 -32603 and no detail; the detail goes to the log only", async () => {
    const logger = recordingLogger();
    const server = fixtureServer({ logger });
    const { url } = await serve(server, {
      handler: {
        authenticate: () => {
          throw new Error("database password is hunter2");
        },
      },
    });
    const peer = new HttpPeer(url, MODERN);
    const request = peer.request("tools/list");
    const reply = await peer.send(request);
    expect(reply.status).toBe(500);
    expect(reply.messages).toEqual([
      { jsonrpc: "2.0", id: request.id, error: { code: -32603, message: "Internal error" } },
    ]);
    expect(reply.text).not.toContain("hunter2");
    expect(String(logger.errors[0]?.[1])).toContain("hunter2");
    // The same for a legacy initialize: no session is opened.
    const legacy = new HttpPeer(url, "2025-11-25");
    const init = await legacy.open();
    expect(init.status).toBe(500);
    expect(init.headers["mcp-session-id"]).toBeUndefined();
  });

  it("sends the Response a hook returns to refuse a request (e.g. 401)", async () => {
    const { url } = await serve(fixtureServer(), {
      handler: {
        authenticate: (request) =>
          request.headers.get("authorization") === null
            ? new Response("login first", { status: 401, headers: { "www-authenticate": "Bearer" } })
            : "someone",
      },
    });
    const peer = new HttpPeer(url, MODERN);
    const refused = await peer.send(peer.request("tools/list"));
    expect(refused.status).toBe(401);
    expect(refused.headers["www-authenticate"]).toBe("Bearer");
    expect(refused.text).toBe("login first");
    expect((await peer.send(peer.request("tools/list"), { headers: { authorization: "x" } })).status).toBe(
      200,
    );
  });
});
