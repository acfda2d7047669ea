import { type Clock, isClock, systemClock } from "../../jsonrpc/clock.js";
import {
  checkKeys,
  NOT_AN_OPTION,
  nonNegativeInteger,
  optionError,
  positiveInteger,
} from "../../jsonrpc/config-check.js";
import { McpkitError } from "../../jsonrpc/errors.js";
import { isObject, type JsonRpcMessage } from "../../jsonrpc/message.js";
import { HTTP_MESSAGE_BYTES } from "../../protocol/limits.js";
import { type HeaderParam, headerParamsOf } from "../../protocol/routing-headers.js";
import {
  compileOriginPolicy,
  DEFAULT_ALLOWED_HOSTS,
  DEFAULT_ALLOWED_ORIGINS,
  type OriginPolicy,
} from "./origin.js";

/** A tool's input schema, as far as the `Mcp-Param-*` checks read it. */
export type ToolInputSchema = { readonly [key: string]: unknown };

/**
 * Finds the input schema of a tool for the `Mcp-Param-*` checks, after identity resolution. Return `undefined`
 * for a tool you do not know (no header is then checked; the call itself answers for the unknown tool).
 */
export type ToolSchemaResolver = (
  toolName: string,
  identity: unknown,
) => ToolInputSchema | undefined | Promise<ToolInputSchema | undefined>;

/**
 * What the pipeline knows of a request when it asks {@link Authenticate}: the decoded JSON-RPC message of a
 * POST (checked against the routing headers in 2026-07-28), `undefined` for a legacy GET or DELETE. The hook's
 * `Request` has no body left to read; this is how a hook sees the method and the called tool (per-tool scopes).
 */
export interface AuthenticateInfo {
  readonly message: JsonRpcMessage | undefined;
}

/**
 * Decides who sends a request. Return the identity (it reaches `RequestContext.identity` and is fingerprinted
 * for legacy sessions), `undefined` for an anonymous request, or a `Response` to refuse the request with it
 * (e.g. 401 with `WWW-Authenticate`). A throw or rejection answers 500 with no detail.
 *
 * The identity names its principal: a string, `{ principal: string, ...anything }`, or plain JSON. It may add
 * `authorizationContext` (plain JSON: token scopes, tenant, ...): a 2025-11-25 session then stays bound to that
 * context as well, and a request of the session under another context gets 403.
 *
 * @example
 * const authenticate: Authenticate = async (request) => {
 *   const token = await verify(request.headers.get("authorization"));
 *   return { principal: token.sub, authorizationContext: { scopes: token.scopes } };
 * };
 */
export type Authenticate = (request: Request, info: AuthenticateInfo) => unknown | Promise<unknown>;

/** Bounds of the legacy (2025-11-25) sessions of one handler. */
export interface SessionOptions {
  /** Open sessions per handler (default 1,024); 503 `session_limit` past it. */
  maxSessions?: number;
  /** Open sessions per authenticated identity (default 16); 503 `identity_limit` past it. */
  maxSessionsPerIdentity?: number;
  /**
   * Open sessions per remote address of anonymous callers (default 16; an IPv6 address counts by its /64);
   * 503 `address_limit` past it. Without an address (a Web handler called without `remoteAddress`), anonymous
   * sessions count only against `maxSessions`. Behind a proxy every caller has the proxy's address: have
   * `authenticate` return a principal instead.
   */
  maxSessionsPerAddress?: number;
  /** A session with no request for this long is closed (default 900,000 ms = 15 min). */
  idleTimeoutMs?: number;
  /** A session is closed this long after `initialize`, whatever it does (default 86,400,000 ms = 24 h). */
  absoluteTimeoutMs?: number;
  /** A session that has not sent `notifications/initialized` this long after `initialize` is closed (30,000). */
  initializationTimeoutMs?: number;
}

/**
 * Options of {@link createHttpHandler}. Unknown keys are rejected.
 *
 * @example
 * const handler = createHttpHandler(server, {
 *   allowedHosts: ["mcp.example.com"],
 *   allowedOrigins: ["https://app.example.com"],
 *   authenticate: (request) => verifyBearer(request.headers.get("authorization")),
 * });
 */
export interface HttpHandlerOptions {
  /** Hosts the `Host` header may name (default loopback names, any port). */
  allowedHosts?: readonly string[];
  /** Browser origins allowed to call (default `http`/`https` loopback, any port). No `Origin` always passes. */
  allowedOrigins?: readonly string[];
  /** Largest request body, counted while it streams in (default 8,000,000 bytes); 413 past it. */
  maxBodyBytes?: number;
  /** Largest encoded response (JSON body or SSE stream; per event on a GET stream), default 8,000,000 bytes. */
  maxResponseBytes?: number;
  /**
   * Answer with `application/json`, dropping request notifications, unless the client accepts only an event
   * stream (default false: JSON when the answer comes before any notification and the client accepts JSON, else
   * an SSE stream).
   */
  enableJsonResponse?: boolean;
  /**
   * Interval of SSE keepalive comments (default 15,000 ms; 0 turns them off). Behind `Bun.serve`, raise its
   * `idleTimeout` above it (its default, 10 s, would cut a quiet stream).
   */
  keepAliveMs?: number;
  /**
   * 2025-11-25: how long a POSTed request may take to be answered (default 25,000 ms). Past it the request is
   * answered `-32603` "Request timeout" (HTTP 504 when nothing of the answer was sent yet; else the last event
   * of its SSE stream, which then closes) and the handler's signal fires. It comes before the server's
   * `handlerTimeoutMs` (30,000) by default; raise both for long tools.
   */
  legacySseTimeoutMs?: number;
  /** Resolves the identity of a request (default: every request is anonymous). */
  authenticate?: Authenticate;
  /** Tool input schemas for the `Mcp-Param-*` checks: a static map (checked now) or a resolver. */
  toolSchemas?: { readonly [toolName: string]: ToolInputSchema } | ToolSchemaResolver;
  /** Bounds of legacy 2025-11-25 sessions. */
  sessions?: SessionOptions;
  /** The clock behind expiry and keepalives (tests inject one). */
  clock?: Clock;
  /** How this handler serves 2025-11-25 sessions held by other instances (needs the server's `cluster`). */
  cluster?: HttpClusterOptions;
}

/**
 * Options of a handler whose server has a `cluster`: what becomes of a 2025-11-25 request that names a session
 * another instance holds (its owner, in the shared session directory).
 *
 * @example
 * createHttpHandler(server, { cluster: { legacySessions: "stateless" } });
 */
export interface HttpClusterOptions {
  /**
   * `"forward"` (default): the request goes to the owner over the bus and its answer, SSE included, is
   * relayed. `"stateless"`: a request is served here by a fresh session built from the recorded `initialize`
   * (no server-to-client requests, no session state); notifications, responses, GET and DELETE still go to
   * the owner.
   */
  legacySessions?: "forward" | "stateless";
  /** How long the owner has to acknowledge a forwarded request before it counts as gone (default 2,000 ms). */
  forwardAckMs?: number;
}

/** The checked, frozen configuration of one handler. */
export interface HttpConfig {
  readonly policy: OriginPolicy;
  readonly maxBodyBytes: number;
  readonly maxResponseBytes: number;
  readonly enableJsonResponse: boolean;
  readonly keepAliveMs: number;
  readonly legacySseTimeoutMs: number;
  readonly authenticate: Authenticate | undefined;
  /** Static schemas, their annotations compiled; or the resolver. */
  readonly toolSchemas: ReadonlyMap<string, readonly HeaderParam[]> | ToolSchemaResolver | undefined;
  readonly sessions: Readonly<Required<SessionOptions>>;
  readonly clock: Clock;
  readonly cluster: Readonly<Required<HttpClusterOptions>>;
}

const OPTION_KEYS = new Set([
  "allowedHosts",
  "allowedOrigins",
  "maxBodyBytes",
  "maxResponseBytes",
  "enableJsonResponse",
  "keepAliveMs",
  "legacySseTimeoutMs",
  "authenticate",
  "toolSchemas",
  "sessions",
  "clock",
  "cluster",
]);

const SESSION_DEFAULTS: Required<SessionOptions> = {
  maxSessions: 1024,
  maxSessionsPerIdentity: 16,
  maxSessionsPerAddress: 16,
  idleTimeoutMs: 15 * 60_000,
  absoluteTimeoutMs: 24 * 60 * 60_000,
  initializationTimeoutMs: 30_000,
};

const PREFIX = "http option ";

/** Checks options and freezes them. Throws `McpkitError` `INVALID_CONFIG` naming the faulty key. */
export function buildHttpConfig(options: HttpHandlerOptions): HttpConfig {
  if (!isObject(options as unknown)) throw invalid("options", "must be an object");
  checkKeys(options, OPTION_KEYS, PREFIX);
  const hosts = stringList("allowedHosts", options.allowedHosts, DEFAULT_ALLOWED_HOSTS);
  const origins = stringList("allowedOrigins", options.allowedOrigins, DEFAULT_ALLOWED_ORIGINS);
  let policy: OriginPolicy;
  try {
    policy = compileOriginPolicy(hosts, origins);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const key = message.startsWith("allowedHosts") ? "allowedHosts" : "allowedOrigins";
    throw new McpkitError("INVALID_CONFIG", `http option ${message}`, { details: { key } });
  }
  if (options.authenticate !== undefined && typeof options.authenticate !== "function") {
    throw invalid("authenticate", "must be a function");
  }
  if (options.enableJsonResponse !== undefined && typeof options.enableJsonResponse !== "boolean") {
    throw invalid("enableJsonResponse", "must be a boolean");
  }
  if (options.clock !== undefined && !isClock(options.clock)) {
    throw invalid("clock", "must have now, setTimeout and clearTimeout");
  }
  return Object.freeze({
    policy,
    maxBodyBytes: positiveInteger(options.maxBodyBytes, HTTP_MESSAGE_BYTES, "maxBodyBytes", PREFIX),
    maxResponseBytes: positiveInteger(
      options.maxResponseBytes,
      HTTP_MESSAGE_BYTES,
      "maxResponseBytes",
      PREFIX,
    ),
    enableJsonResponse: options.enableJsonResponse ?? false,
    keepAliveMs: nonNegativeInteger(options.keepAliveMs, 15_000, "keepAliveMs", PREFIX),
    legacySseTimeoutMs: positiveInteger(options.legacySseTimeoutMs, 25_000, "legacySseTimeoutMs", PREFIX),
    authenticate: options.authenticate,
    toolSchemas: checkToolSchemas(options.toolSchemas),
    sessions: checkSessions(options.sessions),
    clock: options.clock ?? systemClock,
    cluster: checkCluster(options.cluster),
  });
}

function checkToolSchemas(
  schemas: HttpHandlerOptions["toolSchemas"],
): ReadonlyMap<string, readonly HeaderParam[]> | ToolSchemaResolver | undefined {
  if (schemas === undefined || typeof schemas === "function") return schemas;
  if (!isObject(schemas as unknown))
    throw invalid("toolSchemas", "must be a map of tool names to schemas, or a function");
  const compiled = new Map<string, readonly HeaderParam[]>();
  for (const [name, schema] of Object.entries(schemas)) {
    const result = headerParamsOf(schema);
    if (!result.ok) throw invalid(`toolSchemas["${name}"]`, `is invalid: ${result.problem}`);
    compiled.set(name, Object.freeze(result.params));
  }
  return compiled;
}

function checkSessions(sessions: SessionOptions | undefined): Readonly<Required<SessionOptions>> {
  if (sessions === undefined) return Object.freeze({ ...SESSION_DEFAULTS });
  if (!isObject(sessions as unknown)) throw invalid("sessions", "must be an object");
  const out = { ...SESSION_DEFAULTS };
  for (const key of Object.keys(sessions)) {
    if (!(key in SESSION_DEFAULTS)) throw invalid(`sessions.${key}`, NOT_AN_OPTION);
    const name = key as keyof SessionOptions;
    out[name] = positiveInteger(sessions[name], SESSION_DEFAULTS[name], `sessions.${key}`, PREFIX);
  }
  return Object.freeze(out);
}

function checkCluster(cluster: HttpClusterOptions | undefined): Readonly<Required<HttpClusterOptions>> {
  const fallback = { legacySessions: "forward", forwardAckMs: 2_000 } as const;
  if (cluster === undefined) return fallback;
  if (!isObject(cluster as unknown)) throw invalid("cluster", "must be an object");
  checkKeys(cluster, (key) => key in fallback, PREFIX, "cluster.");
  const legacySessions = cluster.legacySessions ?? "forward";
  if (legacySessions !== "forward" && legacySessions !== "stateless") {
    throw invalid("cluster.legacySessions", 'must be "forward" or "stateless"');
  }
  const forwardAckMs = positiveInteger(
    cluster.forwardAckMs,
    fallback.forwardAckMs,
    "cluster.forwardAckMs",
    PREFIX,
  );
  return Object.freeze({ legacySessions, forwardAckMs });
}

function stringList(
  key: string,
  value: readonly string[] | undefined,
  fallback: readonly string[],
): string[] {
  if (value === undefined) return [...fallback];
  if (!Array.isArray(value) || !value.every((entry) => typeof entry === "string")) {
    throw invalid(key, "must be an array of strings");
  }
  return [...value];
}

function invalid(key: string, problem: string): McpkitError {
  return optionError(key, problem, PREFIX);
}
