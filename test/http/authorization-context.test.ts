/**
 * The authorization context of a 2025-11-25 session, over real HTTP on 127.0.0.1: `authenticate` may return
 * `{ principal, authorizationContext }` (token scopes, a tenant); the session keeps a fingerprint of both and
 * checks both on every POST, GET and DELETE. The same principal under changed scopes gets 403; unchanged
 * scopes pass; without a context sessions behave as before; a context that is not plain JSON is refused like
 * a principal that is not (500, logged once).
 */
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { HttpPeer, raw, rawStart, useServe } from "../support/http-peer.js";
import { inputServer } from "../support/input-server.js";

const serve = useServe();
const LEGACY = "2025-11-25";
const MODERN = "2026-07-28";

/** The caller's principal is `x-user`; its scopes are `x-scopes` (comma separated), absent without it. */
async function start() {
  const errors: unknown[][] = [];
  const { server } = inputServer({ logger: { warn: () => {}, error: (...args) => errors.push(args) } });
  const handler = createHttpHandler(server, {
    authenticate: (request) => {
      const user = request.headers.get("x-user");
      if (user === null) return undefined;
      const scopes = request.headers.get("x-scopes");
      if (scopes === "opaque") return { principal: user, authorizationContext: new Map([["s", "read"]]) };
      return scopes === null
        ? { principal: user }
        : { principal: user, authorizationContext: { scopes: scopes.split(","), tenant: "t1" } };
    },
  });
  const { url } = await serve(handler);
  return { url, handler, errors };
}

function caller(user: string, scopes?: string): { [name: string]: string } {
  return scopes === undefined ? { "x-user": user } : { "x-user": user, "x-scopes": scopes };
}

async function openAs(url: string, headers: { [name: string]: string }): Promise<HttpPeer> {
  const peer = new HttpPeer(url, LEGACY);
  const init = peer.request("initialize", {
    protocolVersion: LEGACY,
    capabilities: {},
    clientInfo: { name: "authorization-context", version: "1.0.0" },
  });
  const reply = await peer.send(init, { headers });
  expect(reply.status, reply.text).toBe(200);
  return peer;
}

function sessionHeaders(peer: HttpPeer, headers: { [name: string]: string }) {
  return {
    accept: "text/event-stream",
    "mcp-protocol-version": LEGACY,
    "mcp-session-id": peer.sessionId ?? "",
    ...headers,
  };
}

/** The status of a GET on the session; an accepted one (an endless SSE stream) is closed at once. */
async function getStatus(url: string, peer: HttpPeer, headers: { [name: string]: string }) {
  const response = await rawStart(url, { method: "GET", headers: sessionHeaders(peer, headers) });
  response.destroy();
  return response.statusCode;
}

describe("a session bound to an authorization context", () => {
  it("answers 403 to POST, GET and DELETE of the same principal under changed scopes", async () => {
    const { url, handler } = await start();
    const alice = await openAs(url, caller("alice", "read,write"));
    for (const changed of [caller("alice", "read"), caller("alice", "read,write,admin"), caller("alice")]) {
      const post = await alice.send(alice.request("tools/list"), { headers: changed });
      expect(post.status, post.text).toBe(403);
      expect(await getStatus(url, alice, changed)).toBe(403);
      const deleted = await raw(url, { method: "DELETE", headers: sessionHeaders(alice, changed) });
      expect(deleted.status).toBe(403);
    }
    expect(handler.sessionCount).toBe(1);
  });

  it("passes POST, GET and DELETE under unchanged scopes", async () => {
    const { url, handler } = await start();
    const alice = await openAs(url, caller("alice", "read,write"));
    const same = caller("alice", "read,write");
    const post = await alice.send(alice.request("tools/list"), { headers: same });
    expect(post.status, post.text).toBe(200);
    expect(await getStatus(url, alice, same)).toBe(200);
    const deleted = await raw(url, { method: "DELETE", headers: sessionHeaders(alice, same) });
    expect(deleted.status).toBe(200);
    expect(handler.sessionCount).toBe(0);
  });

  it("keeps another principal out whatever its scopes", async () => {
    const { url } = await start();
    const alice = await openAs(url, caller("alice", "read"));
    const post = await alice.send(alice.request("tools/list"), { headers: caller("bob", "read") });
    expect(post.status).toBe(403);
  });

  it("refuses a request that adds a context to a session opened without one", async () => {
    const { url } = await start();
    const alice = await openAs(url, caller("alice"));
    const post = await alice.send(alice.request("tools/list"), { headers: caller("alice", "read") });
    expect(post.status).toBe(403);
  });
});

describe("without an authorization context", () => {
  it("behaves as before: the principal alone decides", async () => {
    const { url, handler } = await start();
    const alice = await openAs(url, caller("alice"));
    const post = await alice.send(alice.request("tools/list"), { headers: caller("alice") });
    expect(post.status, post.text).toBe(200);
    expect(await getStatus(url, alice, caller("alice"))).toBe(200);
    const stolen = await alice.send(alice.request("tools/list"), { headers: caller("bob") });
    expect(stolen.status).toBe(403);
    const deleted = await raw(url, { method: "DELETE", headers: sessionHeaders(alice, caller("alice")) });
    expect(deleted.status).toBe(200);
    expect(handler.sessionCount).toBe(0);
  });
});

describe("a context that is not plain JSON", () => {
  it("is refused with 500 -32603 on both eras, logged once", async () => {
    const { url, handler, errors } = await start();
    for (const user of ["alice", "bob"]) {
      const legacy = new HttpPeer(url, LEGACY);
      const init = legacy.request("initialize", {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: "authorization-context", version: "1.0.0" },
      });
      const refused = await legacy.send(init, { headers: caller(user, "opaque") });
      expect(refused.status, refused.text).toBe(500);
      expect(refused.messages[0]).toMatchObject({ error: { code: -32603, message: "Internal error" } });
      const modern = new HttpPeer(url, MODERN);
      const call = await modern.send(modern.request("tools/list"), { headers: caller(user, "opaque") });
      expect(call.status, call.text).toBe(500);
    }
    expect(handler.sessionCount).toBe(0);
    const told = errors.filter(([message]) => String(message).includes("principal"));
    expect(told).toHaveLength(1);
    expect(String((told[0]?.[1] as Error | undefined)?.message)).toContain("authorizationContext");
  });
});
