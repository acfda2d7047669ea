/**
 * `mcpkit/client`: the MCP client engine for both wire eras (2026-07-28 stateless, 2025-11-25 stateful).
 */

/** The errors client operations reject with. */
export { JsonRpcError, McpkitError, type McpkitErrorCode } from "../jsonrpc/errors.js";
/** The protocol types the input and subscription APIs speak. */
export type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  InputRequest,
  InputRequests,
  InputRequiredResult,
  InputResponse,
  InputResponses,
  ListRootsResult,
  Root,
  SubscriptionFilter,
} from "../protocol/types/index.js";
/** The client and its helpers. */
export { Client, type ListParams } from "./client.js";
/** Callbacks of custom server requests and notifications. */
export type {
  ServerNotificationCallback,
  ServerNotificationContext,
  ServerRequestCallback,
  ServerRequestContext,
} from "./custom.js";
/** Requests for input: 2026 input rounds and 2025 server requests, their callbacks, SEP-1034 defaults. */
export { withElicitationDefaults } from "./elicitation-defaults.js";
export { isInputRequiredResult } from "./input-required.js";
export type {
  ElicitationHandler,
  InputContext,
  InputOptions,
  InputResolver,
  RootsHandler,
  SamplingHandler,
} from "./input-types.js";
export { isResourceNotFound } from "./not-found.js";
export type { RelistenPolicy } from "./relisten.js";
/** Subscriptions (2026 subscriptions/listen). */
export type {
  ListenOptions,
  Subscription,
  SubscriptionCloseResult,
  SubscriptionEnd,
  SubscriptionEvent,
  SubscriptionNext,
} from "./subscription-types.js";
/** Tasks: call a tool as a task, poll it, answer its input, cancel it (both eras). */
export {
  type ClientTask,
  callToolAsTask,
  callToolToCompletion,
  cancelTask,
  getTask,
  isCreateTaskResult,
  type TaskCallOptions,
  type TaskStart,
  type TaskWaitOptions,
  toClientTask,
  updateTask,
  waitForTask,
} from "./tasks.js";
/** Options, per-call options and what `connect()` returns. */
export type {
  CallToolOptions,
  ClientLogger,
  ClientOptions,
  ConnectionInfo,
  ListAllOptions,
  RequestOptions,
  ServerNotification,
  WithCacheHints,
} from "./types.js";
