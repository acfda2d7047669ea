import { ErrorCode } from "../../jsonrpc/codes.js";
import type { JsonRpcRequest } from "../../jsonrpc/message.js";
import { isObject } from "../../jsonrpc/message.js";
import { MetaKey } from "../../protocol/meta.js";
import { REMOVED_IN_MODERN } from "../../protocol/methods.js";
import { parseRequestMeta, type RequestMeta } from "../../protocol/request-meta.js";
import {
  decodeHeaderValue,
  type HeaderParam,
  headerParamMatches,
  headerParamsOf,
  headerParamValue,
  McpHeader,
  renderHeaderParam,
  routedName,
} from "../../protocol/routing-headers.js";
import { MODERN_VERSION, SUPPORTED_VERSIONS } from "../../protocol/versions.js";
import { type CustomMethods, servesModern } from "../../server/port.js";
import { headerMismatch, refusal } from "./responses.js";
import type { RequestView } from "./view.js";

/** A request's headers, read by lowercase name. */
type HeaderSource = Pick<RequestView, "header">;

const PROTOCOL_VERSION = McpHeader.protocolVersion.toLowerCase();
const METHOD = McpHeader.method.toLowerCase();
const NAME = McpHeader.name.toLowerCase();

/**
 * The 2026-07-28 checks of a request before identity, in pipeline order: the method is served, a core one or one
 * of `custom` (404 `-32601` otherwise), `_meta` carries its required members (400 `-32602`), `MCP-Protocol-Version` equals the `_meta`
 * version (400 `-32020`), that version is supported (400 `-32022`), `Mcp-Method` equals the method and
 * `Mcp-Name` the routed name (400 `-32020`). Throws the refusal; returns the checked meta.
 */
export function checkModernHeaders(
  request: JsonRpcRequest,
  headers: HeaderSource,
  custom?: CustomMethods,
): RequestMeta {
  if (REMOVED_IN_MODERN.has(request.method)) {
    const detail = `${request.method} is not part of ${MODERN_VERSION}`;
    throw refusal(404, ErrorCode.MethodNotFound, `Method not found: ${request.method}`, detail);
  }
  if (!servesModern(request.method, custom)) {
    throw refusal(404, ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
  }
  const meta = request.params?._meta;
  if (!isObject(meta)) throw invalidParams("params._meta is required");
  const version = meta[MetaKey.protocolVersion];
  if (typeof version !== "string") throw invalidParams(`_meta["${MetaKey.protocolVersion}"] is required`);
  if (!isObject(meta[MetaKey.clientCapabilities])) {
    throw invalidParams(`_meta["${MetaKey.clientCapabilities}"] is required`);
  }
  const headerVersion = headers.header(PROTOCOL_VERSION)?.trim();
  if (headerVersion === undefined) {
    throw headerMismatch(`${McpHeader.protocolVersion} is required`, McpHeader.protocolVersion);
  }
  if (headerVersion !== version) {
    throw headerMismatch(
      `${McpHeader.protocolVersion} does not match the _meta version`,
      McpHeader.protocolVersion,
    );
  }
  let checked: RequestMeta;
  try {
    checked = parseRequestMeta(request.params, [MODERN_VERSION], SUPPORTED_VERSIONS);
  } catch (error) {
    const wire = error as { code: number; message: string; data?: unknown };
    throw refusal(400, wire.code, wire.message, wire.data);
  }
  expectHeader(headers, McpHeader.method, METHOD, request.method, "the method");
  const name = routedName(request.method, request.params);
  if (name !== undefined) expectHeader(headers, McpHeader.name, NAME, name, "params.name or params.uri");
  return checked;
}

function expectHeader(
  headers: HeaderSource,
  header: string,
  lowercase: string,
  expected: string,
  what: string,
): void {
  const raw = headers.header(lowercase);
  if (raw === null) throw headerMismatch(`${header} is required`, header);
  const value = decodeHeaderValue(raw);
  if (value === undefined) throw headerMismatch(`${header} is not decodable`, header);
  if (value !== expected) throw headerMismatch(`${header} does not match ${what}`, header);
}

function invalidParams(message: string) {
  return refusal(400, ErrorCode.InvalidParams, `Invalid params: ${message}`);
}

/** Compiled annotations of schemas a resolver returned, so each schema object is walked once. */
const resolved = new WeakMap<object, readonly HeaderParam[] | string>();

/** The `x-mcp-header` annotations of a resolver's schema; throws (a server bug, 500) when they are invalid. */
export function resolvedParams(schema: object): readonly HeaderParam[] {
  let params = resolved.get(schema);
  if (params === undefined) {
    const result = headerParamsOf(schema);
    params = result.ok ? result.params : result.problem;
    resolved.set(schema, params);
  }
  if (typeof params === "string")
    throw new Error(`toolSchemas resolver returned an invalid schema: ${params}`);
  return params;
}

/**
 * Checks the `Mcp-Param-{Name}` headers of a `tools/call` against its arguments: an argument that is present
 * (and not null) needs its header, decodable and equal (strings and booleans exactly, integers numerically);
 * an absent or null argument must have no header. Any fault is 400 `-32020`.
 */
export function checkParamHeaders(
  params: readonly HeaderParam[],
  args: unknown,
  headers: HeaderSource,
): void {
  for (const param of params) {
    const header = `${McpHeader.paramPrefix}${param.name}`;
    const raw = headers.header(header.toLowerCase());
    const value = headerParamValue(args, param);
    if (value === undefined || value === null) {
      if (raw !== null) throw headerMismatch(`${header} is sent but its argument is absent`, header);
      continue;
    }
    // A value that has no header form (an object, a fraction) is the tool's to refuse, not the router's.
    if (renderHeaderParam(value) === undefined) continue;
    if (raw === null) throw headerMismatch(`${header} is required`, header);
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) throw headerMismatch(`${header} is not decodable`, header);
    if (!headerParamMatches(decoded, value)) {
      throw headerMismatch(`${header} does not match arguments.${param.path.join(".")}`, header);
    }
  }
}
