import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import { isObject } from "../jsonrpc/message.js";
import type { ResultObject } from "../jsonrpc/pending.js";
import { MetaKey } from "../protocol/meta.js";
import type { ServerCapabilities } from "../protocol/types/capabilities.js";
import type { Implementation } from "../protocol/types/common.js";
import { type Era, isLegacyVersion, LEGACY_VERSION, MODERN_VERSION } from "../protocol/versions.js";
import type { RpcChannel } from "./channel.js";
import { Deadline } from "./deadline.js";
import { type MetaSource, modernMeta } from "./request-params.js";
import { checkResult } from "./results.js";
import type { ConnectionInfo } from "./types.js";

/** The longest a discover probe may take when a fallback to `initialize` must still fit in the deadline. */
export const PROBE_TIMEOUT_MS = 10_000;

/** What the version ladder needs. */
export interface LadderInput {
  channel: RpcChannel;
  meta: MetaSource;
  /** The pinned era, or undefined to prefer 2026-07-28 and fall back. */
  pinned: Era | undefined;
  /** The whole connect deadline. */
  deadline: Deadline;
  /**
   * `versionFallback: "lenient"`: fall back on any error that is not a recognized 2026 error (and, where
   * `probeTimeoutFallsBack`, on the probe's timeout). Otherwise only -32601 and -32022 naming a 2025 version do.
   */
  lenient?: boolean;
  /** Accept an `initialize` answer naming 2025-06-18 or 2025-03-26. */
  acceptOlderVersions?: boolean;
  /** False on Streamable HTTP: a probe that times out is an error there, even when lenient. */
  probeTimeoutFallsBack?: boolean;
}

type ProbeOutcome = { kind: "modern"; info: ConnectionInfo } | { kind: "legacy" };

/**
 * Runs the version ladder inside one deadline. Unpinned: `server/discover` first, `initialize` only on a
 * fallback signal: -32601, or -32022 naming a 2025 version (lenient: also any error that is not a recognized
 * 2026 error, an HTTP 400 without one, or the probe's own timeout off HTTP); -32022 naming 2026-07-28 retries
 * discover once. Any other answer fails with a typed error. Pinned: that era only.
 */
export async function negotiate(input: LadderInput): Promise<ConnectionInfo> {
  if (input.pinned === LEGACY_VERSION) return initialize(input);
  const outcome = await discover(input);
  if (outcome.kind === "modern") return outcome.info;
  return initialize(input);
}

async function discover(input: LadderInput): Promise<ProbeOutcome> {
  const pinned = input.pinned === MODERN_VERSION;
  const lenient = !pinned && input.lenient === true;
  const timeoutFallsBack = lenient && input.probeTimeoutFallsBack !== false;
  for (let attempt = 0; ; attempt++) {
    const probe = new Deadline({
      // A probe whose timeout falls back gets a bounded slice, so that the initialize fallback still fits.
      timeoutMs: !timeoutFallsBack
        ? Number.POSITIVE_INFINITY
        : Math.min(PROBE_TIMEOUT_MS, input.deadline.remainingMs() / 2),
      parent: input.deadline,
      what: "server/discover",
    });
    try {
      const result = await input.channel.request(
        "server/discover",
        { _meta: modernMeta(input.meta) },
        { deadline: probe, cancelOnAbort: false },
      );
      return { kind: "modern", info: modernInfo(checkResult("server/discover", result)) };
    } catch (error) {
      if (probe.timedOut && timeoutFallsBack) return { kind: "legacy" };
      // A transport's own verdict (HTTP: a 400 without a recognized JSON-RPC error).
      if (error instanceof McpkitError && error.code === "VERSION_NEGOTIATION" && !pinned) {
        if (lenient) return { kind: "legacy" };
        const status = error.details?.status;
        throw noFallback(
          `server/discover was answered with HTTP ${String(status)} and no JSON-RPC error`,
          error.details,
          error,
        );
      }
      if (!(error instanceof JsonRpcError)) throw error;
      if (error.code === ErrorCode.UnsupportedProtocolVersion) {
        const supported = supportedVersions(error);
        if (supported.includes(MODERN_VERSION) && attempt === 0) continue;
        const spoken =
          input.acceptOlderVersions === true
            ? supported.some(isLegacyVersion)
            : supported.includes(LEGACY_VERSION);
        if (!pinned && spoken) return { kind: "legacy" };
        throw noCommonVersion(error, "server/discover");
      }
      if (isModernError(error)) throw error;
      if (pinned) {
        throw new McpkitError("VERSION_NEGOTIATION", `the server does not speak ${MODERN_VERSION}`, {
          details: { code: error.code, data: error.data },
          cause: error,
        });
      }
      if (error.code === ErrorCode.MethodNotFound || lenient) return { kind: "legacy" };
      throw noFallback(
        `server/discover answered ${error.code} (${clip(error.message)})`,
        { code: error.code, message: error.message, ...(error.hasData ? { data: error.data } : {}) },
        error,
      );
    } finally {
      probe.dispose();
    }
  }
}

/** The failure of a strict ladder on an answer that is no fallback signal: says what came, and the way out. */
function noFallback(
  what: string,
  details: { [key: string]: unknown } | undefined,
  cause: Error,
): McpkitError {
  return new McpkitError(
    "VERSION_NEGOTIATION",
    `${what}: only -32601 or -32022 naming a 2025 version make the client fall back to initialize, so it ` +
      'does not. For a server known to answer server/discover this way, set versionFallback: "lenient" ' +
      '(or protocolVersion: "2025-11-25")',
    { details: { ...details, method: "server/discover", fallback: "none" }, cause },
  );
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

async function initialize(input: LadderInput): Promise<ConnectionInfo> {
  let result: ResultObject;
  try {
    result = await input.channel.request(
      "initialize",
      {
        protocolVersion: LEGACY_VERSION,
        capabilities: input.meta.capabilities,
        clientInfo: input.meta.clientInfo,
      },
      // The 2025 lifecycle forbids cancelling initialize.
      { deadline: input.deadline, cancelOnAbort: false },
    );
  } catch (error) {
    if (error instanceof JsonRpcError && error.code === ErrorCode.UnsupportedProtocolVersion) {
      throw noCommonVersion(error, "initialize");
    }
    throw error;
  }
  checkResult("initialize", result);
  const version = result.protocolVersion as string;
  if (version !== LEGACY_VERSION && isLegacyVersion(version) && input.acceptOlderVersions !== true) {
    throw new McpkitError(
      "VERSION_NEGOTIATION",
      `the server answered initialize with the older revision ${version}; set acceptOlderVersions: true to speak it`,
      { details: { requested: LEGACY_VERSION, received: version, option: "acceptOlderVersions" } },
    );
  }
  if (!isLegacyVersion(version)) {
    throw new McpkitError("VERSION_NEGOTIATION", `the server answered initialize with version ${version}`, {
      details: { requested: LEGACY_VERSION, received: version },
    });
  }
  try {
    await input.channel.notify("notifications/initialized");
  } catch (error) {
    throw new McpkitError("TRANSPORT", "sending notifications/initialized failed", { cause: error });
  }
  const info: ConnectionInfo = {
    era: LEGACY_VERSION,
    protocolVersion: version,
    serverInfo: result.serverInfo as Implementation,
    capabilities: result.capabilities as ServerCapabilities,
  };
  if (typeof result.instructions === "string") info.instructions = result.instructions;
  return info;
}

function modernInfo(result: ResultObject): ConnectionInfo {
  const info: ConnectionInfo = {
    era: MODERN_VERSION,
    protocolVersion: MODERN_VERSION,
    capabilities: result.capabilities as ServerCapabilities,
    supportedVersions: result.supportedVersions as string[],
  };
  const serverInfo = isObject(result._meta) ? result._meta[MetaKey.serverInfo] : undefined;
  if (isObject(serverInfo) && typeof serverInfo.name === "string" && typeof serverInfo.version === "string") {
    info.serverInfo = serverInfo as Implementation;
  }
  if (typeof result.instructions === "string") info.instructions = result.instructions;
  const cache: NonNullable<ConnectionInfo["cache"]> = {};
  if (typeof result.ttlMs === "number") cache.ttlMs = result.ttlMs;
  if (typeof result.cacheScope === "string") cache.cacheScope = result.cacheScope;
  if (Object.keys(cache).length > 0) info.cache = cache;
  return info;
}

/**
 * True for an error only a 2026-07-28 server sends: -32020..-32022, or -32602 complaining about the request
 * `_meta`. Such an answer proves the server is modern, so it is never a reason to fall back.
 */
export function isModernError(error: JsonRpcError): boolean {
  if (
    error.code === ErrorCode.HeaderMismatch ||
    error.code === ErrorCode.MissingRequiredClientCapability ||
    error.code === ErrorCode.UnsupportedProtocolVersion
  ) {
    return true;
  }
  if (error.code !== ErrorCode.InvalidParams) return false;
  const text = `${error.message} ${error.hasData ? JSON.stringify(error.data) : ""}`;
  return text.includes("_meta") || text.includes("io.modelcontextprotocol/");
}

function supportedVersions(error: JsonRpcError): string[] {
  const data = error.data;
  if (!isObject(data) || !Array.isArray(data.supported)) return [];
  return data.supported.filter((v): v is string => typeof v === "string");
}

function noCommonVersion(error: JsonRpcError, method: string): McpkitError {
  return new McpkitError("VERSION_NEGOTIATION", `no protocol version in common (${method} answered -32022)`, {
    details: { method, data: error.data },
    cause: error,
  });
}
