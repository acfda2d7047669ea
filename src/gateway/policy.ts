import { JsonRpcError } from "../jsonrpc/errors.js";
import type { Tool } from "../protocol/types/tools.js";
import type { UpstreamPolicy } from "./config.js";
import { anyGlob } from "./glob.js";

/** Which of an upstream's tools the gateway serves, by its policy. */
export type ToolFilter = (tool: Tool) => boolean;

/**
 * The tool filter of a policy: a tool is served when no `deny` glob matches its (upstream) name, some `allow`
 * glob does (or `allow` is empty), and, under `readOnly`, it is annotated `readOnlyHint: true`.
 *
 * @example
 * toolFilter({ ...DEFAULT_UPSTREAM_POLICY, deny: ["delete_*"] })({ name: "delete_all", inputSchema: {} }); // false
 */
export function toolFilter(policy: UpstreamPolicy): ToolFilter {
  const allowed = policy.allow.length === 0 ? () => true : anyGlob(policy.allow);
  const denied = anyGlob(policy.deny);
  return (tool) =>
    !denied(tool.name) && allowed(tool.name) && (!policy.readOnly || tool.annotations?.readOnlyHint === true);
}

/** Bytes of `value` as JSON (UTF-8). */
export function jsonBytes(value: unknown): number {
  // Counted in place, without encoding a copy.
  return Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
}

/** Refuses (`-32602`, naming the upstream and the limit) arguments past `maxArgumentBytes`. */
export function checkArguments(upstream: string, policy: UpstreamPolicy, args: unknown): void {
  const size = jsonBytes(args);
  if (size > policy.maxArgumentBytes) {
    throw new JsonRpcError(-32602, `arguments too large for upstream "${upstream}"`, {
      upstream,
      reason: "arguments_too_large",
      limit: policy.maxArgumentBytes,
      size,
    });
  }
}

/** Refuses (`-32603`, naming the upstream and the limit) an upstream result past `maxResultBytes`. */
export function checkResult<T>(upstream: string, policy: UpstreamPolicy, result: T): T {
  const size = jsonBytes(result);
  if (size > policy.maxResultBytes) {
    throw new JsonRpcError(-32603, `result too large from upstream "${upstream}"`, {
      upstream,
      reason: "result_too_large",
      limit: policy.maxResultBytes,
      size,
    });
  }
  return result;
}
