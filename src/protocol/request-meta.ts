import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError } from "../jsonrpc/errors.js";
import { isObject } from "../jsonrpc/message.js";
import { MetaKey } from "./meta.js";
import type { ClientCapabilities } from "./types/capabilities.js";
import type { Implementation, LoggingLevel, ProgressToken } from "./types/common.js";
import { LOGGING_LEVELS } from "./types/common.js";
import { MODERN_VERSION } from "./versions.js";

/** The checked view of a 2026-07-28 request's `_meta`. `raw` is the whole object, unknown keys included. */
export interface RequestMeta {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  logLevel?: LoggingLevel;
  progressToken?: ProgressToken;
  raw: { [key: string]: unknown };
}

/** What the client puts in every 2026-07-28 request's `_meta`. */
export interface RequestMetaInput {
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  logLevel?: LoggingLevel;
  progressToken?: ProgressToken;
}

/** Builds the per-request `_meta` object of the 2026-07-28 revision. */
export function buildRequestMeta(input: RequestMetaInput): { [key: string]: unknown } {
  const meta: { [key: string]: unknown } = {
    [MetaKey.protocolVersion]: MODERN_VERSION,
    [MetaKey.clientCapabilities]: input.clientCapabilities,
  };
  if (input.clientInfo) meta[MetaKey.clientInfo] = input.clientInfo;
  if (input.logLevel) meta[MetaKey.logLevel] = input.logLevel;
  if (input.progressToken !== undefined) meta.progressToken = input.progressToken;
  return meta;
}

/**
 * Checks a 2026-07-28 request's `params._meta`. Missing or malformed required members throw `-32602`; a
 * version outside `accepted` throws `-32022` with `data.supported` (`advertised`: every version the server
 * speaks, so a client can pick a legacy one) and `data.requested`.
 */
export function parseRequestMeta(
  params: unknown,
  accepted: readonly string[],
  advertised: readonly string[] = accepted,
): RequestMeta {
  const meta = isObject(params) ? params._meta : undefined;
  if (!isObject(meta)) throw invalidParams("params._meta is required");
  const version = meta[MetaKey.protocolVersion];
  if (typeof version !== "string") throw invalidParams(`_meta["${MetaKey.protocolVersion}"] is required`);
  if (!accepted.includes(version)) {
    throw new JsonRpcError(ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", {
      supported: [...advertised],
      requested: version,
    });
  }
  const capabilities = meta[MetaKey.clientCapabilities];
  if (!isObject(capabilities)) throw invalidParams(`_meta["${MetaKey.clientCapabilities}"] is required`);
  const out: RequestMeta = { protocolVersion: version, clientCapabilities: capabilities, raw: meta };
  const info = meta[MetaKey.clientInfo];
  if (info !== undefined) {
    if (!isObject(info) || typeof info.name !== "string" || typeof info.version !== "string") {
      throw invalidParams(`_meta["${MetaKey.clientInfo}"] must be an Implementation`);
    }
    out.clientInfo = info as Implementation;
  }
  const level = meta[MetaKey.logLevel];
  if (level !== undefined) {
    if (!LOGGING_LEVELS.includes(level as LoggingLevel))
      throw invalidParams(`_meta["${MetaKey.logLevel}"] is invalid`);
    out.logLevel = level as LoggingLevel;
  }
  const token = meta.progressToken;
  if (typeof token === "string" || typeof token === "number") out.progressToken = token;
  return out;
}

function invalidParams(message: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${message}`);
}
