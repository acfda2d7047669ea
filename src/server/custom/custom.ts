import { checkKeys } from "../../jsonrpc/config-check.js";
import { McpkitError } from "../../jsonrpc/errors.js";
import type { StandardSchemaV1 } from "../../protocol/standard-schema.js";
import type { JsonSchema } from "../../protocol/types/tools.js";
import type { Era } from "../../protocol/versions.js";
import type { RequestContext } from "../core/context.js";
import type { InputRequired } from "../state/input.js";
import { type Check, checkFor, isStandardSchema } from "./schemas.js";

/** Params of a custom message as a handler gets them: the wire params without `_meta` (and the 2026 retry fields). */
export type CustomParams = { [key: string]: unknown };

/** A custom request's result: any JSON object; 2026-07-28 adds `resultType` and server info. */
export type CustomResult = { [key: string]: unknown };

/** A params schema: a Standard Schema (zod, Valibot, ArkType...), or a raw JSON Schema of an object. */
export type ParamsSchema = StandardSchemaV1 | JsonSchema;

/** What a handler of `schema` receives: the Standard Schema's output, else plain params. */
export type InferParams<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<S> : CustomParams;

/**
 * Answers a custom request: a result object, `inputRequired(...)` to ask the client for input first, or a thrown
 * `JsonRpcError` to answer with that error (anything else thrown becomes `-32603`).
 */
export type CustomRequestHandler<P = CustomParams, R extends CustomResult = CustomResult> = (
  params: P,
  context: RequestContext,
) => R | InputRequired | Promise<R | InputRequired>;

/** What a notification handler knows about the notification it serves. */
export interface NotificationContext {
  /** The wire era the notification came in on. */
  readonly era: Era;
  /** The notification's method. */
  readonly method: string;
  /** The authenticated principal, as set by the transport; `undefined` when the transport has none. */
  readonly identity: unknown;
  /** The notification's `_meta` (`{}` when absent). */
  readonly meta: { readonly [key: string]: unknown };
  /** Fires when the handler's deadline (`handlerTimeoutMs`) passes. */
  readonly signal: AbortSignal;
}

/** Takes one client notification. What it throws is logged; a notification has no answer. */
export type CustomNotificationHandler<P = CustomParams> = (
  params: P,
  context: NotificationContext,
) => void | Promise<void>;

const CUSTOM_REQUEST = Symbol.for("mcpkit.CustomRequest");
const CUSTOM_NOTIFICATION = Symbol.for("mcpkit.CustomNotification");

/** A custom request method's handler and how it is served; made by {@link defineRequest}. */
export interface CustomRequest {
  readonly [CUSTOM_REQUEST]: true;
  readonly handler: CustomRequestHandler<never>;
  /** @internal Checks the params before the handler runs (a failure is `-32602` naming every failing path). */
  readonly check: Check | undefined;
  /** 2026-07-28: complete results get the server's default `ttlMs`/`cacheScope` (the handler's own win). */
  readonly cacheable: boolean;
}

/** A custom notification's handler and its params check; made by {@link defineNotification}. */
export interface CustomNotification {
  readonly [CUSTOM_NOTIFICATION]: true;
  readonly handler: CustomNotificationHandler<never>;
  /** @internal Checks the params before the handler runs. */
  readonly check: Check | undefined;
}

/** Options of {@link defineRequest}. */
export interface CustomRequestOptions<S extends ParamsSchema | undefined = undefined> {
  /** Validates the params (without `_meta`) before the handler runs; the handler gets the schema's output. */
  params?: S;
  /** 2026-07-28: give complete results the server's default cache hints (default `false`). */
  cacheable?: boolean;
}

/**
 * Defines a custom request method: its handler, and optionally a params schema (validated, typed params; bad
 * params get `-32602`) and cacheability. A bare function is accepted wherever a definition is.
 *
 * @example
 * const search = defineRequest({ params: z.object({ q: z.string() }) }, async ({ q }, ctx) => ({ hits: [q] }));
 * createServer({ serverInfo, handler: {}, requests: { "acme/search": search } });
 */
export function defineRequest<R extends CustomResult = CustomResult>(
  handler: CustomRequestHandler<CustomParams, R>,
): CustomRequest;
export function defineRequest<S extends ParamsSchema | undefined, R extends CustomResult = CustomResult>(
  options: CustomRequestOptions<S>,
  handler: CustomRequestHandler<InferParams<S>, R>,
): CustomRequest;
export function defineRequest(
  first: CustomRequestOptions<ParamsSchema | undefined> | CustomRequestHandler,
  second?: CustomRequestHandler<never>,
): CustomRequest {
  const [options, handler] = typeof first === "function" ? [{}, first] : [first, second];
  if (typeof handler !== "function") throw invalid("defineRequest needs a handler function");
  if (typeof options !== "object" || options === null)
    throw invalid("defineRequest options must be an object");
  onlyKeys(options, ["params", "cacheable"], "defineRequest");
  if (options.cacheable !== undefined && typeof options.cacheable !== "boolean") {
    throw invalid("defineRequest cacheable must be a boolean");
  }
  return Object.freeze({
    [CUSTOM_REQUEST]: true as const,
    handler: handler as CustomRequestHandler<never>,
    check: paramsCheck(options.params),
    cacheable: options.cacheable === true,
  });
}

/**
 * Defines a custom notification handler, optionally with a params schema (params that fail it are dropped and
 * logged: a notification has no answer).
 *
 * @example
 * const seen = defineNotification({ params: z.object({ id: z.string() }) }, ({ id }) => markSeen(id));
 */
export function defineNotification(handler: CustomNotificationHandler): CustomNotification;
export function defineNotification<S extends ParamsSchema | undefined>(
  options: { params?: S },
  handler: CustomNotificationHandler<InferParams<S>>,
): CustomNotification;
export function defineNotification(
  first: { params?: ParamsSchema } | CustomNotificationHandler,
  second?: CustomNotificationHandler<never>,
): CustomNotification {
  const [options, handler] = typeof first === "function" ? [{}, first] : [first, second];
  if (typeof handler !== "function") throw invalid("defineNotification needs a handler function");
  if (typeof options !== "object" || options === null) {
    throw invalid("defineNotification options must be an object");
  }
  onlyKeys(options, ["params"], "defineNotification");
  return Object.freeze({
    [CUSTOM_NOTIFICATION]: true as const,
    handler: handler as CustomNotificationHandler<never>,
    check: paramsCheck(options.params),
  });
}

/** A request definition, or a bare handler (taken as `defineRequest(handler)`). */
export type RequestEntry = CustomRequest | CustomRequestHandler;
/** A notification definition, or a bare handler. */
export type NotificationEntry = CustomNotification | CustomNotificationHandler;

/** The definition of a map entry; throws `INVALID_CONFIG` naming `where` for anything else. */
export function toCustomRequest(entry: unknown, where: string): CustomRequest {
  if (typeof entry === "function") return defineRequest(entry as CustomRequestHandler);
  if (typeof entry === "object" && entry !== null && CUSTOM_REQUEST in entry) return entry as CustomRequest;
  throw invalid(`${where} must be a function or a defineRequest() definition`);
}

/** The definition of a notification map entry; throws `INVALID_CONFIG` naming `where` for anything else. */
export function toCustomNotification(entry: unknown, where: string): CustomNotification {
  if (typeof entry === "function") return defineNotification(entry as CustomNotificationHandler);
  if (typeof entry === "object" && entry !== null && CUSTOM_NOTIFICATION in entry) {
    return entry as CustomNotification;
  }
  throw invalid(`${where} must be a function or a defineNotification() definition`);
}

function paramsCheck(schema: ParamsSchema | undefined): Check | undefined {
  if (schema === undefined) return undefined;
  if (isStandardSchema(schema)) {
    const props = (schema as StandardSchemaV1)["~standard"];
    if (typeof props?.validate !== "function") throw invalid("params is a Standard Schema without validate");
    return checkFor(schema, undefined);
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw invalid("params must be a Standard Schema or a JSON Schema object");
  }
  return checkFor(schema, undefined);
}

function onlyKeys(options: object, allowed: readonly string[], what: string): void {
  checkKeys(options, allowed, (key, problem) => invalid(`${what} option ${key} ${problem}`));
}

function invalid(message: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", message);
}
