import { McpkitError } from "./errors.js";

/**
 * The option checks every entry shares. Each throws `McpkitError` `INVALID_CONFIG` with the message
 * `<prefix><key> <problem>` and `details: { key }` ({@link optionError}); an entry whose messages read otherwise
 * passes its own {@link OptionFault} instead of a prefix.
 */

/** Builds the error of one option at fault from its key (path included) and the problem. */
export type OptionFault = (key: string, problem: string) => Error;

/** How an entry names its option faults: a message prefix (`"server option "`, `""`) or its own fault. */
export type OptionScope = string | OptionFault;

/** The keys an options object may hold: a list, a set, or a test. */
export type AllowedKeys = readonly string[] | ReadonlySet<string> | ((key: string) => boolean);

/** The problem of a key that is not an option. */
export const NOT_AN_OPTION = "is not an option";

/** `INVALID_CONFIG` naming the option at fault: message `<prefix><key> <problem>`, `details: { key }`. */
export function optionError(key: string, problem: string, prefix = ""): McpkitError {
  return new McpkitError("INVALID_CONFIG", `${prefix}${key} ${problem}`, { details: { key } });
}

/** The error of `scope` for the option `key`. */
export function scopeError(scope: OptionScope, key: string, problem: string): Error {
  return typeof scope === "string" ? optionError(key, problem, scope) : scope(key, problem);
}

/** The first own key of `options` that `allowed` does not hold, or `undefined`. */
export function unknownKey(options: object, allowed: AllowedKeys): string | undefined {
  const has =
    typeof allowed === "function"
      ? allowed
      : Array.isArray(allowed)
        ? (key: string) => allowed.includes(key)
        : (key: string) => (allowed as ReadonlySet<string>).has(key);
  return Object.keys(options).find((key) => !has(key));
}

/** Throws "`<path><key>` is not an option" (in `scope`) for the first key of `options` that is not allowed. */
export function checkKeys(options: object, allowed: AllowedKeys, scope: OptionScope = "", path = ""): void {
  const key = unknownKey(options, allowed);
  if (key !== undefined) throw scopeError(scope, `${path}${key}`, NOT_AN_OPTION);
}

/**
 * An options object at `key` that may be absent (`{}` then): it must be a non-array object holding only
 * `allowed` keys, each named `<key>.<name>` when refused.
 */
export function checkOptions<T extends object>(
  options: T | undefined,
  allowed: AllowedKeys,
  key: string,
  scope: OptionScope = "",
): Partial<T> {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw scopeError(scope, key, "must be an object");
  }
  checkKeys(options, allowed, scope, `${key}.`);
  return options;
}

/** A positive safe integer, or `fallback` when `value` is `undefined`. */
export function positiveInteger<F = number>(
  value: unknown,
  fallback: F,
  key: string,
  scope: OptionScope = "",
): number | F {
  return integerFrom(value, fallback, 1, key, scope);
}

/** A non-negative safe integer (0 allowed), or `fallback` when `value` is `undefined`. */
export function nonNegativeInteger<F = number>(
  value: unknown,
  fallback: F,
  key: string,
  scope: OptionScope = "",
): number | F {
  return integerFrom(value, fallback, 0, key, scope);
}

function integerFrom<F>(
  value: unknown,
  fallback: F,
  min: 0 | 1,
  key: string,
  scope: OptionScope,
): number | F {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || (value as number) < min) {
    throw scopeError(scope, key, min === 1 ? "must be a positive integer" : "must be a non-negative integer");
  }
  return value as number;
}
