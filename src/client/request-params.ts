import { immutableJson } from "../jsonrpc/json-copy.js";
import { isObject } from "../jsonrpc/message.js";
import { copyInto, shallowCopy } from "../jsonrpc/shallow-copy.js";
import { MetaKey } from "../protocol/meta.js";
import { buildRequestMeta } from "../protocol/request-meta.js";
import type { ClientCapabilities } from "../protocol/types/capabilities.js";
import type { Implementation, LoggingLevel } from "../protocol/types/common.js";
import { type Era, MODERN_VERSION } from "../protocol/versions.js";

/** The client facts that go into request metadata. */
export interface MetaSource {
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  logLevel: LoggingLevel | undefined;
}

const MODERN_REQUEST_KEYS: readonly string[] = [
  MetaKey.protocolVersion,
  MetaKey.clientInfo,
  MetaKey.clientCapabilities,
  MetaKey.logLevel,
];

/** The full 2026-07-28 request `_meta`: protocol version, client capabilities and info, and the log level. */
export function modernMeta(source: MetaSource): { [key: string]: unknown } {
  const fields: Parameters<typeof buildRequestMeta>[0] = {
    clientCapabilities: source.capabilities,
    clientInfo: source.clientInfo,
  };
  if (source.logLevel) fields.logLevel = source.logLevel;
  return buildRequestMeta(fields);
}

/**
 * The `_meta` of a 2026-07-28 client notification (`notifications/cancelled`): the request envelope without
 * the log level, so that a dual-era server can tell the era of the message itself.
 */
export function modernNotificationMeta(source: MetaSource): { [key: string]: unknown } {
  return buildRequestMeta({ clientCapabilities: source.capabilities, clientInfo: source.clientInfo });
}

// A client's metadata never changes after construction, so each source's 2026 `_meta` is built once, immutable:
// a request with no `_meta` of its own sends it as it is, and the in-process pair need not copy it.
const builtMeta = new WeakMap<MetaSource, { [key: string]: unknown }>();

function cachedModernMeta(source: MetaSource): { [key: string]: unknown } {
  let meta = builtMeta.get(source);
  if (meta === undefined) {
    meta = immutableJson(modernMeta(source));
    builtMeta.set(source, meta);
  }
  return meta;
}

/**
 * Shapes a request's params for the era. The `_meta` of `params` and the caller's extra keys are merged; in
 * 2026-07-28 the client's reserved keys are added and win, in 2025-11-25 they are removed so that a legacy peer
 * never sees 2026 metadata.
 */
export function paramsForEra(
  era: Era,
  source: MetaSource,
  params: { [key: string]: unknown },
  extraMeta: { [key: string]: unknown } | undefined,
): { [key: string]: unknown } {
  const given = isObject(params._meta) ? params._meta : undefined;
  if (era === MODERN_VERSION && given === undefined && !hasKeys(extraMeta)) {
    const shaped = shallowCopy(params);
    shaped._meta = cachedModernMeta(source);
    return shaped;
  }
  // Copies, not spreads: see shallowCopy (these run on every request).
  const meta = shallowCopy(given);
  copyInto(meta, extraMeta);
  const shaped = shallowCopy(params);
  if (era === MODERN_VERSION) {
    copyInto(meta, cachedModernMeta(source));
    shaped._meta = meta;
    return shaped;
  }
  for (const key of MODERN_REQUEST_KEYS) if (key in meta) delete meta[key];
  // The caller's `_meta`, if any, goes last, as it would after a rest-and-spread.
  if ("_meta" in shaped) delete shaped._meta;
  if (Object.keys(meta).length > 0) shaped._meta = meta;
  return shaped;
}

function hasKeys(object: { [key: string]: unknown } | undefined): boolean {
  if (object === undefined) return false;
  for (const key in object) if (Object.hasOwn(object, key)) return true;
  return Object.getOwnPropertySymbols(object).length > 0;
}
