/**
 * The HTTP client's security policy, rule by rule, against scripted peers on 127.0.0.1: URL rules, redirects,
 * byte limits (request, response, SSE event), header collisions, the concurrency bound, timeouts, and the rule
 * that secrets (auth hook output, header values, the URL's query) never reach errors or logs.
 */
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { httpClientPolicy } from "../../src/http/client/policy.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { McpkitError } from "../../src/jsonrpc/errors.js";
import { rejection } from "../support/interop-helpers.js";
import { useWireValidation } from "../support/validating-transport.js";
import {
  HTTP_STACK,
  httpClient,
  json,
  MODERN,
  modern,
  recordingLogger,
  scripted,
  sse,
  stackOptions,
  useHttpCleanups,
} from "./helpers.js";

useWireValidation();
const cleanup = useHttpCleanups();

function transportError(options: ConstructorParameters<typeof StreamableHttpClientTransport>[0]): unknown {
  try {
    new StreamableHttpClientTransport(options);
  } catch (error) {
    return error;
  }
  throw new Error("expected the transport to refuse its options");
}

/** A 2026 server that answers discover, lists `tools`, and answers calls with `onCall`. */
function modernPeer(onCall: (body: { id?: unknown }, res: import("node:http").ServerResponse) => void) {
  return scripted((req, res) => {
    if (req.body.method === "server/discover") return json(res, 200, modern.discover(req.body.id));
    if (req.body.method === "tools/list") return json(res, 200, modern.tools(req.body.id, []));
    return onCall(req.body, res);
  }, cleanup);
}

describe("URL rules", () => {
  it.each([
    ["http://example.com/mcp", "non_loopback_http"],
    ["http://10.0.0.1/mcp", "non_loopback_http"],
    ["http://user:secret@127.0.0.1/mcp", "userinfo"],
    ["http://127.0.0.1/mcp#frag", "fragment"],
    ["ftp://127.0.0.1/mcp", "insecure_scheme"],
    ["file:///etc/passwd", "insecure_scheme"],
    ["not a url", "invalid_url"],
  ])("refuses %s (%s) before any request", (url, reason) => {
    const error = transportError({ url });
    expect(error).toBeInstanceOf(McpkitError);
    expect(error).toMatchObject({ code: "INVALID_CONFIG", details: { reason } });
    expect(String((error as Error).message)).not.toContain("secret");
  });

  it.each([
    "http://localhost:1/mcp",
    "http://api.localhost:1/mcp",
    "http://127.0.0.1:1/mcp",
    "http://127.9.8.7/mcp",
    "http://[::1]:1/mcp",
    "https://example.com/mcp",
  ])("accepts %s", (url) => {
    expect(() => new StreamableHttpClientTransport({ url })).not.toThrow();
  });

  it("allows plain http to other hosts only when the policy says so", () => {
    const url = "http://example.com/mcp";
    expect(
      () => new StreamableHttpClientTransport({ url, policy: { allowNonLoopbackHttp: true } }),
    ).not.toThrow();
  });
});

describe("the policy object", () => {
  it("has the documented defaults, and gateway has the same values", () => {
    const policy = httpClientPolicy();
    expect(policy).toEqual({
      maxRequestBytes: 8_000_000,
      maxResponseBytes: 8_000_000,
      maxDecodedResponseBytes: 8_000_000,
      maxSseEventBytes: 8_000_000,
      maxConcurrentRequests: 64,
      allowNonLoopbackHttp: false,
      connectTimeoutMs: 5_000,
      receiveTimeoutMs: 30_000,
      requestTimeoutMs: 60_000,
      streamIdleTimeoutMs: Number.POSITIVE_INFINITY,
      maxToolSchemas: 1_024,
    });
    expect(httpClientPolicy({ preset: "gateway" })).toEqual(policy);
    expect(Object.isFrozen(policy)).toBe(true);
  });

  it.each([
    [{ maxResponseBytes: 0 }, "maxResponseBytes"],
    [{ maxConcurrentRequests: 1.5 }, "maxConcurrentRequests"],
    [{ receiveTimeoutMs: -1 }, "receiveTimeoutMs"],
    [{ allowNonLoopbackHttp: "yes" }, "allowNonLoopbackHttp"],
    [{ followRedirects: true }, "followRedirects"],
    [{ preset: "lax" }, "preset"],
  ])("refuses %j", (input, key) => {
    expect(() => httpClientPolicy(input as never)).toThrow(
      expect.objectContaining({ code: "INVALID_CONFIG", details: { key } }),
    );
  });

  it("refuses unknown transport options and policy keys, naming them", () => {
    expect(transportError({ url: "http://127.0.0.1/mcp", retries: 3 } as never)).toMatchObject({
      code: "INVALID_CONFIG",
      message: "retries is not an option",
      details: { key: "retries" },
    });
    expect(() => httpClientPolicy({ retries: 3 } as never)).toThrow(
      expect.objectContaining({
        code: "INVALID_CONFIG",
        message: "HTTP client policy retries is not an option",
        details: { key: "retries" },
      }),
    );
  });
});

describe("responses", () => {
  it("go through the HTTP stack under test (fetch sends a user-agent, node:http none)", async () => {
    const peer = await modernPeer((body, res) => json(res, 200, modern.text(body.id, "ok")));
    const { client } = httpClient(peer.url, { era: MODERN, cleanup });
    await client.connect();
    const agent = peer.received[0]?.headers["user-agent"];
    expect(agent === undefined).toBe(HTTP_STACK === "node");
  });

  it("rejects every redirect and never follows it", async () => {
    const peer = await scripted((_req, res) => {
      res.writeHead(307, { location: "http://127.0.0.1:1/elsewhere" }).end();
    }, cleanup);
    const { client } = httpClient(peer.url, { era: MODERN, cleanup });
    const error = await rejection(client.connect());
    expect(error).toMatchObject({ code: "TRANSPORT", details: { reason: "redirect_rejected", status: 307 } });
    expect(peer.received).toHaveLength(1);
  });

  it("refuses a JSON body over maxResponseBytes, declared or streamed", async () => {
    const big = modern.text(0, "x".repeat(5_000));
    for (const chunked of [false, true]) {
      const peer = await modernPeer((body, res) => {
        const text = JSON.stringify({ ...big, id: body.id });
        if (chunked) {
          res.writeHead(200, { "content-type": "application/json" });
          res.write(text.slice(0, 2_000));
          res.end(text.slice(2_000));
        } else json(res, 200, { ...big, id: body.id });
      });
      const { client } = httpClient(peer.url, {
        era: MODERN,
        cleanup,
        transport: { policy: { maxResponseBytes: 1_000 } },
      });
      await client.connect();
      const error = await rejection(client.callTool("big", {}));
      expect(error).toMatchObject({
        code: "MESSAGE_TOO_LARGE",
        details: { reason: "response_too_large", limit: 1_000 },
      });
    }
  });

  it("asks for no compression, and bounds what the platform decoded when a server compresses anyway", async () => {
    const peer = await modernPeer((body, res) => {
      const packed = gzipSync(JSON.stringify(modern.text(body.id, "x".repeat(5_000))));
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(packed);
    });
    const { client } = httpClient(peer.url, {
      era: MODERN,
      cleanup,
      transport: { policy: { maxDecodedResponseBytes: 1_000 } },
    });
    await client.connect();
    const error = await rejection(client.callTool("packed", {}));
    expect(error).toMatchObject({
      code: "MESSAGE_TOO_LARGE",
      details: { reason: "decoded_response_too_large", limit: 1_000 },
    });
    expect(peer.received.every((r) => r.headers["accept-encoding"] === "identity")).toBe(true);
  });

  it("times out a notification POST whose head never comes (connect timeout)", async () => {
    const peer = await scripted((req, res) => {
      if (req.body.method === "initialize") {
        return json(res, 200, {
          jsonrpc: "2.0",
          id: req.body.id,
          result: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            serverInfo: { name: "s", version: "1" },
          },
        });
      }
      // notifications/initialized: never answered
    }, cleanup);
    const { client } = httpClient(peer.url, {
      era: "2025-11-25",
      pin: "2025-11-25",
      cleanup,
      transport: { policy: { connectTimeoutMs: 150 } },
    });
    const error = await rejection(client.connect());
    expect((error as Error).cause).toMatchObject({ code: "TIMEOUT", details: { timeout: "connect" } });
  });

  it("refuses an SSE event over maxSseEventBytes, before it is decoded", async () => {
    const peer = await modernPeer((body, res) => {
      const send = sse(res);
      send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } });
      send(modern.text(body.id, "y".repeat(3_000)));
      res.end();
    });
    const { client } = httpClient(peer.url, {
      era: MODERN,
      cleanup,
      transport: { policy: { maxSseEventBytes: 1_000 } },
    });
    await client.connect();
    const error = await rejection(client.callTool("big", {}));
    expect(error).toMatchObject({
      code: "MESSAGE_TOO_LARGE",
      details: { reason: "sse_event_too_large", limit: 1_000 },
    });
  });

  it("refuses a request over maxRequestBytes without sending it", async () => {
    const peer = await modernPeer((body, res) => json(res, 200, modern.text(body.id, "sent")));
    const { client } = httpClient(peer.url, {
      era: MODERN,
      cleanup,
      transport: { policy: { maxRequestBytes: 2_000 } },
    });
    await client.connect();
    const error = await rejection(client.callTool("big", { blob: "z".repeat(3_000) }));
    expect(error).toMatchObject({ code: "MESSAGE_TOO_LARGE", details: { reason: "request_too_large" } });
    expect(peer.received.map((r) => r.body.method)).toEqual(["server/discover"]);
  });

  it("times out a request whose answer never comes (receive timeout), and the server sees the stream closed", async () => {
    let closed = false;
    const peer = await modernPeer((_body, res) => {
      res.on("close", () => {
        closed = true;
      });
    });
    const { client } = httpClient(peer.url, {
      era: MODERN,
      cleanup,
      transport: { policy: { receiveTimeoutMs: 150 } },
    });
    await client.connect();
    const error = await rejection(client.callTool("silent", {}));
    expect(error).toMatchObject({ code: "TIMEOUT", details: { timeout: "receive" } });
    await expect.poll(() => closed).toBe(true);
  });

  it("times out a stream that stalls after its head (receive); one that trickles forever ends at the call's deadline", async () => {
    let mode: "stall" | "trickle" = "stall";
    const peer = await modernPeer((_body, res) => {
      sse(res)({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: "started" },
      });
      if (mode === "stall") return;
      const keepalive = setInterval(() => res.write(": keepalive\n\n"), 40);
      res.on("close", () => clearInterval(keepalive));
    });
    const { client } = httpClient(peer.url, {
      era: MODERN,
      cleanup,
      transport: { policy: { receiveTimeoutMs: 150, requestTimeoutMs: 400 } },
    });
    await client.connect();
    expect(await rejection(client.callTool("stall", {}))).toMatchObject({
      code: "TIMEOUT",
      details: { timeout: "receive", timeoutMs: 150 },
    });
    mode = "trickle";
    // An SSE answer whose bytes keep coming outlives the policy's requestTimeoutMs: the caller's deadline ends it.
    expect(await rejection(client.callTool("trickle", {}, { timeoutMs: 800 }))).toMatchObject({
      code: "TIMEOUT",
      details: { timeoutMs: 800 },
    });
  });

  it("keeps at most maxConcurrentRequests requests in flight; the others wait their turn", async () => {
    let inFlight = 0;
    let most = 0;
    const peer = await modernPeer((body, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight--;
        json(res, 200, modern.text(body.id, "done"));
      }, 20);
    });
    const { client } = httpClient(peer.url, {
      era: MODERN,
      cleanup,
      transport: { policy: { maxConcurrentRequests: 1 } },
    });
    await client.connect();
    await Promise.all([1, 2, 3].map(() => client.callTool("work", {})));
    expect(most).toBe(1);
  });
});

describe("header collisions", () => {
  it.each([
    "Mcp-Session-Id",
    "mcp-protocol-version",
    "MCP-METHOD",
    "Mcp-Name",
    "Mcp-Param-Region",
    "Accept",
    "content-type",
    "Last-Event-ID",
  ])("refuses the extra header %s", (name) => {
    const error = transportError({ url: "http://127.0.0.1:1/mcp", headers: { [name]: "x" } });
    expect(error).toMatchObject({
      code: "INVALID_CONFIG",
      details: { header: name, reason: "header_collision" },
    });
  });

  it("refuses an auth hook that sets a reserved header, per request", async () => {
    const peer = await modernPeer((body, res) => json(res, 200, modern.text(body.id, "ok")));
    const { client } = httpClient(peer.url, {
      era: MODERN,
      cleanup,
      transport: { auth: () => ({ "mcp-method": "tools/list" }) },
    });
    const error = await rejection(client.connect());
    expect(error).toMatchObject({ code: "INVALID_CONFIG", details: { header: "mcp-method" } });
    expect(peer.received).toHaveLength(0);
  });

  it("sends static headers and the auth hook's headers with every request", async () => {
    const peer = await modernPeer((body, res) => json(res, 200, modern.text(body.id, "ok")));
    let calls = 0;
    const { client } = httpClient(peer.url, {
      era: MODERN,
      cleanup,
      transport: { headers: { "x-tenant": "acme" }, auth: () => ({ authorization: `Bearer t${++calls}` }) },
    });
    await client.connect();
    await client.callTool("x", {});
    expect(peer.received.map((r) => [r.headers["x-tenant"], r.headers.authorization])).toEqual([
      ["acme", "Bearer t1"],
      ["acme", "Bearer t2"],
    ]);
  });
});

describe("no secrets in errors or logs", () => {
  const SECRET = "s3cr3t-T0KEN-value";

  /** Everything an error exposes: message, own properties, and its cause chain. */
  function exposed(error: unknown): string {
    const parts: string[] = [];
    let current: unknown = error;
    for (let depth = 0; current !== undefined && depth < 5; depth++) {
      parts.push(
        String(current),
        JSON.stringify(current),
        JSON.stringify(Object.getOwnPropertyDescriptors(current as object)),
      );
      current = (current as { cause?: unknown }).cause;
    }
    return parts.join("\n");
  }

  it.each([
    [
      "a 401",
      (res: import("node:http").ServerResponse) => res.writeHead(401, { "www-authenticate": "Bearer" }).end(),
    ],
    ["a redirect", (res: import("node:http").ServerResponse) => res.writeHead(302, { location: "/x" }).end()],
    ["a 500 without body", (res: import("node:http").ServerResponse) => res.writeHead(500).end()],
  ])("after %s", async (_name, answer) => {
    const peer = await scripted((_req, res) => void answer(res), cleanup);
    const { client, logger } = httpClient(`${peer.url}?key=${SECRET}`, {
      era: MODERN,
      cleanup,
      transport: { headers: { "x-api-key": SECRET }, auth: () => ({ authorization: `Bearer ${SECRET}` }) },
    });
    const error = await rejection(client.connect());
    expect(error).toBeInstanceOf(McpkitError);
    expect(peer.received[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(exposed(error)).not.toContain(SECRET);
    expect(logger.text()).not.toContain(SECRET);
  });

  it("when the connection is refused, the hook throws, or a header value is malformed", async () => {
    const closed = await scripted(() => {});
    await closed.close();
    const cases: Array<Partial<ConstructorParameters<typeof StreamableHttpClientTransport>[0]>> = [
      { auth: () => ({ authorization: `Bearer ${SECRET}` }) },
      {
        auth: () => {
          throw new Error(`token ${SECRET} expired`);
        },
      },
      { auth: () => ({ authorization: `Bearer ${SECRET}\r\nx-injected: 1` }) },
    ];
    for (const transport of cases) {
      const logger = recordingLogger();
      const client = new Client({
        transport: new StreamableHttpClientTransport({
          url: closed.url,
          logger,
          ...stackOptions().options,
          ...transport,
        }),
        clientInfo: { name: "t", version: "1" },
        logger,
      });
      const error = await rejection(client.connect());
      expect(error).toBeInstanceOf(McpkitError);
      expect(exposed(error)).not.toContain(SECRET);
      expect(logger.text()).not.toContain(SECRET);
    }
  });
});
