/**
 * Principals over real HTTP on 127.0.0.1: an identity that is a class instance, a `Map` or an object of
 * getters has no JSON form that tells users apart, so it must name its principal (`principal`) or be refused
 * (500, logged once). With a principal, users stay apart: sessions (403 for another user's session), sealed
 * `requestState` (another user's replay is refused) and the per-identity quota. Anonymous callers are capped
 * per remote address.
 */
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import type { HttpHandlerOptions } from "../../src/http/server/options.js";
import { HttpPeer, raw, useServe } from "../support/http-peer.js";
import { inputServer } from "../support/input-server.js";

const serve = useServe();
const LEGACY = "2025-11-25";
const MODERN = "2026-07-28";
const caps = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };

/** A user whose fields are private: its JSON form is `{}`. Its principal is a getter on the prototype. */
class User {
  readonly #sub: string;
  constructor(sub: string) {
    this.#sub = sub;
  }
  get principal(): string {
    return this.#sub;
  }
}

/** A user with private fields and no principal. */
class Opaque {
  readonly #sub: string;
  constructor(sub: string) {
    this.#sub = sub;
  }
  get sub(): string {
    return this.#sub;
  }
}

async function start(identityOf: (user: string) => unknown, options: HttpHandlerOptions = {}) {
  const errors: unknown[][] = [];
  const { server } = inputServer({ logger: { warn: () => {}, error: (...args) => errors.push(args) } });
  const handler = createHttpHandler(server, {
    authenticate: (request) => {
      const user = request.headers.get("x-user");
      return user === null ? undefined : identityOf(user);
    },
    ...options,
  });
  const { url } = await serve(handler);
  return { url, handler, errors };
}

async function openAs(url: string, user: string): Promise<HttpPeer> {
  const peer = new HttpPeer(url, LEGACY);
  const init = peer.request("initialize", {
    protocolVersion: LEGACY,
    capabilities: {},
    clientInfo: { name: "principals", version: "1.0.0" },
  });
  const reply = await peer.send(init, { headers: { "x-user": user } });
  expect(reply.status, reply.text).toBe(200);
  return peer;
}

describe("identities without a JSON form", () => {
  const opaque: Array<[string, (user: string) => unknown]> = [
    ["a class instance with private fields", (user) => new Opaque(user)],
    ["a Map", (user) => new Map([["sub", user]])],
    [
      "an object of getters",
      (user) => Object.defineProperty({}, "sub", { get: () => user, enumerable: false }),
    ],
    ["an object keyed by a symbol", (user) => ({ [Symbol.for("sub")]: user })],
    ["an empty object", () => ({})],
  ];
  for (const [kind, identityOf] of opaque) {
    it(`refuses ${kind} with 500 on both eras, logged once`, async () => {
      const { url, handler, errors } = await start(identityOf);
      for (const user of ["alice", "bob"]) {
        const legacy = new HttpPeer(url, LEGACY);
        const init = legacy.request("initialize", {
          protocolVersion: LEGACY,
          capabilities: {},
          clientInfo: { name: "principals", version: "1.0.0" },
        });
        const refused = await legacy.send(init, { headers: { "x-user": user } });
        expect(refused.status, refused.text).toBe(500);
        expect(refused.messages[0]).toMatchObject({ error: { code: -32603, message: "Internal error" } });
        const modern = new HttpPeer(url, MODERN);
        const call = await modern.send(modern.request("tools/list"), { headers: { "x-user": user } });
        expect(call.status, call.text).toBe(500);
      }
      expect(handler.sessionCount).toBe(0);
      expect(errors.filter(([message]) => String(message).includes("principal"))).toHaveLength(1);
    });
  }

  it("keeps a plain JSON identity working, each user its own principal", async () => {
    const { url } = await start((user) => ({ sub: user, roles: ["reader"] }));
    const alice = await openAs(url, "alice");
    const stolen = await alice.send(alice.request("tools/list"), { headers: { "x-user": "bob" } });
    expect(stolen.status).toBe(403);
    const own = await alice.send(alice.request("tools/list"), { headers: { "x-user": "alice" } });
    expect(own.status).toBe(200);
  });
});

describe("a class instance that names its principal", () => {
  it("keeps Bob out of Alice's session: POST, GET and DELETE are 403", async () => {
    const { url, handler } = await start((user) => new User(user));
    const alice = await openAs(url, "alice");
    const post = await alice.send(alice.request("tools/list"), { headers: { "x-user": "bob" } });
    expect(post.status).toBe(403);
    const headers = (user: string) => ({
      accept: "text/event-stream",
      "mcp-protocol-version": LEGACY,
      "mcp-session-id": alice.sessionId ?? "",
      "x-user": user,
    });
    for (const method of ["GET", "DELETE"]) {
      const reply = await raw(url, { method, headers: headers("bob") });
      expect(reply.status, method).toBe(403);
    }
    expect(handler.sessionCount).toBe(1);
    const own = await alice.send(alice.request("tools/list"), { headers: { "x-user": "alice" } });
    expect(own.status).toBe(200);
  });

  it("refuses Bob's replay of Alice's sealed requestState", async () => {
    const { url } = await start((user) => new User(user));
    const peer = new HttpPeer(url, MODERN);
    const first = await peer.send(peer.request("tools/call", { name: "survey", arguments: {} }, caps), {
      headers: { "x-user": "alice" },
    });
    const { requestState } = (first.messages[0] as unknown as { result: { requestState: string } }).result;
    expect(typeof requestState).toBe("string");
    const retry = (user: string) =>
      peer.send(
        peer.request(
          "tools/call",
          {
            name: "survey",
            arguments: {},
            requestState,
            inputResponses: { name: { action: "accept", content: { name: "Bob" } } },
          },
          caps,
        ),
        { headers: { "x-user": user } },
      );
    const replay = await retry("bob");
    expect(replay.status, replay.text).toBe(400);
    expect(replay.messages[0]).toMatchObject({ error: { code: -32602 } });
    const own = await retry("alice");
    expect(own.status, own.text).toBe(200);
  });

  it("counts the per-identity session quota per user, not for all users together", async () => {
    const { url, handler } = await start((user) => new User(user), {
      sessions: { maxSessionsPerIdentity: 2 },
    });
    for (const user of ["u1", "u2", "u3", "u4"]) {
      await openAs(url, user);
      await openAs(url, user);
    }
    expect(handler.sessionCount).toBe(8);
    const peer = new HttpPeer(url, LEGACY);
    const third = await peer.send(
      peer.request("initialize", {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: "principals", version: "1.0.0" },
      }),
      { headers: { "x-user": "u1" } },
    );
    expect(third.status).toBe(503);
    expect(third.messages[0]).toMatchObject({ error: { data: { reason: "identity_limit" } } });
  });
});

describe("anonymous callers", () => {
  const initialize = (id = 1) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "initialize",
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "anon", version: "1.0.0" } },
    });

  it("caps the sessions of one remote address over real HTTP (default 16; 503 address_limit)", async () => {
    const { server } = inputServer();
    const handler = createHttpHandler(server);
    const { url } = await serve(handler);
    for (let i = 0; i < 16; i++) await openAs(url, "anonymous");
    expect(handler.sessionCount).toBe(16);
    const peer = new HttpPeer(url, LEGACY);
    const refused = await peer.send(JSON.parse(initialize()));
    expect(refused.status).toBe(503);
    expect(refused.messages[0]).toMatchObject({ error: { data: { reason: "address_limit" } } });
    expect(handler.sessionCount).toBe(16);
  });

  it("takes the remote address from the Web handler's context; IPv6 callers count per /64", async () => {
    const { server } = inputServer();
    const handler = createHttpHandler(server, { sessions: { maxSessionsPerAddress: 2 } });
    const post = (remoteAddress: string | undefined) =>
      handler(
        new Request("http://127.0.0.1/mcp", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: initialize(),
        }),
        remoteAddress === undefined ? undefined : { remoteAddress },
      );
    expect((await post("192.0.2.1")).status).toBe(200);
    expect((await post("::ffff:192.0.2.1")).status).toBe(200);
    const third = await post("192.0.2.1");
    expect(third.status).toBe(503);
    expect(await third.json()).toMatchObject({ error: { data: { reason: "address_limit" } } });
    expect((await post("192.0.2.2")).status).toBe(200);
    expect((await post("2001:db8:0:1::1")).status).toBe(200);
    expect((await post("2001:db8::1:0:0:0:2")).status).toBe(200);
    expect((await post("2001:0db8:0000:0001:ffff::9")).status).toBe(503);
    expect((await post("2001:db8:0:2::1")).status).toBe(200);
    await handler.close();
  });

  it("does not cap an authenticated caller by address", async () => {
    const { url, handler } = await start((user) => ({ sub: user }), {
      sessions: { maxSessionsPerAddress: 1 },
    });
    await openAs(url, "alice");
    await openAs(url, "bob");
    await openAs(url, "alice");
    expect(handler.sessionCount).toBe(3);
  });
});
