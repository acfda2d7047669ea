import { checkKeys, type OptionScope, scopeError } from "./config-check.js";

/**
 * The policy an input names: its preset (`default` unless `input.preset` names another) with the input's defined
 * keys over it. Throws (in `scope`, {@link scopeError}) for an input that is not an object, a preset that is not
 * one of `presets`, and a key the `default` preset does not have. Checking the values is the caller's.
 *
 * @example
 * const policy = presetPolicy({ preset: "gateway", maxFrameBytes: 2_048 }, STDIO_PRESETS, "stdio policy ");
 */
export function presetPolicy<P extends object>(
  input: unknown,
  presets: { readonly default: P; readonly [name: string]: P },
  scope: OptionScope,
): P {
  if (typeof input !== "object" || input === null) throw scopeError(scope, "policy", "must be an object");
  const { preset = "default", ...overrides } = input as { preset?: unknown };
  if (typeof preset !== "string" || !Object.hasOwn(presets, preset)) {
    const names = Object.keys(presets).map((name) => `"${name}"`);
    throw scopeError(scope, "preset", `must be ${names.join(" or ")}`);
  }
  checkKeys(overrides, (key) => Object.hasOwn(presets.default, key), scope);
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  return { ...(presets[preset] as P), ...defined };
}
