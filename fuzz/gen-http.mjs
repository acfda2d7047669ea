/**
 * The HTTP generator: the requests of one run (one server process), spread over lanes that each send one request
 * at a time. A lane opens 2025-11-25 sessions (`initialize`), uses, streams (GET) and deletes them, and sends
 * stateless 2026-07-28 POSTs; valid requests are then mutated in their headers (content type, accept, version,
 * routing headers, session id, host, origin), method, path, or body (as on stdio, plus bodies over the limit).
 */
import { LEGACY, LIMITS, MODERN, TOOLS } from "./catalog.mjs";
import { encodeValue, renderParam, UNDECODABLE } from "./headers.mjs";
import {
  freshId,
  initializeMessage,
  META_FAULTS,
  modernMeta,
  randomCall,
  randomNotification,
  randomResponse,
  requestMessage,
} from "./messages.mjs";
import { encodeJson, mutateBytes, mutateValue } from "./mutate.mjs";

export const LANES = 8;

const WEIGHTS = {
  "modern valid": 25,
  "modern headers": 12,
  "modern value": 10,
  "modern bytes": 5,
  "modern meta": 3,
  "legacy valid": 18,
  "legacy headers": 6,
  "legacy value": 5,
  "session open": 3,
  "session delete": 1,
  "session stream": 1,
  notification: 3,
  response: 2,
  "http method": 2,
  "content type": 3,
  "host or origin": 2,
  "body over limit": 0.5,
  "empty body": 0.5,
  path: 0.5,
  "duplicate pair": 0.15,
  "huge echo": 0.1,
  listen: 1,
};

const ACCEPT = "application/json, text/event-stream";

/** Generates one run: `{ inputs }`, each `{ index, lane, method, path, headers, body, session, kind }`. */
export function httpRun(rng, { size, firstIndex }) {
  const lanes = Array.from({ length: LANES }, (_, lane) => new Lane(rng, lane));
  const inputs = [];
  for (let i = 0; i < size; i++) {
    const lane = lanes[rng.int(LANES)];
    inputs.push({ index: firstIndex + i, lane: lane.number, path: "/mcp", ...lane.next() });
  }
  return { inputs };
}

class Lane {
  constructor(rng, number) {
    this.rng = rng;
    this.number = number;
    this.counter = number * 10_000_000;
    this.sessions = [];
    this.used = [];
  }

  id() {
    const id = freshId(this.rng, ++this.counter);
    this.used.push(id);
    if (this.used.length > 32) this.used.shift();
    return id;
  }

  /** A session this lane opened and did not delete (most of the time), or any it ever had. */
  sessionRef() {
    const live = this.sessions.filter((s) => !s.deleted);
    if (live.length > 0 && this.rng.chance(0.95)) return this.rng.pick(live).ref;
    return this.sessions.length > 0 ? this.rng.pick(this.sessions).ref : undefined;
  }

  next() {
    const rng = this.rng;
    const kind = rng.weighted(WEIGHTS);
    if (kind.startsWith("legacy") && this.sessions.every((s) => s.deleted)) return this.open("session open");
    switch (kind) {
      case "modern valid":
        return { ...this.modern(), kind };
      case "modern headers":
        return { ...mutateHeaders(rng, this.modern(), "modern"), kind };
      case "modern value":
        return { ...this.mutatedBody(this.modern()), kind };
      case "modern bytes": {
        const input = this.modern();
        const { bytes, name } = mutateBytes(rng, input.body);
        return { ...input, body: bytes, kind: `modern bytes: ${name}` };
      }
      case "modern meta":
        return { ...this.modern(rng.pick(META_FAULTS)), kind };
      case "legacy valid":
        return { ...this.legacy(), kind };
      case "legacy headers":
        return { ...mutateHeaders(rng, this.legacy(), "legacy"), kind };
      case "legacy value":
        return { ...this.mutatedBody(this.legacy()), kind };
      case "session open":
        return this.open(kind);
      case "session delete":
      case "session stream": {
        const ref = this.sessionRef();
        const method = kind === "session delete" ? "DELETE" : "GET";
        if (method === "DELETE" && ref !== undefined) this.sessions.find((s) => s.ref === ref).deleted = true;
        const headers = { accept: "text/event-stream", "mcp-protocol-version": LEGACY };
        return { method, headers, body: null, session: ref === undefined ? undefined : { ref }, kind };
      }
      case "notification":
      case "response": {
        const era = rng.chance(0.5) ? "modern" : "legacy";
        const input = era === "modern" ? this.modern() : this.legacy();
        const message =
          kind === "notification"
            ? randomNotification(rng)
            : randomResponse(rng, rng.pick([...this.used, 1]));
        return { ...input, body: Buffer.from(JSON.stringify(message)), kind: `${era} ${kind}` };
      }
      case "http method": {
        const input = rng.chance(0.5) ? this.modern() : this.legacy();
        const method = rng.pick(["GET", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"]);
        if (rng.chance(0.3)) delete input.headers["mcp-protocol-version"];
        if (method === "GET" || method === "DELETE" || method === "HEAD") input.body = null;
        return { ...input, method, kind: `${kind}: ${method}` };
      }
      case "content type": {
        const input = rng.chance(0.5) ? this.modern() : this.legacy();
        const type = rng.pick([
          undefined,
          "text/plain",
          "application/json; charset=utf-8",
          "APPLICATION/JSON",
          " application/json ",
          "application/jsonx",
          "application/json-rpc",
          "multipart/form-data; boundary=x",
          "application/x-www-form-urlencoded",
          "",
        ]);
        if (type === undefined) delete input.headers["content-type"];
        else input.headers["content-type"] = type;
        return { ...input, kind };
      }
      case "host or origin": {
        const input = rng.chance(0.5) ? this.modern() : this.legacy();
        if (rng.chance(0.5)) {
          input.headers.host = rng.pick([
            "evil.example",
            "localhost:1",
            "[::1]:80",
            "127.0.0.1.evil",
            "LOCALHOST",
          ]);
        } else {
          input.headers.origin = rng.pick([
            "http://evil.example",
            "http://localhost:3000",
            "https://127.0.0.1",
            "null",
            "http://[::1]:9",
            "file://",
          ]);
        }
        return { ...input, kind };
      }
      case "body over limit": {
        const input = rng.chance(0.5) ? this.modern() : this.legacy();
        const message = JSON.parse(input.body.toString("utf8"));
        message.pad = "b".repeat(LIMITS.httpMaxBodyBytes + rng.range(1, 50_000));
        return { ...input, body: Buffer.from(JSON.stringify(message)), chunked: rng.chance(0.5), kind };
      }
      case "empty body":
        return { ...(rng.chance(0.5) ? this.modern() : this.legacy()), body: Buffer.alloc(0), kind };
      case "path":
        return { ...this.modern(), path: rng.pick(["/", "/mcp/", "/MCP", "/mcp?x=1", "/other"]), kind };
      case "huge echo": {
        // An id or method name as long as the body allows: an answer that repeats it passes maxResponseBytes.
        const input = rng.chance(0.5) ? this.modern() : this.legacy();
        const message = { jsonrpc: rng.pick(["1.0", "2.0"]), id: 1, method: rng.pick(["ping", "nope/nope"]) };
        const key = rng.chance(0.6) ? "id" : "method";
        message[key] = "";
        const room = LIMITS.httpMaxBodyBytes - Buffer.byteLength(JSON.stringify(message));
        message[key] = "i".repeat(room - rng.int(20));
        return { ...input, body: Buffer.from(JSON.stringify(message)), kind: `${kind}: ${key}` };
      }
      case "duplicate pair": {
        // Two concurrent POSTs of one slow call, one id, one session: the one that comes second is refused.
        const input = this.legacy();
        const body = requestMessage(this.id(), "tools/call", { name: "sleep", arguments: { ms: 600 } });
        return { ...input, body: Buffer.from(JSON.stringify(body)), pair: true, kind };
      }
      default: {
        const params = { notifications: rng.pick([{ toolsListChanged: true }, {}, { toolsListChanged: 1 }]) };
        const input = this.modernMessage(
          requestMessage(this.id(), "subscriptions/listen", params, modernMeta(rng)),
        );
        if (rng.chance(0.2)) input.headers.accept = "application/json";
        return { ...input, kind };
      }
    }
  }

  /** A valid 2026-07-28 POST (a `meta` fault when given). */
  modern(fault) {
    const { method, params } = randomCall(this.rng, "modern");
    return this.modernMessage(requestMessage(this.id(), method, params, modernMeta(this.rng, fault)));
  }

  modernMessage(message) {
    const headers = {
      "content-type": "application/json",
      accept: ACCEPT,
      "mcp-protocol-version": MODERN,
      "mcp-method": encodeValue(String(message.method)),
    };
    const params = message.params ?? {};
    const routed = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" }[message.method];
    if (routed && typeof params[routed] === "string") headers["mcp-name"] = encodeValue(params[routed]);
    if (message.method === "tools/call" && params.name === "region")
      Object.assign(headers, paramHeaders(params));
    return { method: "POST", headers, body: Buffer.from(JSON.stringify(message)), session: undefined };
  }

  /** A valid 2025-11-25 POST on one of the lane's sessions. */
  legacy() {
    const { method, params } = randomCall(this.rng, "legacy");
    const message = requestMessage(this.id(), method, params);
    const headers = { "content-type": "application/json", accept: ACCEPT, "mcp-protocol-version": LEGACY };
    const ref = this.sessionRef();
    return { method: "POST", headers, body: Buffer.from(JSON.stringify(message)), session: ref && { ref } };
  }

  /** An `initialize` that opens a session (sometimes mutated, so that it fails). */
  open(kind) {
    const ref = `L${this.number}-S${this.sessions.length}`;
    this.sessions.push({ ref, deleted: false });
    const headers = { "content-type": "application/json", accept: ACCEPT };
    if (this.rng.chance(0.3)) headers["mcp-protocol-version"] = LEGACY;
    let message = initializeMessage(this.id());
    if (this.rng.chance(0.15)) message = mutateValue(this.rng, message, this.used).value;
    return {
      method: "POST",
      headers,
      body: Buffer.from(encodeJson(message)),
      session: undefined,
      opens: ref,
      kind,
    };
  }

  mutatedBody(input) {
    const { value, name } = mutateValue(this.rng, JSON.parse(input.body.toString("utf8")), this.used);
    return { ...input, body: Buffer.from(encodeJson(value)), kind: `value: ${name}` };
  }
}

/** The `Mcp-Param-*` headers of a `region` call, as a correct client sends them. */
function paramHeaders(params) {
  const headers = {};
  const properties = TOOLS.region.inputSchema.properties;
  const args = typeof params.arguments === "object" && params.arguments !== null ? params.arguments : {};
  for (const [key, property] of Object.entries(properties)) {
    const rendered = renderParam(args[key]);
    if (rendered !== undefined)
      headers[`mcp-param-${property["x-mcp-header"].toLowerCase()}`] = encodeValue(rendered);
  }
  return headers;
}

/** One header fault on a valid request. */
function mutateHeaders(rng, input, era) {
  const headers = input.headers;
  const out = { ...input, headers };
  const name = rng.pick(
    era === "modern"
      ? ["version", "method", "name", "param", "accept", "session", "raw sentinel"]
      : ["version", "session", "accept", "no session"],
  );
  switch (name) {
    case "version":
      if (rng.chance(0.3)) delete headers["mcp-protocol-version"];
      else headers["mcp-protocol-version"] = rng.pick([LEGACY, MODERN, "2025-06-18", "2099-01-01", "x", ""]);
      break;
    case "method":
      if (rng.chance(0.3)) delete headers["mcp-method"];
      else
        headers["mcp-method"] = rng.pick([
          "tools/list",
          "TOOLS/CALL",
          "",
          ...UNDECODABLE,
          encodeValue("x y"),
        ]);
      break;
    case "name":
      if (rng.chance(0.3)) delete headers["mcp-name"];
      else
        headers["mcp-name"] = rng.pick([
          "echo",
          "nope",
          " echo ",
          ...UNDECODABLE,
          encodeValue("fuzz://static"),
        ]);
      break;
    case "param":
      headers[rng.pick(["mcp-param-region", "mcp-param-count", "mcp-param-verbose"])] = rng.pick([
        "eu",
        "03",
        "3",
        "true",
        "TRUE",
        "",
        ...UNDECODABLE,
      ]);
      break;
    case "raw sentinel":
      headers["mcp-method"] = "=?base64?dG9vbHMvbGlzdA==?=";
      break;
    case "accept":
      headers.accept = rng.pick(["text/event-stream", "application/json", "text/html", "*/*", "text/*", ""]);
      break;
    case "session":
      out.session = rng.pick([{ raw: "deadbeef".repeat(4) }, { raw: "" }, { raw: " x " }]);
      break;
    default:
      out.session = undefined;
  }
  return out;
}
