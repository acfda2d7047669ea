/** Protocol core: JSON-RPC messages and codec, error classes and codes, eras, MCP object types. */
export { decodeMessage, encodeMessage, parseMessage } from "./jsonrpc/codec.js";
export { ErrorCode, type ErrorCodeName } from "./jsonrpc/codes.js";
export { JsonRpcError, McpkitError, type McpkitErrorCode } from "./jsonrpc/errors.js";
export type { AbortLike } from "./jsonrpc/lazy-abort.js";
export {
  isErrorResponse,
  isNotification,
  isRequest,
  isResponse,
  type JsonObject,
  type JsonRpcErrorObject,
  type JsonRpcErrorResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcResultResponse,
  type JsonValue,
  type RequestId,
} from "./jsonrpc/message.js";
export { MetaKey, TRACE_META_KEYS } from "./protocol/meta.js";
export {
  buildRequestMeta,
  parseRequestMeta,
  type RequestMeta,
  type RequestMetaInput,
} from "./protocol/request-meta.js";
export type {
  StandardJSONSchemaV1,
  StandardSchemaV1,
  StandardSchemaWithJson,
} from "./protocol/standard-schema.js";
export type * from "./protocol/types/index.js";
export { isExtensionId, LOGGING_LEVELS } from "./protocol/types/index.js";
export type { JsonSchemaValidatorFactory, ValidationIssue, ValueValidator } from "./protocol/validation.js";
export {
  type Era,
  isEra,
  isLegacyVersion,
  LEGACY_VERSION,
  MODERN_VERSION,
  OLDER_LEGACY_VERSIONS,
  SUPPORTED_VERSIONS,
} from "./protocol/versions.js";
export { createInProcessPair, type InProcessPairOptions } from "./transports/in-process.js";
export type {
  MessageInfo,
  Transport,
  TransportCloseReason,
  TransportHandlers,
  TransportLogger,
  TransportSendOptions,
} from "./transports/transport.js";
