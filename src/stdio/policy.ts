import { nonNegativeInteger, optionError, positiveInteger } from "../jsonrpc/config-check.js";
import type { McpkitError } from "../jsonrpc/errors.js";
import { presetPolicy } from "../jsonrpc/preset-policy.js";

/** Where a subprocess's stderr goes. */
export type StderrMode = "ignore" | "capture" | "inherit";

/**
 * The bounds and trust settings of a stdio connection. Build one with {@link stdioPolicy}; every field is
 * checked and unknown keys are rejected.
 */
export interface StdioSecurityPolicy {
  /** Largest inbound frame in bytes (default 1,000,000). */
  readonly maxFrameBytes: number;
  /** Largest outbound frame in bytes; a larger message fails before anything is written (default 1,000,000). */
  readonly maxOutboundFrameBytes: number;
  /** Largest amount of stdout bytes waiting for their newline (default 4,000,000). */
  readonly maxPendingStdoutBytes: number;
  /**
   * Inbound frames handled per turn of the event loop (default 100). Past it the reader pauses and goes on at
   * the next turn, so a chunk of many small frames cannot hold up timers and other I/O.
   */
  readonly maxFramesPerTurn: number;
  /**
   * `ignore` (default): stderr is discarded. `capture`: kept, bounded by `maxStderrBytes`, and handed only to
   * an explicit stderr handler, never logged. `inherit`: written to this process's stderr.
   */
  readonly stderr: StderrMode;
  /** Most stderr bytes kept in `capture` mode (default 64,000). */
  readonly maxStderrBytes: number;
  /**
   * The last stderr bytes kept, whatever the mode, to explain why a server ended (default 4,096; 0 to 65,536;
   * 0 keeps none). They go only into the error of an early exit or a protocol violation, never to a log.
   */
  readonly stderrTailBytes: number;
  /**
   * `inherit` (default): the child gets this process's environment plus what the caller adds. `replace`: the
   * child gets only what the caller lists (the gateway preset).
   */
  readonly environment: "inherit" | "replace";
  /** How long a closing child gets after SIGTERM before its process group is killed (default 5,000 ms). */
  readonly shutdownTimeoutMs: number;
}

const DEFAULT_POLICY: StdioSecurityPolicy = Object.freeze({
  maxFrameBytes: 1_000_000,
  maxOutboundFrameBytes: 1_000_000,
  maxPendingStdoutBytes: 4_000_000,
  maxFramesPerTurn: 100,
  stderr: "ignore",
  maxStderrBytes: 64_000,
  stderrTailBytes: 4_096,
  environment: "inherit",
  shutdownTimeoutMs: 5_000,
});

/** The named starting points of {@link stdioPolicy}. */
export const STDIO_PRESETS: { readonly [name in "default" | "gateway"]: StdioSecurityPolicy } = Object.freeze(
  {
    default: DEFAULT_POLICY,
    // A gateway runs commands it does not control: nothing of its own environment leaks to them.
    gateway: Object.freeze({ ...DEFAULT_POLICY, environment: "replace" as const }),
  },
);

/** Input of {@link stdioPolicy}: a preset name and overrides. */
export type StdioPolicyInput = Partial<StdioSecurityPolicy> & { preset?: "default" | "gateway" };

/** The largest `stderrTailBytes`: the tail is quoted in error messages. */
export const MAX_STDERR_TAIL_BYTES = 65_536;

const POSITIVE_KEYS = [
  "maxFrameBytes",
  "maxOutboundFrameBytes",
  "maxPendingStdoutBytes",
  "maxFramesPerTurn",
  "maxStderrBytes",
] as const;

/**
 * Builds a checked, frozen stdio policy from a preset (`default` unless named) and overrides. Throws
 * `McpkitError` `INVALID_CONFIG` naming the key at fault.
 *
 * @example
 * const policy = stdioPolicy({ preset: "gateway", stderr: "capture", maxFrameBytes: 256_000 });
 */
export function stdioPolicy(input: StdioPolicyInput = {}): StdioSecurityPolicy {
  const policy = presetPolicy(input, STDIO_PRESETS, PREFIX);
  for (const key of POSITIVE_KEYS) positiveInteger(policy[key], undefined, key, invalid);
  const tail = policy.stderrTailBytes;
  if (!Number.isSafeInteger(tail) || tail < 0 || tail > MAX_STDERR_TAIL_BYTES) {
    throw invalid("stderrTailBytes", `must be an integer from 0 to ${MAX_STDERR_TAIL_BYTES}`);
  }
  nonNegativeInteger(policy.shutdownTimeoutMs, undefined, "shutdownTimeoutMs", invalid);
  if (!["ignore", "capture", "inherit"].includes(policy.stderr)) {
    throw invalid("stderr", 'must be "ignore", "capture" or "inherit"');
  }
  if (!["inherit", "replace"].includes(policy.environment)) {
    throw invalid("environment", 'must be "inherit" or "replace"');
  }
  return Object.freeze(policy);
}

/** The prefix of every error of the stdio policy. */
const PREFIX = "stdio policy ";

function invalid(key: string, problem: string): McpkitError {
  return optionError(key, problem, PREFIX);
}
