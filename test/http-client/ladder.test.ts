/**
 * The version ladder over HTTP (spec-2026 §1.1) and the Mcp-Param rules, against scripted peers on 127.0.0.1:
 * what keeps 2026-07-28, what falls back to initialize, what never falls back; tools with invalid x-mcp-header
 * annotations dropped with a warning; the -32020 refresh-and-retry done once, with a bounded refresh.
 */
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { MAX_REFRESH_PAGES } from "../../src/http/client/transport.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import { rejection, textOf } from "../support/interop-helpers.js";
import { useWireValidation } from "../support/validating-transport.js";
import {
  httpClient,
  json,
  LEGACY,
  legacy,
  MODERN,
  modern,
  type Received,
  scripted,
  useHttpCleanups,
} from "./helpers.js";

useWireValidation();
const cleanup = useHttpCleanups();

/** A dual-era scripted server whose answer to server/discover is `discover`; initialize works. */
function ladderPeer(discover: (req: Received, res: ServerResponse) => void) {
  return scripted((req, res) => {
    const { method, id } = req.body;
    if (method === "server/discover") return discover(req, res);
    if (method === "initialize") return json(res, 200, legacy.initialize(id), { "mcp-session-id": "abc" });
    if (method === "notifications/initialized") return void res.writeHead(202).end();
    if (req.method === "GET" || req.method === "DELETE") return void res.writeHead(405).end();
    if (req.headers["mcp-protocol-version"] === MODERN) return json(res, 200, modern.tools(id, []));
    return json(res, 200, legacy.tools(id, []));
  }, cleanup);
}

const methods = (received: Received[]) => received.map((r) => r.body.method ?? r.method);

describe("the ladder over HTTP", () => {
  const UNRECOGNIZED_400 = [
    ["an empty 400", (res: ServerResponse) => res.writeHead(400).end()],
    [
      "a 400 with a text body",
      (res: ServerResponse) => res.writeHead(400, { "content-type": "text/plain" }).end("Bad Request"),
    ],
    [
      "a 400 with a non-JSON-RPC JSON body",
      (res: ServerResponse) => json(res, 400, { error: "unsupported" }),
    ],
    [
      "a 400 with an unrecognized JSON-RPC error (id null)",
      (res: ServerResponse) =>
        json(res, 400, {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32000, message: "Bad Request: No valid session ID provided" },
        }),
    ],
    [
      "a 200 carrying -32603",
      (res: ServerResponse, id?: unknown) => json(res, 200, modern.error(id, -32603, "Internal error")),
    ],
    [
      "a 400 carrying -32600",
      (res: ServerResponse, id?: unknown) => json(res, 400, modern.error(id, -32600, "Invalid Request")),
    ],
  ] as const;

  it.each(UNRECOGNIZED_400)(
    "never falls back on %s by default: VERSION_NEGOTIATION naming the option",
    async (_name, answer) => {
      const peer = await ladderPeer((req, res) => answer(res, req.body.id));
      const { client } = httpClient(peer.url, { cleanup });
      const error = await rejection(client.connect());
      expect(error).toMatchObject({ code: "VERSION_NEGOTIATION", details: { fallback: "none" } });
      expect((error as Error).message).toContain('versionFallback: "lenient"');
      expect(methods(peer.received)).toEqual(["server/discover"]);
    },
  );

  it.each(UNRECOGNIZED_400)(
    'falls back to initialize on %s with versionFallback "lenient"',
    async (_name, answer) => {
      const peer = await ladderPeer((req, res) => answer(res, req.body.id));
      const { client } = httpClient(peer.url, { cleanup, client: { versionFallback: "lenient" } });
      const info = await client.connect();
      expect(info.era).toBe(LEGACY);
      expect(methods(peer.received).slice(0, 3)).toEqual([
        "server/discover",
        "initialize",
        "notifications/initialized",
      ]);
    },
  );

  it.each([
    [
      "-32601 (404)",
      (res: ServerResponse, id?: unknown) => json(res, 404, modern.error(id, -32601, "Method not found")),
    ],
    [
      "-32022 naming 2025-11-25 inside a 400",
      (res: ServerResponse, id?: unknown) =>
        json(
          res,
          400,
          modern.error(id, -32022, "Unsupported protocol version", {
            supported: [LEGACY],
            requested: MODERN,
          }),
        ),
    ],
  ])("falls back to initialize on %s by default", async (_name, answer) => {
    const peer = await ladderPeer((req, res) => answer(res, req.body.id));
    const { client } = httpClient(peer.url, { cleanup });
    const info = await client.connect();
    expect(info.era).toBe(LEGACY);
    expect(methods(peer.received).slice(0, 3)).toEqual([
      "server/discover",
      "initialize",
      "notifications/initialized",
    ]);
  });

  it("keeps 2026-07-28 on a 400 carrying a recognized modern error (-32022 naming 2026-07-28: one retry)", async () => {
    let first = true;
    const peer = await ladderPeer((req, res) => {
      if (first) {
        first = false;
        return json(
          res,
          400,
          modern.error(req.body.id, -32022, "Unsupported protocol version", {
            supported: [MODERN],
            requested: MODERN,
          }),
        );
      }
      return json(res, 200, modern.discover(req.body.id));
    });
    const { client } = httpClient(peer.url, { cleanup });
    expect((await client.connect()).era).toBe(MODERN);
    expect(methods(peer.received)).toEqual(["server/discover", "server/discover"]);
  });

  it("stays on 2026-07-28 and fails on a 400 with -32020 (a modern server)", async () => {
    const peer = await ladderPeer((req, res) =>
      json(res, 400, modern.error(req.body.id, -32020, "header mismatch", { header: "Mcp-Method" })),
    );
    const { client } = httpClient(peer.url, { cleanup });
    expect(await rejection(client.connect())).toMatchObject({ code: -32020 });
    expect(methods(peer.received)).toEqual(["server/discover"]);
  });

  it.each([
    [
      "a 401",
      (res: ServerResponse) => res.writeHead(401, { "www-authenticate": "Bearer" }).end(),
      "TRANSPORT",
    ],
    ["a 403", (res: ServerResponse) => res.writeHead(403).end(), "TRANSPORT"],
    [
      "a malformed 200",
      (res: ServerResponse) => res.writeHead(200, { "content-type": "application/json" }).end("{nope"),
      "PROTOCOL",
    ],
    ["a 200 with no answer", (res: ServerResponse) => res.writeHead(200).end(), "PROTOCOL"],
    [
      "an oversized 400",
      (res: ServerResponse) => json(res, 400, { pad: "p".repeat(4_000) }),
      "MESSAGE_TOO_LARGE",
    ],
    ["silence (timeout)", () => {}, "TIMEOUT"],
  ])('never falls back on %s, even with versionFallback "lenient"', async (_name, answer, code) => {
    const peer = await ladderPeer((_req, res) => answer(res));
    const { client } = httpClient(peer.url, {
      cleanup,
      client: { versionFallback: "lenient" },
      transport: { policy: { receiveTimeoutMs: 200, maxResponseBytes: 2_000 } },
    });
    expect(await rejection(client.connect())).toMatchObject({ code });
    expect(methods(peer.received)).toEqual(["server/discover"]);
  });

  it("pinned to 2026-07-28, an empty 400 is a negotiation failure, not a fallback", async () => {
    const peer = await ladderPeer((_req, res) => void res.writeHead(400).end());
    const { client } = httpClient(peer.url, { cleanup, pin: MODERN });
    expect(await rejection(client.connect())).toMatchObject({ code: "VERSION_NEGOTIATION" });
    expect(methods(peer.received)).toEqual(["server/discover"]);
  });
});

const VALID = {
  name: "valid",
  inputSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } },
};
const PLAIN = { name: "plain", inputSchema: { type: "object" } };
const INVALID = [
  {
    name: "bad-number",
    inputSchema: { type: "object", properties: { n: { type: "number", "x-mcp-header": "N" } } },
  },
  {
    name: "bad-dup",
    inputSchema: {
      type: "object",
      properties: { a: { type: "string", "x-mcp-header": "X" }, b: { type: "string", "x-mcp-header": "x" } },
    },
  },
  {
    name: "bad-items",
    inputSchema: {
      type: "object",
      properties: { l: { type: "array", items: { type: "string", "x-mcp-header": "L" } } },
    },
  },
  {
    name: "bad-token",
    inputSchema: { type: "object", properties: { v: { type: "string", "x-mcp-header": "My Region" } } },
  },
];

describe("tools with x-mcp-header annotations", () => {
  it("drops the tools whose annotations are invalid, with a warning, and keeps their siblings", async () => {
    const peer = await scripted((req, res) => {
      if (req.body.method === "server/discover") return json(res, 200, modern.discover(req.body.id));
      json(res, 200, modern.tools(req.body.id, [VALID, ...INVALID, PLAIN]));
    }, cleanup);
    const { client, logger } = httpClient(peer.url, { era: MODERN, cleanup });
    await client.connect();
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["valid", "plain"]);
    const warned = logger.lines.filter((l) => l.level === "warn");
    expect(warned).toHaveLength(1);
    expect(warned[0]?.details).toMatchObject({
      count: INVALID.length,
      tools: INVALID.map((t) => ({ tool: t.name, problem: expect.any(String) })),
    });
  });

  it("on a -32020 about an Mcp-Param header, refreshes tools/list once and retries the call once", async () => {
    const peer = await scripted((req, res) => {
      const { method, id } = req.body;
      if (method === "server/discover") return json(res, 200, modern.discover(id));
      if (method === "tools/list") return json(res, 200, modern.tools(id, [VALID]));
      // This server always disagrees: the retry's -32020 reaches the caller, and nothing recurses.
      json(
        res,
        400,
        modern.error(id, -32020, "Mcp-Param-Region does not match", { header: "Mcp-Param-Region" }),
      );
    }, cleanup);
    const { client } = httpClient(peer.url, { era: MODERN, cleanup });
    await client.connect();
    const error = await rejection(client.callTool("valid", { region: "eu" }));
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ code: -32020 });
    expect(methods(peer.received)).toEqual(["server/discover", "tools/call", "tools/list", "tools/call"]);
    expect(peer.received[1]?.headers["mcp-param-region"]).toBeUndefined();
    expect(peer.received[3]?.headers["mcp-param-region"]).toBe("eu");
  });

  it("does not refresh for a -32020 about a standard header", async () => {
    const peer = await scripted((req, res) => {
      if (req.body.method === "server/discover") return json(res, 200, modern.discover(req.body.id));
      json(res, 400, modern.error(req.body.id, -32020, "Mcp-Name mismatch", { header: "Mcp-Name" }));
    }, cleanup);
    const { client } = httpClient(peer.url, { era: MODERN, cleanup });
    await client.connect();
    expect(await rejection(client.callTool("valid", {}))).toMatchObject({ code: -32020 });
    expect(methods(peer.received)).toEqual(["server/discover", "tools/call"]);
  });

  it(`bounds the refresh at ${MAX_REFRESH_PAGES} pages`, async () => {
    let page = 0;
    const peer = await scripted((req, res) => {
      const { method, id } = req.body;
      if (method === "server/discover") return json(res, 200, modern.discover(id));
      if (method === "tools/list")
        return json(res, 200, modern.tools(id, [], { nextCursor: `page-${++page}` }));
      if (req.headers["mcp-param-region"] === undefined) {
        return json(
          res,
          400,
          modern.error(id, -32020, "missing Mcp-Param-Region", { header: "Mcp-Param-Region" }),
        );
      }
      json(res, 200, modern.text(id, "ok"));
    }, cleanup);
    const { client } = httpClient(peer.url, { era: MODERN, cleanup });
    await client.connect();
    expect(await rejection(client.callTool("valid", { region: "eu" }))).toMatchObject({ code: -32020 });
    expect(methods(peer.received).filter((m) => m === "tools/list")).toHaveLength(MAX_REFRESH_PAGES);
  });

  it("a caller's schema with an invalid annotation is refused before sending", async () => {
    const peer = await scripted((req, res) => json(res, 200, modern.discover(req.body.id)), cleanup);
    const { client } = httpClient(peer.url, { era: MODERN, cleanup });
    await client.connect();
    const schema = INVALID[0]?.inputSchema ?? {};
    expect(
      await rejection(client.callTool("bad-number", { n: 1 }, { toolInputSchema: schema })),
    ).toMatchObject({
      code: "INVALID_CONFIG",
      details: { reason: "invalid_annotation" },
    });
    expect(peer.received).toHaveLength(1);
  });

  it("sends the standard headers, base64 for unsafe values, and never a session id in 2026", async () => {
    const peer = await scripted((req, res) => {
      const { method, id } = req.body;
      if (method === "server/discover")
        return json(res, 200, modern.discover(id), { "mcp-session-id": "ignored" });
      if (method === "tools/list")
        return json(res, 200, modern.tools(id, [VALID]), { "mcp-session-id": "ignored" });
      json(res, 200, modern.text(id, "ok"));
    }, cleanup);
    const { client } = httpClient(peer.url, { era: MODERN, cleanup });
    await client.connect();
    await client.listTools();
    expect(textOf(await client.callTool("café", {}))).toBe("ok");
    await client.callTool("valid", { region: "=?base64?SGk=?=" });
    for (const request of peer.received) {
      expect(request.headers["mcp-protocol-version"]).toBe(MODERN);
      expect(request.headers["mcp-method"]).toBe(request.body.method);
      expect(request.headers["mcp-session-id"]).toBeUndefined();
      expect(request.headers.accept).toBe("application/json, text/event-stream");
    }
    expect(peer.received[2]?.headers["mcp-name"]).toBe("=?base64?Y2Fmw6k=?=");
    expect(peer.received[3]?.headers["mcp-param-region"]).toBe("=?base64?PT9iYXNlNjQ/U0drPT89?=");
  });
});
