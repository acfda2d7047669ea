/**
 * The HTTP endpoint probe (scripts/probe-http.mjs) run on the sources: 66 raw requests per response mode (SSE by
 * default, `enableJsonResponse`), both eras, each answered as docs/http.md says. The probe found that a 2025
 * GET whose Accept rules out an event stream opened one anyway (now 406), that JSON mode answered JSON to a
 * client that accepts only an event stream (now an event stream), and that a session request's -32022 did not
 * say why.
 */
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain JavaScript script, without types
import { probe } from "../../scripts/probe-http.mjs";
import { serve } from "../../src/node/serve.js";
import { ServerBuilder } from "../../src/server/authoring/builder.js";

interface Row {
  era: string;
  mode: "sse" | "json";
  name: string;
  status: number;
  type?: string;
  code?: number;
  message?: string;
  methods?: string[];
  allow?: string;
}

/** [status, JSON-RPC code (or content type for a success)] per case; `sse|json` where the modes differ. */
type Expected =
  | [number, number | string]
  | { sse: [number, number | string]; json: [number, number | string] };

const JSON_TYPE = "application/json";
const SSE_TYPE = "text/event-stream";

const MODERN: { [name: string]: Expected } = {
  "tools/call": [200, JSON_TYPE],
  "tools/call with progress (token)": { sse: [200, SSE_TYPE], json: [200, JSON_TYPE] },
  "tools/call that throws": [200, JSON_TYPE],
  "tools/call unknown tool": [400, -32602],
  "server/discover": [200, JSON_TYPE],
  "unknown method": [404, -32601],
  "missing _meta": [400, -32602],
  "no Mcp-Method": [400, -32020],
  "Mcp-Method mismatch": [400, -32020],
  "Mcp-Name mismatch": [400, -32020],
  "version header ≠ _meta": [400, -32020],
  "no version header": [400, -32020],
  "unsupported version both": [400, -32022],
  "invalid params (tools/call no name)": [400, -32602],
  notification: [202, ""],
  "a response": [400, -32600],
  "bad JSON": [400, -32700],
  batch: [400, -32600],
  "non-object body": [400, -32600],
  "empty body": [400, -32700],
  "jsonrpc 1.0": [400, -32600],
  "id null": [400, -32600],
  "body over maxBodyBytes": [413, -32600],
  "content-type text/plain": [415, -32600],
  "accept json only": [200, JSON_TYPE],
  "accept sse only": [200, SSE_TYPE],
  "accept none": [200, JSON_TYPE],
  "Host evil.example": [403, "text/plain"],
  "Origin evil.example": [403, "text/plain"],
  "Mcp-Session-Id on 2026": [400, -32022],
  GET: [405, "text/plain"],
  DELETE: [405, "text/plain"],
  PUT: [405, "text/plain"],
  OPTIONS: [405, "text/plain"],
  "initialize with 2026 header": [404, -32601],
};

const LEGACY: { [name: string]: Expected } = {
  initialize: [200, JSON_TYPE],
  "initialize with version header": [200, JSON_TYPE],
  "initialize older version 2025-06-18": [200, JSON_TYPE],
  "initialize unknown version 2099": [200, JSON_TYPE],
  "tools/call": [200, JSON_TYPE],
  "tools/call with progress": { sse: [200, SSE_TYPE], json: [200, JSON_TYPE] },
  "tools/call that throws": [200, JSON_TYPE],
  "tools/call unknown tool": [200, -32602],
  "unknown method": [200, -32601],
  "server/discover on a session": [400, -32600],
  "no session id": [400, -32600],
  "unknown session id": [404, -32000],
  "no version header": [400, -32022],
  "version header 2025-06-18": [400, -32022],
  "second initialize on a session": [400, -32600],
  "request before initialize (no session)": [400, -32600],
  "notification initialized": [202, ""],
  "a response": [202, ""],
  "bad JSON": [400, -32700],
  batch: [400, -32600],
  ping: [200, JSON_TYPE],
  "invalid params (tools/call no name)": [200, -32602],
  "accept json only": [200, JSON_TYPE],
  "content-type text/plain": [415, -32600],
  "2026 _meta on a 2025 session": [400, -32020],
  "GET stream": [200, SSE_TYPE],
  "GET accept json": [406, -32600],
  "GET no session": [400, -32600],
  DELETE: [200, ""],
  "DELETE then call": [404, -32000],
  "DELETE no session": [400, -32600],
};

function seen(row: Row): [number, number | string] {
  return [row.status, row.code ?? row.type ?? ""];
}

describe("the HTTP endpoint probe", () => {
  it("answers every case as documented, in both eras and both response modes", async () => {
    const rows = (await probe({ serve, ServerBuilder })) as Row[];
    const expected = { "2026-07-28": MODERN, "2025-11-25": LEGACY } as const;
    let checked = 0;
    for (const row of rows) {
      const want = expected[row.era as keyof typeof expected][row.name];
      expect(want, `${row.era} ${row.name}: no expectation`).toBeDefined();
      const pair = Array.isArray(want) ? want : want?.[row.mode];
      expect(seen(row), `${row.era} ${row.mode} ${row.name}: ${row.message}`).toEqual(pair);
      checked++;
    }
    expect(checked).toBe(2 * (Object.keys(MODERN).length + Object.keys(LEGACY).length));
    // A progress notification rides the event stream, before the result; JSON mode drops it.
    const progress = rows.filter((row) => row.name.startsWith("tools/call with progress"));
    for (const row of progress) {
      expect(row.methods, `${row.era} ${row.mode}`).toEqual(
        row.mode === "sse" ? ["notifications/progress"] : [],
      );
    }
    // The -32022 of a session request says why.
    const sessionOn2026 = rows.find((row) => row.name === "Mcp-Session-Id on 2026");
    expect(sessionOn2026?.message).toContain("a 2026-07-28 request carries no Mcp-Session-Id");
    expect(rows.filter((row) => row.name === "GET")[0]?.allow).toBe("POST");
  });
});
