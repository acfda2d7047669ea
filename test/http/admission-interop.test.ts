/**
 * The official clients against a full admission queue, over real HTTP on 127.0.0.1: the official v2 client
 * (`@modelcontextprotocol/client` 2.4.0) in both eras and the official v1 client (`@modelcontextprotocol/sdk`
 * 1.32.2, 2025-11-25). mcpkit answers the refused call with the JSON-RPC error `-32603` "handler capacity
 * reached" (`data.retryAfterMs`) in a 200 with `Retry-After`; every client surfaces it as a protocol error with
 * its code and data, keeps its session and transport, and serves the next call. The second block pins what
 * they would do with a 503 instead (the answer not chosen: see docs/http.md, "Admission and 503").
 */
import {
  ProtocolError,
  SdkErrorCode,
  SdkHttpError,
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPError,
  StreamableHTTPClientTransport as V1Transport,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";
import { HttpPeer, useServe } from "../support/http-peer.js";
import { rejection, textOf, useCleanups } from "../support/interop-helpers.js";
import { until } from "../support/until.js";

const serve = useServe();
const cleanup = useCleanups();
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";

/** One slot and one queue place: a third call finds the queue full. */
function gatedServer() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const server = new ServerBuilder({
    serverInfo: { name: "gated", version: "1.0.0" },
    maxConcurrentHandlers: 1,
    maxQueuedHandlers: 1,
    logger: { warn: () => {}, error: () => {} },
  })
    .tool({ name: "block", inputSchema: { type: "object" } }, async () => {
      await gate;
      return { content: [{ type: "text", text: "unblocked" }] };
    })
    .tool({ name: "quick", inputSchema: { type: "object" } }, () => ({
      content: [{ type: "text", text: "quick" }],
    }))
    .build();
  return { server, open };
}

/** The answers to the client's `tools/call` POSTs, as it received them. */
interface CallPost {
  tool: string;
  status: number;
  retryAfter: string | null;
}

/** A `fetch` that records each `tools/call` POST's status and `Retry-After`, optionally turning one into 503. */
function recordingFetch(as503: boolean) {
  const posts: CallPost[] = [];
  const wrapped = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const sent =
      typeof init?.body === "string"
        ? (JSON.parse(init.body) as { method?: string; params?: { name?: string } })
        : undefined;
    let response = await fetch(input, init);
    if (sent?.method !== "tools/call") return response;
    const post: CallPost = {
      tool: String(sent.params?.name),
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
    };
    posts.push(post);
    if (as503 && post.retryAfter !== null) {
      // The experiment: the same body and Retry-After, with the status a 503 answer would have.
      response = new Response(await response.text(), { status: 503, headers: response.headers });
    }
    return response;
  };
  return { fetch: wrapped as typeof fetch, posts };
}

interface Flavour {
  title: string;
  connect(url: string, fetch: typeof globalThis.fetch): Promise<Session>;
}

interface Session {
  call(name: string): Promise<unknown>;
  sessionId(): string | undefined;
  /** What the client reported through `onerror`, and whether it closed. */
  errors: unknown[];
  closed(): boolean;
}

function watch(client: { onerror?: (error: Error) => void; onclose?: () => void }) {
  const errors: unknown[] = [];
  let closed = false;
  client.onerror = (error) => errors.push(error);
  client.onclose = () => {
    closed = true;
  };
  return { errors, closed: () => closed };
}

const v2 = (era: typeof MODERN | typeof LEGACY): Flavour => ({
  title: `official v2 client, ${era}`,
  async connect(url, fetch) {
    const mode = era === MODERN ? { pin: MODERN } : "legacy";
    const client = new V2Client({ name: "official-v2", version: "2.4.0" }, { versionNegotiation: { mode } });
    const transport = new V2Transport(new URL(url), { fetch });
    await client.connect(transport);
    cleanup(() => client.close());
    return {
      call: (name) => client.callTool({ name, arguments: {} }),
      sessionId: () => transport.sessionId,
      ...watch(client),
    };
  },
});

const v1: Flavour = {
  title: `official v1 client, ${LEGACY}`,
  async connect(url, fetch) {
    const client = new V1Client({ name: "official-v1", version: "1.32.2" });
    const transport = new V1Transport(new URL(url), { fetch });
    await client.connect(transport);
    cleanup(() => client.close());
    return {
      call: (name) => client.callTool({ name, arguments: {} }),
      sessionId: () => transport.sessionId,
      ...watch(client),
    };
  },
};

const FLAVOURS = [
  { flavour: v2(MODERN), protocolError: ProtocolError },
  { flavour: v2(LEGACY), protocolError: ProtocolError },
  { flavour: v1, protocolError: McpError },
];

/** Fills the slot and the queue from the client itself, then makes the call that finds the queue full. */
async function refusedCall(flavour: Flavour, as503: boolean) {
  const { server, open } = gatedServer();
  const { url } = await serve(createHttpHandler(server));
  const recorder = recordingFetch(as503);
  const session = await flavour.connect(url, recorder.fetch);
  const before = session.sessionId();
  const held = [session.call("block"), session.call("block")];
  await until(() => server.runningHandlers === 1 && server.queuedHandlers === 1);
  const error = await rejection(session.call("quick"));
  open();
  const unblocked = await Promise.all(held);
  return { error, session, before, unblocked, posts: recorder.posts };
}

describe.each(FLAVOURS)("$flavour.title -> a full admission queue", ({ flavour, protocolError }) => {
  it("gets -32603 with data.retryAfterMs in a 200 with Retry-After: 1, does not retry, keeps its session", async () => {
    const { error, session, before, unblocked, posts } = await refusedCall(flavour, false);
    expect(error).toBeInstanceOf(protocolError);
    expect(error).toMatchObject({ code: -32603, data: { retryAfterMs: 1000 } });
    expect((error as Error).message).toMatch(/handler capacity reached/);
    // Exactly one POST for the refused call: no client retries on its own.
    expect(posts.filter((post) => post.tool === "quick")).toEqual([
      { tool: "quick", status: 200, retryAfter: "1" },
    ]);
    expect(posts.filter((post) => post.tool === "block").every((post) => post.retryAfter === null)).toBe(
      true,
    );
    expect(unblocked.map(textOf)).toEqual(["unblocked", "unblocked"]);
    expect(textOf(await session.call("quick"))).toBe("quick");
    expect(session.sessionId()).toBe(before);
    expect(session.errors).toEqual([]);
    expect(session.closed()).toBe(false);
  });
});

describe.each(FLAVOURS)("$flavour.title -> the same refusal as a 503 (not chosen)", ({ flavour }) => {
  it("gets a bare HTTP error without the JSON-RPC code, reports it through onerror, does not retry", async () => {
    const { error, session, before, posts } = await refusedCall(flavour, true);
    if (flavour === v1) {
      expect(error).toBeInstanceOf(StreamableHTTPError);
      expect(error).toMatchObject({ code: 503 });
      expect((error as { data?: unknown }).data).toBeUndefined();
    } else {
      // The v2 client reads a JSON-RPC error from a non-2xx body only for a 400.
      expect(error).toBeInstanceOf(SdkHttpError);
      expect(error).toMatchObject({ code: SdkErrorCode.ClientHttpNotImplemented, data: { status: 503 } });
    }
    expect((error as Error).message).toMatch(/handler capacity reached/);
    expect(posts.filter((post) => post.tool === "quick")).toHaveLength(1);
    expect(session.errors).toHaveLength(1);
    // The session and transport survive: the next call is served.
    expect(textOf(await session.call("quick"))).toBe("quick");
    expect(session.sessionId()).toBe(before);
    expect(session.closed()).toBe(false);
  });
});

describe("the refusal on the wire", () => {
  it.each([MODERN, LEGACY] as const)(
    "%s: 200, Retry-After: 1, as JSON or as a one-event stream",
    async (era) => {
      const { server, open } = gatedServer();
      const { url } = await serve(createHttpHandler(server));
      const peer = new HttpPeer(url, era);
      if (era === LEGACY) await peer.open();
      const call = (name: string) => peer.request("tools/call", { name, arguments: {} });
      const held = [peer.send(call("block")), peer.send(call("block"))];
      await until(() => server.runningHandlers === 1 && server.queuedHandlers === 1);
      for (const accept of ["application/json, text/event-stream", "text/event-stream"]) {
        const refused = await peer.send(call("quick"), { headers: { accept } });
        expect(refused.status).toBe(200);
        expect(refused.headers["retry-after"]).toBe("1");
        expect(refused.contentType).toBe(
          accept.startsWith("application/json") ? "application/json" : "text/event-stream",
        );
        expect(refused.messages.at(-1)).toMatchObject({
          error: {
            code: -32603,
            message: expect.stringMatching(/^handler capacity reached: /),
            data: expect.objectContaining({ option: "maxQueuedHandlers", retryAfterMs: 1000 }),
          },
        });
      }
      open();
      for (const reply of await Promise.all(held)) expect(reply.headers["retry-after"]).toBeUndefined();
    },
  );
});
