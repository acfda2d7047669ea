/**
 * The soak's clients: raw `node:http` with one keep-alive agent (the cheapest client there is, so that the
 * server, not the driver, is what the run exercises). Every request and answer is checked; any surprise throws.
 */
import { Agent, request } from "node:http";

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const ACCEPT = "application/json, text/event-stream";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "soak", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** One exchange: resolves with `{ status, headers, body }` (the body as text). */
function exchange(agent, target, method, headers, text) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method,
        agent,
        headers: text === undefined ? headers : { ...headers, "content-length": Buffer.byteLength(text) },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

function fail(what, reply) {
  throw new Error(`${what}: HTTP ${reply.status} ${reply.body.slice(0, 300)}`);
}

/** The JSON-RPC answer of a JSON reply, checked to be the success for `id`. */
function resultOf(what, reply, id) {
  if (reply.status !== 200 || !String(reply.headers["content-type"]).startsWith("application/json"))
    fail(what, reply);
  const message = JSON.parse(reply.body);
  if (message.id !== id || message.result === undefined) fail(what, reply);
  return message.result;
}

/** `tools/call` of `add` or `echo` (by `i`), or every 50th call one the validator must refuse. */
function callFor(i) {
  if (i % 50 === 49) return { kind: "invalid", name: "add", arguments: { a: i, b: "one" } };
  if (i % 2 === 0) return { kind: "add", name: "add", arguments: { a: i, b: 1 } };
  return { kind: "echo", name: "echo", arguments: { text: `soak ${i}` } };
}

/** Checks the answer to {@link callFor}`(i)`. */
function checkCall(call, i, result) {
  if (call.kind === "invalid") {
    if (result.isError !== true) throw new Error(`call ${i}: invalid arguments were accepted`);
  } else if (call.kind === "add") {
    if (result.content?.[0]?.text !== String(i + 1)) throw new Error(`call ${i}: add answered wrongly`);
  } else if (result.structuredContent?.text !== `soak ${i}`) {
    throw new Error(`call ${i}: echo answered wrongly`);
  }
}

/** A client of the endpoint at `url`, keeping up to `sockets` connections alive. */
export function httpDriver(url, sockets) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const target = new URL(url);
  const post = (headers, message) =>
    exchange(
      agent,
      target,
      "POST",
      { "content-type": "application/json", accept: ACCEPT, ...headers },
      message,
    );

  return {
    /** One stateless 2026-07-28 `tools/call`. */
    async modernCall(i) {
      const call = callFor(i);
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: i,
        method: "tools/call",
        params: { name: call.name, arguments: call.arguments, _meta: META },
      });
      const headers = { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": call.name };
      checkCall(call, i, resultOf(`call ${i}`, await post(headers, body), i));
    },

    /** One 2025-11-25 session: `initialize`, `notifications/initialized`, a `tools/call`, then DELETE. */
    async legacyCycle(i) {
      const opened = await post(
        {},
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: LEGACY,
            capabilities: {},
            clientInfo: { name: "soak", version: "1.0.0" },
          },
        }),
      );
      const info = resultOf(`cycle ${i} initialize`, opened, 1);
      if (info.protocolVersion !== LEGACY) throw new Error(`cycle ${i}: negotiated ${info.protocolVersion}`);
      const session = opened.headers["mcp-session-id"];
      if (typeof session !== "string") fail(`cycle ${i} initialize gave no session`, opened);
      const headers = { "mcp-protocol-version": LEGACY, "mcp-session-id": session };
      const ack = await post(
        headers,
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      );
      if (ack.status !== 202) fail(`cycle ${i} initialized`, ack);
      const call = callFor(i);
      const used = await post(
        headers,
        JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: call.name, arguments: call.arguments },
        }),
      );
      checkCall(call, i, resultOf(`cycle ${i} call`, used, 2));
      const deleted = await exchange(agent, target, "DELETE", headers);
      if (deleted.status !== 200) fail(`cycle ${i} DELETE`, deleted);
    },

    close: () => agent.destroy(),
  };
}
