import { APP_LIMITS } from "./constants.js";
import { checkKeys, positiveInt } from "./errors.js";

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
): {
  messageBytes: number;
  jsonDepth: number;
  jsonNodes: number;
  maxPending: number;
  requestTimeoutMs: number;
} {
  const given = checkKeys(`${name}.limits`, limits, ["messageBytes", "jsonDepth", "jsonNodes", "maxPending"]);
  return {
    messageBytes: positiveInt(`${name}.limits.messageBytes`, given.messageBytes, APP_LIMITS.messageBytes),
    jsonDepth: positiveInt(`${name}.limits.jsonDepth`, given.jsonDepth, APP_LIMITS.jsonDepth),
    jsonNodes: positiveInt(`${name}.limits.jsonNodes`, given.jsonNodes, APP_LIMITS.jsonNodes),
    maxPending: positiveInt(`${name}.limits.maxPending`, given.maxPending, 64),
    requestTimeoutMs: positiveInt(`${name}.requestTimeoutMs`, requestTimeoutMs, 30_000),
  };
}
