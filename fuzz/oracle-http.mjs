/**
 * The HTTP oracle: for one request (method, path, headers, body) and the state of its lane's sessions, the answer
 * Streamable HTTP calls for, following the pipeline in its documented order (path, Host and Origin, method,
 * Content-Type, body size, JSON, era, `_meta` and routing headers, session checks, dispatch). Within one step
 * the order of checks is not specified, so when a request has several faults there, any of their answers is
 * right.
 *
 * An expectation is `{ answers: [{ status, cls? }], id?, mints?, stream? }`: the allowed (status, answer class)
 * pairs (no `cls` for an answer without a JSON-RPC body), the id a JSON-RPC error must carry, whether a session
 * id must come back, and whether the answer is a stream that stays open.
 */
import { LEGACY, LIMITS, MODERN, TOOLS } from "./catalog.mjs";
import { decodeValue, paramMatches, renderParam } from "./headers.mjs";
import { META_VERSION } from "./messages.mjs";
import {
  classify,
  echoSize,
  initializeValid,
  isModernMethod,
  isObject,
  legacyAnswer,
  metaFaults,
  modernAnswer,
} from "./oracle-core.mjs";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);
const LEGACY_VERSIONS = new Set([LEGACY, "2025-06-18", "2025-03-26"]);
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
const refused = (status, cls) => ({ answers: [{ status, cls }] });

/** The HTTP status a 2026-07-28 answer travels with, by its class. */
function modernStatus(cls) {
  if (cls === "e-32601") return 404;
  if (cls === "too-large") return 500;
  if (["e-32700", "e-32600", "e-32602", "e-32020", "e-32021", "e-32022"].includes(cls)) return 400;
  return 200;
}

/** The state of one lane's sessions: ref -> `{ live, stream }`. */
export class LaneState {
  constructor() {
    this.sessions = new Map();
  }
}

/**
 * The expectation of `input` (see gen-http.mjs) for a lane in `state`. `sessionHeader` is the value the runner
 * sends for the input's session (undefined: none). Returns the expectation and `apply()`, which moves the lane's
 * state on as the expected answer does.
 */
export function expectHttp(input, state, sessionHeader) {
  const headers = lower(input.headers);
  if (sessionHeader !== undefined) headers["mcp-session-id"] = sessionHeader;
  const session = input.session?.ref === undefined ? undefined : state.sessions.get(input.session.ref);
  const nothing = () => {};
  const path = input.path.split("?")[0];
  if (path !== "/mcp") return { expectation: refused(404), apply: nothing };
  if (!hostAllowed(headers.host) || !originAllowed(headers.origin)) {
    return { expectation: refused(403), apply: nothing };
  }
  const version = headers["mcp-protocol-version"];
  const legacyHeaders = headers["mcp-session-id"] !== undefined || LEGACY_VERSIONS.has(version?.trim());
  const method = input.method.toUpperCase();
  if (method === "GET" || method === "DELETE") {
    if (!legacyHeaders) return { expectation: refused(405), apply: nothing };
    const fault = sessionFault(headers, session);
    if (fault) return { expectation: fault, apply: nothing };
    if (method === "DELETE") {
      return {
        expectation: refused(200),
        apply: () => Object.assign(session, { live: false, stream: false }),
      };
    }
    if (session.stream) return { expectation: refused(409, "e-32600"), apply: nothing };
    return {
      expectation: { answers: [{ status: 200 }], stream: true },
      apply: () => (session.stream = true),
    };
  }
  if (method !== "POST") return { expectation: refused(405), apply: nothing };
  if (!isJson(headers["content-type"])) return { expectation: refused(415, "e-32600"), apply: nothing };
  if (input.body.length > LIMITS.httpMaxBodyBytes)
    return { expectation: refused(413, "e-32600"), apply: nothing };
  let value;
  try {
    value = JSON.parse(utf8.decode(input.body));
  } catch {
    return { expectation: refused(400, "e-32700"), apply: nothing };
  }
  const message = classify(value);
  // An answer that would pass maxResponseBytes because it repeats the id (or the method name of a refusal)
  // goes without the id.
  const named = typeof value?.method === "string" ? value.method : undefined;
  const idOptional =
    message.id !== undefined && echoSize(message.id, named) + 2_000 > LIMITS.httpMaxResponseBytes;
  if (message.kind === "invalid") {
    return { expectation: { ...refused(400, "e-32600"), id: message.id, idOptional }, apply: nothing };
  }
  const legacy =
    legacyHeaders || (message.kind === "request" && value.method === "initialize" && version === undefined);
  const big = input.body.length > LIMITS.httpMaxResponseBytes / 2;
  const expectation = legacy
    ? legacyPost(value, message, headers, session)
    : modernPost(value, message, headers);
  if (big && expectation.answers.some((answer) => answer.cls !== undefined && answer.status < 300)) {
    // A request this large may be answered with more than maxResponseBytes (it repeats its id, names, text).
    expectation.answers.push({ status: 500, cls: "too-large" });
  }
  if (idOptional) expectation.idOptional = true;
  const apply = () => {
    if (expectation.mints && input.opens) state.sessions.set(input.opens, { live: true, stream: false });
  };
  return { expectation, apply };
}

function legacyPost(value, message, headers, session) {
  if (message.kind === "request" && value.method === "initialize") {
    if (headers["mcp-session-id"] !== undefined) return { ...refused(400, "e-32600"), id: value.id };
    if (!initializeValid(value.params ?? {}))
      return { answers: [{ status: 200, cls: "e-32602" }], id: value.id };
    return { answers: [{ status: 200, cls: "ok" }], id: value.id, mints: true };
  }
  const id = message.kind === "request" ? value.id : undefined;
  const fault = sessionFault(headers, session);
  if (fault) return { ...fault, id };
  if (message.kind !== "request") return refused(202);
  const era = eraFault(value);
  if (era) return { ...era, id };
  const classes = legacyAnswer(value.method, value.params ?? {}, value.id, LIMITS.httpMaxResponseBytes);
  return { answers: classes.map((cls) => ({ status: cls === "too-large" ? 500 : 200, cls })), id: value.id };
}

/**
 * A 2026-07-28 envelope on a 2025-11-25 session: `_meta` naming another version is 400 -32020, a 2026-only
 * method 400 -32600; undefined for a 2025 request.
 */
function eraFault(value) {
  const meta = value.params?._meta;
  const requested = isObject(meta) ? meta[META_VERSION] : undefined;
  if (requested !== undefined && requested !== LEGACY) return refused(400, "e-32020");
  if (value.method === "server/discover" || value.method === "subscriptions/listen")
    return refused(400, "e-32600");
  return undefined;
}

/** The refusal of a legacy request whose session checks fail, in their order; undefined when they pass. */
function sessionFault(headers, session) {
  const id = headers["mcp-session-id"]?.trim();
  if (!id) return refused(400, "e-32600");
  if (headers["mcp-protocol-version"]?.trim() !== LEGACY) return refused(400, "e-32022");
  if (!session?.live) return refused(404, "e-32000");
  return undefined;
}

function modernPost(value, message, headers) {
  if (message.kind === "response") return refused(400, "e-32600");
  if (message.kind === "notification") return refused(202);
  const { id, method } = value;
  const params = value.params ?? {};
  if (!isModernMethod(method)) {
    return { answers: [{ status: 404, cls: "e-32601" }], id };
  }
  const faults = [...metaFaults(params), ...headerFaults(method, params, headers)];
  if (faults.length > 0) {
    return { answers: [...new Set(faults)].map((cls) => ({ status: modernStatus(cls), cls })), id };
  }
  if (method === "subscriptions/listen") {
    const classes = modernAnswer(method, params, id, LIMITS.httpMaxResponseBytes);
    const answers = [];
    if (!acceptsSse(headers.accept)) answers.push({ status: 406, cls: "e-32600" });
    if (classes[0] !== "ack") answers.push({ status: 400, cls: "e-32602" });
    if (answers.length > 0) return { answers, id };
    return { answers: [{ status: 200, cls: "ack" }], id, stream: true };
  }
  const classes = modernAnswer(method, params, id, LIMITS.httpMaxResponseBytes);
  return { answers: classes.map((cls) => ({ status: modernStatus(cls), cls })), id };
}

/** The routing-header faults of a 2026-07-28 request (each `e-32020`, or `e-32022` for an unsupported version). */
function headerFaults(method, params, headers) {
  const faults = [];
  const version = headers["mcp-protocol-version"]?.trim();
  const metaVersion = isObject(params._meta) ? params._meta[META_VERSION] : undefined;
  if (version === undefined || version !== metaVersion) faults.push("e-32020");
  if (typeof metaVersion === "string" && metaVersion !== MODERN) faults.push("e-32022");
  if (!headerMatches(headers["mcp-method"], method)) faults.push("e-32020");
  const routed = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" }[method];
  if (routed && typeof params[routed] === "string" && !headerMatches(headers["mcp-name"], params[routed])) {
    faults.push("e-32020");
  }
  if (method === "tools/call" && params.name === "region") {
    const args = params.arguments;
    for (const [key, property] of Object.entries(TOOLS.region.inputSchema.properties)) {
      const raw = headers[`mcp-param-${property["x-mcp-header"].toLowerCase()}`];
      const argument = isObject(args) ? args[key] : undefined;
      if (argument === undefined || argument === null) {
        if (raw !== undefined) faults.push("e-32020");
        continue;
      }
      if (renderParam(argument) === undefined) continue;
      const decoded = raw === undefined ? undefined : decodeValue(raw);
      if (decoded === undefined || !paramMatches(decoded, argument)) faults.push("e-32020");
    }
  }
  return faults;
}

function headerMatches(raw, expected) {
  if (raw === undefined) return false;
  return decodeValue(raw) === expected;
}

function lower(headers) {
  const out = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/** A `Host` naming a loopback name, on any port. */
function hostAllowed(host) {
  if (host === undefined) return false;
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
  return LOOPBACK_HOSTS.has(name.toLowerCase());
}

/** No `Origin`, or `http`/`https` on a loopback name, any port. */
function originAllowed(origin) {
  if (origin === undefined) return true;
  let url;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_HOSTS.has(url.hostname);
}

function isJson(type) {
  if (type === undefined) return false;
  return type.split(";")[0].trim().toLowerCase() === "application/json";
}

function acceptsSse(accept) {
  if (accept === undefined || accept.trim() === "") return true;
  return accept.split(",").some((part) => {
    const type = part.split(";")[0].trim().toLowerCase();
    return type === "*/*" || type === "text/event-stream" || type === "text/*";
  });
}
