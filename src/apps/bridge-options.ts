import { type Clock, isClock, systemClock } from "../jsonrpc/clock.js";
import { checkOptions, optionError, positiveInteger } from "../jsonrpc/config-check.js";
import { APP_LIMITS } from "./constants.js";

/** The bounds of a bridge end: message size, JSON depth and nodes, and its own requests. */
export interface BridgeLimits {
  /** Bytes of one received message (default 1,000,000). */
  messageBytes?: number;
  /** Nesting of one received message (default 32). */
  jsonDepth?: number;
  /** Values in one received message (default 10,000). */
  jsonNodes?: number;
  /** Requests this end may have waiting for an answer (default 64). */
  maxPending?: number;
}

/** The checked bounds of a bridge end. */
export function bridgeBounds(
  name: string,
  limits: BridgeLimits | undefined,
  requestTimeoutMs: number | undefined,
  clock?: Clock,
): {
  messageBytes: number;
  jsonDepth: number;
  jsonNodes: number;
  maxPending: number;
  requestTimeoutMs: number;
  clock: Clock;
} {
  if (clock !== undefined && !isClock(clock)) throw optionError(`${name}.clock`, "must be a Clock");
  const given = checkOptions(
    limits,
    ["messageBytes", "jsonDepth", "jsonNodes", "maxPending"],
    `${name}.limits`,
  );
  return {
    messageBytes: positiveInteger(given.messageBytes, APP_LIMITS.messageBytes, `${name}.limits.messageBytes`),
    jsonDepth: positiveInteger(given.jsonDepth, APP_LIMITS.jsonDepth, `${name}.limits.jsonDepth`),
    jsonNodes: positiveInteger(given.jsonNodes, APP_LIMITS.jsonNodes, `${name}.limits.jsonNodes`),
    maxPending: positiveInteger(given.maxPending, 64, `${name}.limits.maxPending`),
    requestTimeoutMs: positiveInteger(requestTimeoutMs, 30_000, `${name}.requestTimeoutMs`),
    clock: clock ?? systemClock,
  };
}
