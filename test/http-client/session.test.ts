/**
 * The 2025 stateful side of the HTTP client against scripted peers on 127.0.0.1: the GET stream delivering
 * server-to-client requests and notifications (and the client's answers POSTed back in the session), one
 * re-initialize on an expired session that never recurses, close() stopping the stream before a best-effort
 * DELETE whose failure is logged, resumption of a POST stream that ends early, and the older rungs (2025-06-18,
 * 2025-03-26: no MCP-Protocol-Version header, batches).
 */
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import type { FetchLike } from "../../src/http/client/fetch.js";
import { MAX_RESUMPTIONS } from "../../src/http/client/session.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { rejection, textOf } from "../support/interop-helpers.js";
import { ManualClock } from "../support/manual-clock.js";
import { until } from "../support/until.js";
import { useWireValidation } from "../support/validating-transport.js";
import { httpClient, json, LEGACY, legacy, type Received, scripted, useHttpCleanups } from "./helpers.js";

useWireValidation();
const cleanup = useHttpCleanups();

interface PeerScript {
  version?: string;
  /** Session ids minted, in order (default s1, s2, ...). */
  onGet?: (req: Received, res: ServerResponse) => void;
  onDelete?: (req: Received, res: ServerResponse) => void | Promise<void>;
  onRequest?: (req: Received, res: ServerResponse) => boolean;
}

/** A 2025 server with sessions: initialize mints s1, s2, ...; other requests need a live session. */
async function sessionPeer(script: PeerScript = {}) {
  let minted = 0;
  const live = new Set<string>();
  const peer = await scripted((req, res) => {
    const session = req.headers["mcp-session-id"] as string | undefined;
    if (req.method === "GET") return script.onGet ? script.onGet(req, res) : void res.writeHead(405).end();
    if (req.method === "DELETE") {
      if (session) live.delete(session);
      return script.onDelete ? script.onDelete(req, res) : void res.writeHead(200).end();
    }
    const { method, id } = req.body;
    if (method === "initialize") {
      const fresh = `s${++minted}`;
      live.add(fresh);
      return json(res, 200, legacy.initialize(id, script.version), { "mcp-session-id": fresh });
    }
    if (session === undefined || !live.has(session)) {
      return json(res, 404, {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32000, message: "Session not found" },
      });
    }
    if (script.onRequest?.(req, res)) return;
    if (id === undefined || !("method" in req.body)) return void res.writeHead(202).end();
    if (method === "tools/list") return json(res, 200, legacy.tools(id, []));
    json(res, 200, legacy.text(id, `${String(method)} in ${session}`));
  }, cleanup);
  return { peer, live };
}

/** A GET handler that opens an event stream, writes nothing more, and calls `closed` when it ends. */
function heldOpen(closed: () => void): NonNullable<PeerScript["onGet"]> {
  return (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(": open\n\n");
    res.on("close", closed);
  };
}

describe("the session's GET stream", () => {
  it("delivers server notifications and requests; the client's answers go back in the session", async () => {
    let stream: ((text: string) => void) | undefined;
    const { peer } = await sessionPeer({
      onGet: (_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        stream = (text) => res.write(text);
      },
    });
    const notifications: string[] = [];
    const { client, messages } = httpClient(peer.url, {
      era: LEGACY,
      pin: LEGACY,
      cleanup,
      client: { onNotification: (n) => notifications.push(n.method) },
    });
    await client.connect();
    await until(() => stream !== undefined);
    stream?.(
      `: keepalive\n\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n`,
    );
    stream?.(`id: 7\ndata: {"jsonrpc":"2.0","id":"srv-1","method":"ping"}\r\n\r\n`);
    await until(() => notifications.length === 1);
    expect(notifications).toEqual(["notifications/tools/list_changed"]);
    await until(() => peer.received.some((r) => r.body.id === "srv-1" && "result" in r.body));
    const answer = peer.received.find((r) => r.body.id === "srv-1");
    expect(answer?.headers["mcp-session-id"]).toBe("s1");
    expect(answer?.body).toEqual({ jsonrpc: "2.0", id: "srv-1", result: {} });
    expect(
      messages.some((m) => m.from === "server" && "method" in m.message && m.message.method === "ping"),
    ).toBe(true);
  });

  it("lives past any request timeout; silent past streamIdleTimeoutMs it is reopened (manual clock)", async () => {
    const streams: ServerResponse[] = [];
    const { peer } = await sessionPeer({
      onGet: (_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        // retry: 0 makes the client reopen after its floor of 100 ms.
        res.write(`retry: 0\ndata: {"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}\n\n`);
        streams.push(res);
      },
    });
    const clock = new ManualClock();
    const notifications: string[] = [];
    const { client } = httpClient(peer.url, {
      era: LEGACY,
      pin: LEGACY,
      cleanup,
      transport: { clock, policy: { streamIdleTimeoutMs: 45_000 } },
      client: { onNotification: (n) => notifications.push(n.method) },
    });
    await client.connect();
    // The stream's first event arrived: its idle timer runs from then.
    await until(() => notifications.length === 1);
    clock.advance(44_999);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(streams).toHaveLength(1);
    clock.advance(1);
    await until(() => streams.length === 2);
    streams[1]?.write(`data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n`);
    await until(() => notifications.length === 3);
    expect(notifications.at(-1)).toBe("notifications/tools/list_changed");
  });

  it("close() stops the GET stream, then DELETEs the session; a failing DELETE is logged, not thrown", async () => {
    let getClosed = false;
    const { peer } = await sessionPeer({
      onGet: heldOpen(() => {
        getClosed = true;
      }),
      // The GET stream is closed (its socket may report it just after the DELETE arrives).
      onDelete: async (_req, res) => {
        await until(() => getClosed);
        res.writeHead(500).end();
      },
    });
    const { client, logger } = httpClient(peer.url, { era: LEGACY, pin: LEGACY });
    await client.connect();
    await until(() => peer.received.some((r) => r.method === "GET"));
    await client.close();
    expect(peer.received.at(-1)).toMatchObject({ method: "DELETE", headers: { "mcp-session-id": "s1" } });
    expect(logger.lines).toContainEqual({
      level: "warn",
      message: "ending the session failed",
      details: { status: 500 },
    });
  });

  it("a DELETE that cannot reach the server is logged too", async () => {
    const { peer } = await sessionPeer();
    const { client, logger } = httpClient(peer.url, { era: LEGACY, pin: LEGACY });
    await client.connect();
    await peer.close();
    await client.close();
    expect(logger.lines.find((l) => l.message === "ending the session failed")?.details).toMatchObject({
      code: "TRANSPORT",
      reason: "network",
    });
  });
});

/**
 * A fetch that drops the signal it is given (as a proxy or an in-process fetch may): aborting it changes
 * nothing, the response's body included. `pulls` counts the reads of GET bodies, and `holdGet` keeps every GET
 * waiting for its head forever.
 */
function deafFetch(holdGet = false) {
  const state = { pulls: 0, gets: 0 };
  const deaf: FetchLike = async (url, init) => {
    const { signal: _dropped, ...rest } = init;
    if (init.method === "GET") {
      state.gets++;
      if (holdGet) return new Promise<Response>(() => {});
    }
    const response = await fetch(url, rest);
    if (init.method !== "GET" || response.body === null) return response;
    const reader = response.body.getReader();
    // Pulled only when the client reads: a second pull means it read the first chunk and waits for more.
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          state.pulls++;
          const step = await reader.read();
          if (step.done) controller.close();
          else controller.enqueue(step.value);
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { fetch: deaf, state };
}

describe("close() on a fetch that ignores its signal", () => {
  function deafClient(url: string, fetch: FetchLike) {
    const client = new Client({
      transport: new StreamableHttpClientTransport({ url, fetch }),
      clientInfo: { name: "deaf", version: "1.0.0" },
      protocolVersion: LEGACY,
    });
    cleanup(() => client.close());
    return client;
  }

  it("ends the GET stream the client is reading (the body is cancelled), then DELETEs the session", async () => {
    let getClosed = false;
    const { peer } = await sessionPeer({
      onGet: heldOpen(() => {
        getClosed = true;
      }),
    });
    const deaf = deafFetch();
    const client = deafClient(peer.url, deaf.fetch);
    await client.connect();
    await until(() => deaf.state.pulls >= 2);
    const closed = client.close();
    await until(() => getClosed);
    await closed;
    expect(peer.received.at(-1)).toMatchObject({ method: "DELETE", headers: { "mcp-session-id": "s1" } });
  });

  it("ends a GET still waiting for its head, then DELETEs the session", async () => {
    const { peer } = await sessionPeer();
    const deaf = deafFetch(true);
    const client = deafClient(peer.url, deaf.fetch);
    await client.connect();
    await until(() => deaf.state.gets === 1);
    const closed = client.close();
    await until(() => peer.received.some((r) => r.method === "DELETE"));
    await closed;
  });
});

describe("session expiry", () => {
  it("re-initializes once on a 404 and retries the request in the new session", async () => {
    const { peer, live } = await sessionPeer();
    const { client, transport } = httpClient(peer.url, { era: LEGACY, pin: LEGACY, cleanup });
    await client.connect();
    live.clear();
    expect(textOf(await client.callTool("x", {}))).toBe("tools/call in s2");
    expect(transport.sessionId).toBe("s2");
    const init = peer.received.filter((r) => r.body.method === "initialize");
    expect(init).toHaveLength(2);
    expect(init[1]?.headers["mcp-session-id"]).toBeUndefined();
    expect(init[1]?.body.params).toEqual(init[0]?.body.params);
  });

  it("does not recurse: a second 404 fails the request", async () => {
    const { peer } = await sessionPeer({
      onRequest: (req, res) => {
        if (req.body.method !== "tools/call") return false;
        json(res, 404, { jsonrpc: "2.0", id: null, error: { code: -32000, message: "Session not found" } });
        return true;
      },
    });
    const { client } = httpClient(peer.url, { era: LEGACY, pin: LEGACY, cleanup });
    await client.connect();
    const error = await rejection(client.callTool("x", {}));
    expect(error).toMatchObject({ code: -32000 });
    expect(peer.received.filter((r) => r.body.method === "initialize")).toHaveLength(2);
    expect(peer.received.filter((r) => r.body.method === "tools/call")).toHaveLength(2);
  });
});

describe("resuming a POST stream that ends before its answer (SEP-1699)", () => {
  it("waits the server's retry delay, then GETs with Last-Event-ID and takes the answer from there", async () => {
    let pending: unknown;
    const { peer } = await sessionPeer({
      onRequest: (req, res) => {
        if (req.body.method !== "tools/call") return false;
        pending = req.body.id;
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end("id: e1\nretry: 20\ndata: \n\n");
        return true;
      },
      onGet: (req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        if (req.headers["last-event-id"] === "e1") {
          res.write(`id: e2\ndata: ${JSON.stringify(legacy.text(pending, "resumed"))}\n\n`);
        }
      },
    });
    const { client } = httpClient(peer.url, { era: LEGACY, pin: LEGACY, cleanup });
    await client.connect();
    expect(textOf(await client.callTool("x", {}))).toBe("resumed");
    const resumption = peer.received.find((r) => r.headers["last-event-id"] === "e1");
    expect(resumption).toMatchObject({
      method: "GET",
      headers: { "mcp-session-id": "s1", "mcp-protocol-version": LEGACY },
    });
  });

  it(`gives up after ${MAX_RESUMPTIONS} resumptions that bring nothing`, async () => {
    const { peer } = await sessionPeer({
      onRequest: (req, res) => {
        if (req.body.method !== "tools/call") return false;
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end("id: e1\nretry: 1\ndata: \n\n");
        return true;
      },
      onGet: (req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(req.headers["last-event-id"] ? "id: e1\nretry: 1\n\n" : "");
      },
    });
    const { client } = httpClient(peer.url, { era: LEGACY, pin: LEGACY, cleanup });
    await client.connect();
    expect(await rejection(client.callTool("x", {}))).toMatchObject({
      code: "TRANSPORT",
      details: { reason: "stream_ended" },
    });
    expect(peer.received.filter((r) => r.headers["last-event-id"] !== undefined)).toHaveLength(
      MAX_RESUMPTIONS,
    );
  });
});

describe("older stateful rungs", () => {
  it("2025-06-18: accepted with acceptOlderVersions, and requests carry MCP-Protocol-Version: 2025-06-18", async () => {
    const { peer } = await sessionPeer({ version: "2025-06-18" });
    const { client, transport } = httpClient(peer.url, {
      era: LEGACY,
      pin: LEGACY,
      cleanup,
      client: { acceptOlderVersions: true },
    });
    expect((await client.connect()).protocolVersion).toBe("2025-06-18");
    await client.listTools();
    expect(transport.protocolVersion).toBe("2025-06-18");
    expect(peer.received.at(-1)?.headers["mcp-protocol-version"]).toBe("2025-06-18");
  });

  it("2025-03-26: accepted with acceptOlderVersions, no MCP-Protocol-Version header, and a batch answer is read", async () => {
    const { peer } = await sessionPeer({
      version: "2025-03-26",
      onRequest: (req, res) => {
        if (req.body.method !== "tools/call") return false;
        json(res, 200, [
          { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hi" } },
          legacy.text(req.body.id, "batched"),
        ]);
        return true;
      },
    });
    const logs: unknown[] = [];
    const { client } = httpClient(peer.url, {
      era: LEGACY,
      pin: LEGACY,
      cleanup,
      client: { acceptOlderVersions: true, onLog: (l) => logs.push(l.data) },
    });
    expect((await client.connect()).protocolVersion).toBe("2025-03-26");
    expect(textOf(await client.callTool("x", {}))).toBe("batched");
    expect(logs).toEqual(["hi"]);
    for (const request of peer.received) expect(request.headers["mcp-protocol-version"]).toBeUndefined();
  });
});
