import { checkOptions, optionError, positiveInteger } from "../jsonrpc/config-check.js";
import { McpkitError } from "../jsonrpc/errors.js";
import { isObject } from "../jsonrpc/message.js";
import { checkTimeout } from "./options.js";

/**
 * How a subscription listens again when its listen stream is lost (see `ListenOptions.relisten`): after
 * `initialDelayMs`, doubling up to `maxDelayMs`, each wait drawn between half and all of that (jitter), at most
 * `maxAttempts` times in a row (an acknowledged listen starts the count over).
 *
 * @example
 * await client.listenSubscriptions({ toolsListChanged: true }, { relisten: { maxAttempts: 20, maxDelayMs: 60_000 } });
 */
export interface RelistenPolicy {
  /** Lost listens in a row after which the subscription ends (default 10). */
  maxAttempts?: number;
  /** The wait before the first new listen (default 500 ms). */
  initialDelayMs?: number;
  /** The longest wait between two (default 30,000 ms). */
  maxDelayMs?: number;
}

/** A checked {@link RelistenPolicy}; `undefined` when listening again is off. */
export type Relisten = Readonly<Required<RelistenPolicy>> | undefined;

const DEFAULTS: Readonly<Required<RelistenPolicy>> = Object.freeze({
  maxAttempts: 10,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
});
const KEYS = Object.keys(DEFAULTS);

/** Checks `ListenOptions.relisten`: absent or `true` for the defaults, `false` for off, or a policy. */
export function checkRelisten(value: unknown): Relisten {
  if (value === undefined || value === true) return DEFAULTS;
  if (value === false) return undefined;
  if (!isObject(value)) throw optionError("relisten", "must be a boolean or an object");
  const policy = checkOptions(value as RelistenPolicy, KEYS, "relisten");
  const initialDelayMs = checkTimeout(
    "relisten.initialDelayMs",
    policy.initialDelayMs,
    DEFAULTS.initialDelayMs,
  );
  const maxDelayMs = checkTimeout("relisten.maxDelayMs", policy.maxDelayMs, DEFAULTS.maxDelayMs);
  if (!Number.isFinite(initialDelayMs)) throw optionError("relisten.initialDelayMs", "must be finite");
  if (maxDelayMs < initialDelayMs) {
    throw optionError("relisten.maxDelayMs", "must not be less than relisten.initialDelayMs");
  }
  return Object.freeze({
    maxAttempts: positiveInteger(policy.maxAttempts, DEFAULTS.maxAttempts, "relisten.maxAttempts"),
    initialDelayMs,
    maxDelayMs,
  });
}

/**
 * The wait before new listen number `attempt` (1-based): `initialDelayMs * 2^(attempt-1)`, at most `maxDelayMs`,
 * scaled by a factor between 0.5 and 1 drawn from `random` (so that many clients cut off at once do not all
 * come back at once). Whole milliseconds, at least 1.
 */
export function relistenDelay(
  policy: Readonly<Required<RelistenPolicy>>,
  attempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.min(attempt - 1, 40));
  return Math.max(1, Math.round(ceiling * (0.5 + 0.5 * random())));
}

/**
 * True when a listen request failed because its stream was lost, not because the server refused it: a timeout,
 * a broken or ended stream, a network failure, or an HTTP 429 or 5xx. A JSON-RPC error, a closed transport,
 * an abort and any other HTTP status end the subscription.
 */
export function isStreamLoss(error: unknown): boolean {
  if (!(error instanceof McpkitError)) return false;
  if (error.code === "TIMEOUT") return true;
  if (error.code !== "TRANSPORT") return false;
  const status = isObject(error.details) ? error.details.status : undefined;
  return typeof status !== "number" || status === 429 || status >= 500;
}
