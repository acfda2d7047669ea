/**
 * Long-lived streams over the HTTP client are governed by silence, never by the request deadline: a 2026-07-28
 * `subscriptions/listen` held for minutes on a manual clock against mcpkit's own server (real HTTP on 127.0.0.1)
 * still delivers; `streamIdleTimeoutMs` ends a silent listen stream and a keepalive comment resets it; an SSE
 * answer whose bytes keep coming runs past the policy's `requestTimeoutMs` (the caller's deadline bounds it),
 * while a JSON answer that trickles does not.
 */
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import type { HttpClient } from "../../src/http/client/exchange.js";
import { fetchHttpClient } from "../../src/http/client/fetch.js";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { nodeHttp } from "../../src/node/http-client.js";
import { serve } from "../../src/node/serve.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { rejection } from "../support/interop-helpers.js";
import { ManualClock } from "../support/manual-clock.js";
import { until } from "../support/until.js";
import { useWireValidation } from "../support/validating-transport.js";
import { HTTP_STACK, httpClient, json, MODERN, modern, scripted, sse, useHttpCleanups } from "./helpers.js";

useWireValidation();
const cleanup = useHttpCleanups();

/**
 * The HTTP stack in force, counting the body chunks the transport has been handed: a test waits for a byte it
 * wrote to arrive before it moves the clock.
 */
function countingStack(): { transport: { http: HttpClient }; chunks: () => number } {
  const inner = HTTP_STACK === "node" ? nodeHttp() : fetchHttpClient((url, init) => fetch(url, init));
  let chunks = 0;
  const http: HttpClient = {
    request: (request) => {
      const exchange = inner.request(request);
      const response = exchange.response.then((head) => ({
        status: head.status,
        header: (name: string) => head.header(name),
        discard: () => head.discard(),
        pipe: (onChunk: (chunk: Uint8Array) => boolean, onWire?: (bytes: number) => void) =>
          head.pipe((chunk) => {
            chunks++;
            return onChunk(chunk);
          }, onWire),
      }));
      return { response, abort: (reason) => exchange.abort(reason) };
    },
    close: () => inner.close?.(),
  };
  return { transport: { http, fetch: undefined } as { http: HttpClient }, chunks: () => chunks };
}

/** Writes `text` on `res` and waits until the client has read it. */
async function deliver(res: ServerResponse, text: string, stack: { chunks: () => number }): Promise<void> {
  const seen = stack.chunks();
  res.write(text);
  await until(() => stack.chunks() > seen);
}

async function mcpkitServer(clock: ManualClock) {
  const built = new ServerBuilder({
    serverInfo: { name: "long-streams", version: "1.0.0" },
    listChanged: { tools: true },
  })
    .tool({ name: "noop", inputSchema: { type: "object" } }, () => ({ content: [] }))
    .build();
  const handler = createHttpHandler(built, { clock });
  const running = await serve(handler, { host: "127.0.0.1" });
  cleanup(
    () => running.close(),
    () => handler.close(),
  );
  return { server: built, url: running.url };
}

/** A 2026 peer whose listen stream is answered by `onListen`; other requests by `onOther`. */
async function listenPeer(
  onListen: (id: unknown, res: ServerResponse) => void,
  onOther: (id: unknown, method: string, res: ServerResponse) => void = (id, _method, res) =>
    json(res, 200, modern.error(id, -32601, "Method not found")),
) {
  return scripted((req, res) => {
    if (req.body.method === "server/discover") return json(res, 200, modern.discover(req.body.id));
    if (req.body.method === "subscriptions/listen") return onListen(req.body.id, res);
    return onOther(req.body.id, String(req.body.method), res);
  }, cleanup);
}

const ack = (id: unknown) => ({
  jsonrpc: "2.0",
  method: "notifications/subscriptions/acknowledged",
  params: {
    notifications: { toolsListChanged: true },
    _meta: { "io.modelcontextprotocol/subscriptionId": id },
  },
});

describe("a 2026-07-28 listen over HTTP", () => {
  it("is held past five request timeouts (manual clock), then delivers what the server publishes", async () => {
    const clock = new ManualClock();
    const { server, url } = await mcpkitServer(clock);
    const { client, logger } = httpClient(url, {
      era: MODERN,
      pin: MODERN,
      cleanup,
      transport: { clock },
    });
    await client.connect();
    const sub = await client.listenSubscriptions({ toolsListChanged: true }, { relisten: false });
    expect(await sub.next(5_000)).toMatchObject({ type: "acknowledged" });
    await until(() => server.subscriptionCount === 1);
    // The policy's requestTimeoutMs is 60 s and receiveTimeoutMs 30 s; five minutes pass, a minute at a time.
    for (let minute = 1; minute <= 5; minute++) {
      clock.advance(60_000);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(sub.end).toBeUndefined();
    await server.notifyListChanged("tools");
    expect(await sub.next(5_000)).toMatchObject({
      type: "notification",
      notification: { method: "notifications/tools/list_changed" },
    });
    expect(logger.lines.filter((line) => line.level === "warn")).toEqual([]);
    await sub.close();
  });

  it("ends after streamIdleTimeoutMs of silence; a keepalive comment resets the count", async () => {
    const clock = new ManualClock();
    const streams: ServerResponse[] = [];
    const peer = await listenPeer((id, res) => {
      sse(res)(ack(id));
      streams.push(res);
    });
    const stack = countingStack();
    const { client } = httpClient(peer.url, {
      era: MODERN,
      pin: MODERN,
      cleanup,
      transport: { ...stack.transport, clock, policy: { streamIdleTimeoutMs: 45_000 } },
    });
    await client.connect();
    const sub = await client.listenSubscriptions({ toolsListChanged: true }, { relisten: false });
    expect(await sub.next(5_000)).toMatchObject({ type: "acknowledged" });
    clock.advance(30_000);
    // A keepalive comment arrives: 30 s more of silence is fine, 45 s is not.
    await deliver(streams[0] as ServerResponse, ": keepalive\n\n", stack);
    clock.advance(30_000);
    expect(sub.end).toBeUndefined();
    clock.advance(15_000);
    const next = await sub.next(5_000);
    expect(next).toMatchObject({
      type: "end",
      end: {
        reason: "transport_closed",
        error: { code: "TIMEOUT", details: { timeout: "streamIdle", timeoutMs: 45_000 } },
      },
    });
  });
});

/**
 * A client on a manual clock whose `tools/call`s a peer answers with `open` and then holds: the test drives the
 * held response (`streams`) and the clock.
 */
async function heldCall(
  open: (res: ServerResponse) => void,
  policy: { receiveTimeoutMs: number; requestTimeoutMs?: number },
) {
  const clock = new ManualClock();
  const streams: ServerResponse[] = [];
  const peer = await listenPeer(
    () => {},
    (_id, _method, res) => {
      open(res);
      streams.push(res);
    },
  );
  const stack = countingStack();
  const { client } = httpClient(peer.url, {
    era: MODERN,
    pin: MODERN,
    cleanup,
    transport: { ...stack.transport, clock, policy },
  });
  await client.connect();
  return { clock, streams, peer, stack, client };
}

/** Opens an SSE answer with one log notification. */
const openSse = (res: ServerResponse) =>
  sse(res)({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "started" } });

describe("a request answered over HTTP", () => {
  it("in SSE runs past the policy's requestTimeoutMs while its bytes keep coming; the call's deadline bounds it", async () => {
    const { clock, streams, peer, stack, client } = await heldCall(openSse, {
      receiveTimeoutMs: 20_000,
      requestTimeoutMs: 60_000,
    });
    const call = client.callTool("long", {}, { timeoutMs: 3_600_000 });
    await until(() => streams.length === 1 && stack.chunks() > 0);
    const [res] = streams as [ServerResponse];
    // Ten minutes of keepalives every 15 s (the server's default): past ten request timeouts.
    for (let beat = 0; beat < 40; beat++) {
      clock.advance(15_000);
      await deliver(res, ": keepalive\n\n", stack);
    }
    res.write(
      `event: message\ndata: ${JSON.stringify(modern.text(peer.received.at(-1)?.body.id, "done"))}\n\n`,
    );
    expect(await call).toMatchObject({ content: [{ type: "text", text: "done" }] });
  });

  it("in SSE still ends after receiveTimeoutMs of silence", async () => {
    const { clock, streams, stack, client } = await heldCall(openSse, { receiveTimeoutMs: 20_000 });
    const call = rejection(client.callTool("stall", {}, { timeoutMs: 3_600_000 }));
    await until(() => streams.length === 1 && stack.chunks() > 0);
    clock.advance(20_000);
    expect(await call).toMatchObject({ code: "TIMEOUT", details: { timeout: "receive", timeoutMs: 20_000 } });
  });

  it("in JSON that trickles is ended by requestTimeoutMs", async () => {
    const { clock, streams, stack, client } = await heldCall(
      (res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"jsonrpc":"2.0",');
      },
      { receiveTimeoutMs: 20_000, requestTimeoutMs: 60_000 },
    );
    const call = rejection(client.callTool("trickle", {}, { timeoutMs: 3_600_000 }));
    await until(() => streams.length === 1 && stack.chunks() > 0);
    const [res] = streams as [ServerResponse];
    // Bytes every 15 s, so receiveTimeoutMs never passes; the whole does at 60 s.
    for (let beat = 0; beat < 3; beat++) {
      clock.advance(15_000);
      await deliver(res, " ", stack);
    }
    clock.advance(15_000);
    expect(await call).toMatchObject({ code: "TIMEOUT", details: { timeout: "request", timeoutMs: 60_000 } });
  });
});

describe("a call's deadline and progress (resetTimeoutOnProgress)", () => {
  /** mcpkit's server with a tool that sends one progress notification per `step()`, and answers on `finish()`. */
  async function progressServer() {
    const steps: Array<() => void> = [];
    let calls = 0;
    const built = new ServerBuilder({ serverInfo: { name: "progress", version: "1.0.0" } })
      .tool({ name: "slow", inputSchema: { type: "object" } }, async (_args, context) => {
        calls++;
        for (let n = 1; ; n++) {
          const next = await new Promise<"step" | "finish">((resolve) => {
            steps.push(() => resolve("step"));
            steps.push(() => resolve("finish"));
          });
          steps.length = 0;
          if (next === "finish") return { content: [{ type: "text", text: `after ${n - 1} steps` }] };
          await context.progress(n);
        }
      })
      .build();
    const handler = createHttpHandler(built);
    const running = await serve(handler, { host: "127.0.0.1" });
    cleanup(
      () => running.close(),
      () => handler.close(),
    );
    const ready = () => until(() => steps.length === 2);
    return {
      url: running.url,
      calls: () => calls,
      step: async () => {
        await ready();
        steps[0]?.();
      },
      finish: async () => {
        await ready();
        steps[1]?.();
      },
    };
  }

  it("with it, each progress notification restarts timeoutMs: the call outlives it many times over", async () => {
    const { url, step, finish } = await progressServer();
    const clock = new ManualClock();
    const { client } = httpClient(url, { era: MODERN, pin: MODERN, cleanup, client: { clock } });
    await client.connect();
    const seen: number[] = [];
    const call = client.callTool(
      "slow",
      {},
      { timeoutMs: 10_000, resetTimeoutOnProgress: true, onProgress: (p) => seen.push(p.progress) },
    );
    for (let n = 1; n <= 5; n++) {
      clock.advance(9_000);
      await step();
      await until(() => seen.length === n);
    }
    clock.advance(9_000);
    await finish();
    expect(await call).toMatchObject({ content: [{ type: "text", text: "after 5 steps" }] });
    expect(clock.pending).toBe(0);
  });

  it("with it, timeoutMs without progress ends the call (TIMEOUT, resetTimeoutOnProgress in details)", async () => {
    const { url, step, calls } = await progressServer();
    const clock = new ManualClock();
    const { client } = httpClient(url, { era: MODERN, pin: MODERN, cleanup, client: { clock } });
    await client.connect();
    const seen: number[] = [];
    const call = rejection(
      client.callTool(
        "slow",
        {},
        { timeoutMs: 10_000, resetTimeoutOnProgress: true, onProgress: (p) => seen.push(p.progress) },
      ),
    );
    await until(() => calls() === 1);
    await step();
    await until(() => seen.length === 1);
    clock.advance(9_999);
    clock.advance(1);
    expect(await call).toMatchObject({
      code: "TIMEOUT",
      details: { timeoutMs: 10_000, resetTimeoutOnProgress: true },
    });
  });

  it("refuses a bad maxTotalTimeoutMs, naming it", async () => {
    const { url } = await progressServer();
    const { client } = httpClient(url, { era: MODERN, pin: MODERN, cleanup });
    await client.connect();
    expect(
      await rejection(client.callTool("slow", {}, { resetTimeoutOnProgress: true, maxTotalTimeoutMs: -1 })),
    ).toMatchObject({ code: "INVALID_CONFIG", details: { key: "maxTotalTimeoutMs" } });
  });
});
