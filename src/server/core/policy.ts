import { optionError } from "../../jsonrpc/config-check.js";
import { presetPolicy } from "../../jsonrpc/preset-policy.js";

/**
 * What a server tells its clients about its own failures. Build one with {@link serverPolicy}; every field is
 * checked and unknown keys are rejected.
 */
export interface ServerSecurityPolicy {
  /**
   * The `isError` text of a builder tool whose function threw something other than a `JsonRpcError`:
   * `"message"` (the `default` preset) sends the error's message, which the model reads and may act on;
   * `"generic"` (the `gateway` preset) sends `Tool "<name>" failed with an internal error`, so no internal text
   * (a host name, a query, a path) leaves the process. Either way the error is logged with its stack. A
   * `JsonRpcError` thrown on purpose is the answer under both, code and message as thrown.
   */
  readonly toolErrors: "message" | "generic";
}

const DEFAULT_POLICY: ServerSecurityPolicy = Object.freeze({ toolErrors: "message" as const });

/** The named starting points of {@link serverPolicy}. */
export const SERVER_PRESETS: { readonly [name in "default" | "gateway"]: ServerSecurityPolicy } =
  Object.freeze({
    default: DEFAULT_POLICY,
    // A gateway fronts servers it does not control: their internal error text stays in its log.
    gateway: Object.freeze({ ...DEFAULT_POLICY, toolErrors: "generic" as const }),
  });

/** Input of {@link serverPolicy}: a preset name and overrides. */
export type ServerPolicyInput = Partial<ServerSecurityPolicy> & { preset?: "default" | "gateway" };

/**
 * Builds a checked, frozen server policy from a preset (`default` unless named) and overrides. Throws
 * `McpkitError` `INVALID_CONFIG` naming the key at fault.
 *
 * @example
 * const server = new ServerBuilder({ serverInfo, policy: { preset: "gateway" } }); // generic tool error text
 */
export function serverPolicy(input: ServerPolicyInput = {}): ServerSecurityPolicy {
  const policy = presetPolicy(input, SERVER_PRESETS, PREFIX);
  if (policy.toolErrors !== "message" && policy.toolErrors !== "generic") {
    throw optionError("toolErrors", 'must be "message" or "generic"', PREFIX);
  }
  return Object.freeze(policy);
}

const PREFIX = "server policy ";
