import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import type { CallToolResult } from "../../protocol/types/tools.js";
import type { ServerConfig } from "../core/options.js";
import { toolFailure } from "../core/tool-failure.js";

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
    return toolFailure(tool, error, this.config);
  }

  /** The server's own fault in a tool's call (a result that fails its outputSchema): logged, `-32603`. */
  internal(tool: string, error: unknown): JsonRpcError {
    this.config?.logger.error(`tool "${tool}" failed inside the server`, error);
    return new JsonRpcError(ErrorCode.InternalError, "Internal error");
  }
}
