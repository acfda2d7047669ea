// Probes the Streamable HTTP endpoint of the built package with raw requests, in both eras and both response
// modes (SSE by default, `enableJsonResponse`), and prints what each answered: status, content type, JSON-RPC
// id, code and message. Run `npm run build` first, then `node scripts/probe-http.mjs` (`--json` for a machine
// reading). Loopback only. test/http/probe.test.ts holds the answers this table must give.
import http from "node:http";

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";

function probeServer(ServerBuilder) {
  const text = (t) => ({ content: [{ type: "text", text: t }] });
  return new ServerBuilder({
    serverInfo: { name: "probe", version: "1.0.0" },
    logger: { warn() {}, error() {} },
  })
    .tool({ name: "echo", inputSchema: { type: "object" } }, () => text("echo"))
    .tool({ name: "progress", inputSchema: { type: "object" } }, async (_args, ctx) => {
      await ctx.progress(1, 2, "half");
      return text("done");
    })
    .tool({ name: "throws", inputSchema: { type: "object" } }, () => {
      throw new Error("boom");
    })
    .tool({ name: "big", inputSchema: { type: "object" } }, () => text("x".repeat(20_000)))
    .resource({ uri: "test://a", name: "a" }, (uri) => ({ contents: [{ uri, text: "a" }] }))
    .prompt({ name: "hi" }, () => ({ messages: [{ role: "user", content: { type: "text", text: "hi" } }] }))
    .build();
}

const modernMeta = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "probe", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const ACCEPT = "application/json, text/event-stream";

/** One POST of `body` (an object is JSON-encoded) with `headers` over the defaults. */
async function post(url, body, headers = {}) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return send(url, {
    method: "POST",
    body: text,
    headers: { "content-type": "application/json", accept: ACCEPT, ...headers },
  });
}

/** A POST through node:http, which sends the given Host (fetch sends its own). */
function rawPost(url, body, headers) {
  const target = new URL(url);
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: ACCEPT,
          "content-length": Buffer.byteLength(text),
          ...headers,
        },
      },
      (response) => {
        let data = "";
        response.on("data", (chunk) => (data += chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode,
            type: (response.headers["content-type"] ?? "").split(";")[0],
            message: data.slice(0, 90),
          }),
        );
      },
    );
    request.on("error", reject);
    request.end(text);
  });
}

async function send(url, init) {
  const answer = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const contentType = answer.headers.get("content-type") ?? "";
  const body = await answer.text();
  let messages = [];
  if (contentType.startsWith("application/json")) {
    try {
      messages = [JSON.parse(body)];
    } catch {}
  } else if (contentType.startsWith("text/event-stream")) {
    for (const block of body.split("\n\n")) {
      const data = block
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trim())
        .join("\n");
      if (data) messages.push(JSON.parse(data));
    }
  }
  const last = messages.at(-1);
  return {
    status: answer.status,
    type: contentType.split(";")[0],
    session: answer.headers.get("mcp-session-id") ?? undefined,
    allow: answer.headers.get("allow") ?? undefined,
    count: messages.length,
    id: last?.id,
    code: last?.error?.code,
    message:
      last?.error?.message ??
      (last?.result ? (last.result.isError ? "isError" : "result") : body.slice(0, 60)),
    methods: messages.filter((m) => m.method).map((m) => m.method),
  };
}

const call = (id, name, extra = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: {}, _meta: modernMeta, ...extra },
});
const modernHeaders = (method, name) => ({
  "mcp-protocol-version": MODERN,
  "mcp-method": method,
  ...(name ? { "mcp-name": name } : {}),
});

/** The 2026-07-28 cases: [name, run(url)]. */
const modernCases = [
  ["tools/call", (u) => post(u, call(1, "echo"), modernHeaders("tools/call", "echo"))],
  [
    "tools/call with progress (token)",
    (u) =>
      post(
        u,
        call(2, "progress", { _meta: { ...modernMeta, progressToken: "p" } }),
        modernHeaders("tools/call", "progress"),
      ),
  ],
  ["tools/call that throws", (u) => post(u, call(3, "throws"), modernHeaders("tools/call", "throws"))],
  ["tools/call unknown tool", (u) => post(u, call(4, "nope"), modernHeaders("tools/call", "nope"))],
  [
    "server/discover",
    (u) =>
      post(
        u,
        { jsonrpc: "2.0", id: 5, method: "server/discover", params: { _meta: modernMeta } },
        modernHeaders("server/discover"),
      ),
  ],
  [
    "unknown method",
    (u) =>
      post(
        u,
        { jsonrpc: "2.0", id: 6, method: "nope/nope", params: { _meta: modernMeta } },
        modernHeaders("nope/nope"),
      ),
  ],
  [
    "missing _meta",
    (u) => post(u, { jsonrpc: "2.0", id: 7, method: "tools/list", params: {} }, modernHeaders("tools/list")),
  ],
  [
    "no Mcp-Method",
    (u) =>
      post(
        u,
        { jsonrpc: "2.0", id: 8, method: "tools/list", params: { _meta: modernMeta } },
        { "mcp-protocol-version": MODERN },
      ),
  ],
  [
    "Mcp-Method mismatch",
    (u) =>
      post(
        u,
        { jsonrpc: "2.0", id: 9, method: "tools/list", params: { _meta: modernMeta } },
        modernHeaders("prompts/list"),
      ),
  ],
  ["Mcp-Name mismatch", (u) => post(u, call(10, "echo"), modernHeaders("tools/call", "other"))],
  [
    "version header ≠ _meta",
    (u) =>
      post(
        u,
        { jsonrpc: "2.0", id: 11, method: "tools/list", params: { _meta: modernMeta } },
        { ...modernHeaders("tools/list"), "mcp-protocol-version": "2099-01-01" },
      ),
  ],
  [
    "no version header",
    (u) =>
      post(
        u,
        { jsonrpc: "2.0", id: 12, method: "tools/list", params: { _meta: modernMeta } },
        { "mcp-method": "tools/list" },
      ),
  ],
  [
    "unsupported version both",
    (u) =>
      post(
        u,
        {
          jsonrpc: "2.0",
          id: 13,
          method: "tools/list",
          params: { _meta: { ...modernMeta, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
        },
        { ...modernHeaders("tools/list"), "mcp-protocol-version": "2099-01-01" },
      ),
  ],
  [
    "invalid params (tools/call no name)",
    (u) =>
      post(
        u,
        { jsonrpc: "2.0", id: 14, method: "tools/call", params: { _meta: modernMeta } },
        modernHeaders("tools/call"),
      ),
  ],
  [
    "notification",
    (u) =>
      post(
        u,
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
        modernHeaders("notifications/cancelled"),
      ),
  ],
  ["a response", (u) => post(u, { jsonrpc: "2.0", id: 99, result: {} }, { "mcp-protocol-version": MODERN })],
  ["bad JSON", (u) => post(u, "{nope", { "mcp-protocol-version": MODERN })],
  ["batch", (u) => post(u, [call(15, "echo")], { "mcp-protocol-version": MODERN })],
  ["non-object body", (u) => post(u, "42", { "mcp-protocol-version": MODERN })],
  ["empty body", (u) => post(u, "", { "mcp-protocol-version": MODERN })],
  [
    "jsonrpc 1.0",
    (u) =>
      post(
        u,
        { jsonrpc: "1.0", id: 16, method: "tools/list", params: { _meta: modernMeta } },
        modernHeaders("tools/list"),
      ),
  ],
  [
    "id null",
    (u) =>
      post(
        u,
        { jsonrpc: "2.0", id: null, method: "tools/list", params: { _meta: modernMeta } },
        modernHeaders("tools/list"),
      ),
  ],
  [
    "body over maxBodyBytes",
    (u) =>
      post(
        u,
        call(17, "echo", { arguments: { x: "y".repeat(9_000_000) } }),
        modernHeaders("tools/call", "echo"),
      ),
  ],
  [
    "content-type text/plain",
    (u) =>
      post(u, call(18, "echo"), { ...modernHeaders("tools/call", "echo"), "content-type": "text/plain" }),
  ],
  [
    "accept json only",
    (u) => post(u, call(19, "echo"), { ...modernHeaders("tools/call", "echo"), accept: "application/json" }),
  ],
  [
    "accept sse only",
    (u) => post(u, call(20, "echo"), { ...modernHeaders("tools/call", "echo"), accept: "text/event-stream" }),
  ],
  ["accept none", (u) => post(u, call(21, "echo"), { ...modernHeaders("tools/call", "echo"), accept: "" })],
  [
    "Host evil.example",
    (u) => rawPost(u, call(22, "echo"), { ...modernHeaders("tools/call", "echo"), host: "evil.example" }),
  ],
  [
    "Origin evil.example",
    (u) =>
      post(u, call(23, "echo"), { ...modernHeaders("tools/call", "echo"), origin: "https://evil.example" }),
  ],
  [
    "Mcp-Session-Id on 2026",
    (u) => post(u, call(24, "echo"), { ...modernHeaders("tools/call", "echo"), "mcp-session-id": "abc" }),
  ],
  [
    "GET",
    (u) =>
      send(u, { method: "GET", headers: { accept: "text/event-stream", "mcp-protocol-version": MODERN } }),
  ],
  ["DELETE", (u) => send(u, { method: "DELETE", headers: { "mcp-protocol-version": MODERN } })],
  ["PUT", (u) => send(u, { method: "PUT", headers: { "mcp-protocol-version": MODERN } })],
  [
    "OPTIONS",
    (u) =>
      send(u, {
        method: "OPTIONS",
        headers: { origin: "http://localhost:3000", "access-control-request-method": "POST" },
      }),
  ],
  [
    "initialize with 2026 header",
    (u) =>
      post(
        u,
        {
          jsonrpc: "2.0",
          id: 25,
          method: "initialize",
          params: {
            protocolVersion: MODERN,
            capabilities: {},
            clientInfo: { name: "p", version: "1" },
            _meta: modernMeta,
          },
        },
        modernHeaders("initialize"),
      ),
  ],
];

async function initialize(u, extra = {}) {
  const reply = await post(
    u,
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "p", version: "1" } },
    },
    extra,
  );
  return reply;
}
const legacyHeaders = (session) => ({
  "mcp-protocol-version": LEGACY,
  ...(session ? { "mcp-session-id": session } : {}),
});
const lcall = (id, name) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } });

/** The 2025-11-25 cases; each gets a fresh session (`s`) made before it runs. */
const legacyCases = [
  ["initialize", (u) => initialize(u)],
  ["initialize with version header", (u) => initialize(u, { "mcp-protocol-version": LEGACY })],
  [
    "initialize older version 2025-06-18",
    (u) =>
      post(u, {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "p", version: "1" } },
      }),
  ],
  [
    "initialize unknown version 2099",
    (u) =>
      post(u, {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2099-01-01", capabilities: {}, clientInfo: { name: "p", version: "1" } },
      }),
  ],
  ["tools/call", (u, s) => post(u, lcall(1, "echo"), legacyHeaders(s))],
  [
    "tools/call with progress",
    (u, s) =>
      post(
        u,
        {
          ...lcall(2, "progress"),
          params: { name: "progress", arguments: {}, _meta: { progressToken: "p" } },
        },
        legacyHeaders(s),
      ),
  ],
  ["tools/call that throws", (u, s) => post(u, lcall(3, "throws"), legacyHeaders(s))],
  ["tools/call unknown tool", (u, s) => post(u, lcall(4, "nope"), legacyHeaders(s))],
  ["unknown method", (u, s) => post(u, { jsonrpc: "2.0", id: 5, method: "nope/nope" }, legacyHeaders(s))],
  [
    "server/discover on a session",
    (u, s) => post(u, { jsonrpc: "2.0", id: 6, method: "server/discover", params: {} }, legacyHeaders(s)),
  ],
  ["no session id", (u) => post(u, lcall(7, "echo"), legacyHeaders())],
  ["unknown session id", (u) => post(u, lcall(8, "echo"), legacyHeaders("0123456789abcdef"))],
  ["no version header", (u, s) => post(u, lcall(9, "echo"), { "mcp-session-id": s })],
  [
    "version header 2025-06-18",
    (u, s) => post(u, lcall(10, "echo"), { "mcp-session-id": s, "mcp-protocol-version": "2025-06-18" }),
  ],
  [
    "second initialize on a session",
    (u, s) =>
      post(
        u,
        {
          jsonrpc: "2.0",
          id: 11,
          method: "initialize",
          params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "p", version: "1" } },
        },
        legacyHeaders(s),
      ),
  ],
  [
    "request before initialize (no session)",
    (u) => post(u, { jsonrpc: "2.0", id: 12, method: "tools/list" }, legacyHeaders()),
  ],
  [
    "notification initialized",
    (u, s) => post(u, { jsonrpc: "2.0", method: "notifications/initialized" }, legacyHeaders(s)),
  ],
  ["a response", (u, s) => post(u, { jsonrpc: "2.0", id: 99, result: {} }, legacyHeaders(s))],
  ["bad JSON", (u, s) => post(u, "{nope", legacyHeaders(s))],
  ["batch", (u, s) => post(u, [lcall(13, "echo")], legacyHeaders(s))],
  ["ping", (u, s) => post(u, { jsonrpc: "2.0", id: 14, method: "ping" }, legacyHeaders(s))],
  [
    "invalid params (tools/call no name)",
    (u, s) => post(u, { jsonrpc: "2.0", id: 15, method: "tools/call", params: {} }, legacyHeaders(s)),
  ],
  [
    "accept json only",
    (u, s) => post(u, lcall(16, "echo"), { ...legacyHeaders(s), accept: "application/json" }),
  ],
  [
    "content-type text/plain",
    (u, s) => post(u, lcall(17, "echo"), { ...legacyHeaders(s), "content-type": "text/plain" }),
  ],
  [
    "2026 _meta on a 2025 session",
    (u, s) =>
      post(
        u,
        { ...lcall(18, "echo"), params: { name: "echo", arguments: {}, _meta: modernMeta } },
        legacyHeaders(s),
      ),
  ],
  [
    "GET stream",
    async (u, s) => {
      const controller = new AbortController();
      const answer = await fetch(u, {
        headers: { accept: "text/event-stream", ...legacyHeaders(s) },
        signal: controller.signal,
      });
      const out = { status: answer.status, type: (answer.headers.get("content-type") ?? "").split(";")[0] };
      controller.abort();
      return out;
    },
  ],
  [
    "GET accept json",
    (u, s) => send(u, { method: "GET", headers: { accept: "application/json", ...legacyHeaders(s) } }),
  ],
  [
    "GET no session",
    (u) => send(u, { method: "GET", headers: { accept: "text/event-stream", ...legacyHeaders() } }),
  ],
  ["DELETE", (u, s) => send(u, { method: "DELETE", headers: legacyHeaders(s) })],
  [
    "DELETE then call",
    async (u, s) => {
      await send(u, { method: "DELETE", headers: legacyHeaders(s) });
      return post(u, lcall(19, "echo"), legacyHeaders(s));
    },
  ],
  ["DELETE no session", (u) => send(u, { method: "DELETE", headers: legacyHeaders() })],
];

/** What a case answered, or the error that ended it (a timeout, a reset). */
async function attempt(run) {
  try {
    return await run();
  } catch (error) {
    return { status: 0, message: `${error.name}: ${error.cause?.code ?? error.message}` };
  }
}

/**
 * Runs every case against a fresh server per response mode and returns one row per case. `kit` is the package
 * to probe: `serve` of mcpkit/node and `ServerBuilder` of mcpkit/server (the built ones, or the sources in a test).
 */
export async function probe({ serve, ServerBuilder }) {
  const rows = [];
  for (const json of [false, true]) {
    const mode = json ? "json" : "sse";
    const handle = await serve(probeServer(ServerBuilder), { handler: { enableJsonResponse: json } });
    const url = handle.url;
    try {
      for (const [name, run] of modernCases)
        rows.push({ era: MODERN, mode, name, ...(await attempt(() => run(url))) });
      for (const [name, run] of legacyCases) {
        const init = await initialize(url);
        if (init.session)
          await post(
            url,
            { jsonrpc: "2.0", method: "notifications/initialized" },
            legacyHeaders(init.session),
          );
        rows.push({ era: LEGACY, mode, name, ...(await attempt(() => run(url, init.session))) });
        if (init.session) await send(url, { method: "DELETE", headers: legacyHeaders(init.session) });
      }
    } finally {
      await handle.close();
    }
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { serve } = await import("../dist/node/index.js");
  const { ServerBuilder } = await import("../dist/server/index.js");
  const rows = await probe({ serve, ServerBuilder });
  if (process.argv.includes("--json")) console.log(JSON.stringify(rows, null, 1));
  else
    for (const r of rows)
      console.log(
        [
          r.era,
          r.mode.padEnd(4),
          r.name.padEnd(38),
          r.status,
          (r.type ?? "").padEnd(17),
          r.code ?? "",
          r.message ?? "",
          r.methods?.length ? r.methods.join(",") : "",
          r.allow ?? "",
        ].join(" | "),
      );
}
