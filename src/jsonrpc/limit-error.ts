import { McpkitError, type McpkitErrorCode } from "./errors.js";

/**
 * What every limit error of the SDK carries in `details` (and a wire error in `data`): the option that governs
 * the limit, its value, and the size seen when it was crossed (bytes or items; for a count that is `limit + 1`,
 * for a stream counted as it arrives the bytes read when reading stopped).
 */
export interface LimitFacts {
  /** The option to raise, as its owner spells it (`maxResponseBytes`, `options.limits.maxFileBytes`). */
  readonly option: string;
  readonly limit: number;
  /** The size seen; absent when nothing was measured (a count refused before it grew). */
  readonly size?: number;
}

/**
 * The message of a limit crossed: `<what>: <size> <unit>, over <option> (<limit>)`, with `at least` before the
 * size when counting stopped at the first chunk over.
 *
 * @example
 * limitMessage("the HTTP response", { option: "maxResponseBytes", limit: 8, size: 9 }); // "... 9 bytes, over maxResponseBytes (8)"
 */
export function limitMessage(what: string, facts: LimitFacts, unit = "bytes", atLeast = false): string {
  const seen = facts.size === undefined ? "" : ` ${atLeast ? "at least " : ""}${facts.size} ${unit},`;
  return `${what}:${seen} over ${facts.option} (${facts.limit})`;
}

/** The `details` (or wire `data`) of a limit crossed: the facts first, then `extra` (a `reason`, a name). */
export function limitDetails(
  facts: LimitFacts,
  extra: { readonly [key: string]: unknown } = {},
): { [key: string]: unknown } {
  const details: { [key: string]: unknown } = { option: facts.option, limit: facts.limit };
  if (facts.size !== undefined) details.size = facts.size;
  return { ...details, ...extra };
}

/** An `McpkitError` for a limit crossed, its message from {@link limitMessage}, its details {@link limitDetails}. */
export function limitError(
  code: McpkitErrorCode,
  what: string,
  facts: LimitFacts,
  more: {
    unit?: string;
    atLeast?: boolean;
    extra?: { readonly [key: string]: unknown };
    cause?: unknown;
  } = {},
): McpkitError {
  const options: { details: { [key: string]: unknown }; cause?: unknown } = {
    details: limitDetails(facts, more.extra),
  };
  if ("cause" in more) options.cause = more.cause;
  return new McpkitError(code, limitMessage(what, facts, more.unit, more.atLeast), options);
}
