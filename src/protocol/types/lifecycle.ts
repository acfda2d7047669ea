import type { ClientCapabilities, ServerCapabilities } from "./capabilities.js";
import type { Implementation, LoggingLevel, ResultBase } from "./common.js";

/** The params of a 2025-11-25 `initialize` request. */
export interface InitializeParams {
  protocolVersion: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
  [key: string]: unknown;
}

/** The result of a 2025-11-25 `initialize`. */
export interface InitializeResult extends ResultBase {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
}

/** The result of a 2026-07-28 `server/discover`. Server info travels in `_meta`. */
export interface DiscoverResult extends ResultBase {
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
}

/** The params of `notifications/message`. */
export interface LoggingMessageParams {
  level: LoggingLevel;
  logger?: string;
  data: unknown;
}

/** The params of `notifications/progress`. */
export interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
}
