import { JsonRpcError } from "../../jsonrpc/errors.js";
import type { CallToolResult } from "../../protocol/types/tools.js";
import type { ServerConfig } from "../core/options.js";

/**
 * What becomes of an error a builder tool's function throws. A `JsonRpcError` is thrown on (the call's answer,
 * as the tool chose it). Anything else is logged through the server's logger with its stack (`tool "<name>"
 * threw`, rate-limited per tool like every line) and answered as an `isError` result whose text the server's
 * policy decides: the error's message (`toolErrors: "message"`), or a generic text (`"generic"`, the `gateway`
 * preset). Bound to the server's configuration once the server is built; only a failing call reaches it.
 */
export class ToolFailures {
  private config: Pick<ServerConfig, "logger" | "policy"> | undefined;

  /** The configuration of the server the registry serves. */
  bind(config: Pick<ServerConfig, "logger" | "policy">): void {
    this.config = config;
  }

  /** The answer to a tool call whose function threw `error` (rethrows a `JsonRpcError`). */
  answer(tool: string, error: unknown): CallToolResult {
    if (error instanceof JsonRpcError) throw error;
    const thrown = error instanceof Error ? error : new Error(String(error));
    this.config?.logger.error(`tool "${tool}" threw`, thrown);
    const text =
      this.config?.policy.toolErrors === "generic"
        ? `Tool "${tool}" failed with an internal error`
        : thrown.message;
    return { content: [{ type: "text", text }], isError: true };
  }
}
