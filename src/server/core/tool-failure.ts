import { JsonRpcError } from "../../jsonrpc/errors.js";
import type { CallToolResult } from "../../protocol/types/tools.js";
import type { ServerLogger } from "./logger.js";
import type { ServerSecurityPolicy } from "./policy.js";

/**
 * The answer to a tool whose code threw `error` (a builder tool's function, or the work of its `runAsTask`): a
 * `JsonRpcError` is thrown on, as the tool chose it. Anything else is logged with its stack (`tool "<name>"
 * threw`) and becomes an `isError` result whose text the policy decides: the error's message
 * (`toolErrors: "message"`) or a generic text (`"generic"`, the `gateway` preset).
 */
export function toolFailure(
  tool: string,
  error: unknown,
  config: { readonly logger: ServerLogger; readonly policy: ServerSecurityPolicy } | undefined,
): CallToolResult {
  if (error instanceof JsonRpcError) throw error;
  const thrown = error instanceof Error ? error : new Error(String(error));
  config?.logger.error(`tool "${tool}" threw`, thrown);
  const text =
    config?.policy.toolErrors === "generic" ? `Tool "${tool}" failed with an internal error` : thrown.message;
  return { content: [{ type: "text", text }], isError: true };
}
