/** Server engine: the low-level handler interface, the builder on top, and the server that runs them. */

export type {
  ContentBlockDefinition,
  ExtraMembers,
  InferArgs,
  InferPromptArgs,
  InferStructured,
  Known,
  PromptArgumentDefinition,
  PromptDefinition,
  PromptResult,
  ResourceDefinition,
  ResourceResult,
  ResourceTemplateDefinition,
  ResultCheck,
  SchemaInput,
  ToolDefinition,
  ToolOptions,
  ToolResult,
} from "./authoring.js";
export {
  type BuilderOptions,
  type CompletionCallback,
  type CompletionOptions,
  type PromptCallback,
  type ResourceCallback,
  type ResourceListCallback,
  type ResourceTemplateOptions,
  ServerBuilder,
  type TemplateCallback,
  type ToolCallback,
} from "./builder.js";
export type { ClientRequests, MessageSender } from "./client-requests.js";
export {
  CLUSTER_UNAVAILABLE_MESSAGE,
  type Cluster,
  type ClusterBus,
  clusterUnavailable,
  type SharedStore,
} from "./cluster.js";
export type { ServerConnection } from "./connection.js";
export type { NotificationSink, RequestContext } from "./context.js";
export {
  type CustomNotification,
  type CustomNotificationHandler,
  type CustomParams,
  type CustomRequest,
  type CustomRequestHandler,
  type CustomRequestOptions,
  type CustomResult,
  defineNotification,
  defineRequest,
  type InferParams,
  type NotificationContext,
  type NotificationEntry,
  type ParamsSchema,
  type RequestEntry,
} from "./custom.js";
export type { CustomMethods } from "./custom-methods.js";
export { type DynamicOptions, DynamicServer } from "./dynamic.js";
export type {
  PromptHandle,
  PromptRegistry,
  PromptUpdate,
  RegistrationHandle,
  ResourceHandle,
  ResourceRegistry,
  ResourceTemplateHandle,
  ResourceTemplateRegistry,
  ResourceTemplateUpdate,
  ResourceUpdate,
  ToolHandle,
  ToolRegistry,
  ToolUpdate,
  UpdateOf,
} from "./dynamic-registries.js";
export { invalidParams, isResourceNotFoundError, methodNotFound, resourceNotFound } from "./errors.js";
export { HANDLER_CAPACITY_MESSAGE, HANDLER_RETRY_AFTER_MS, HANDLER_TIMEOUT_MESSAGE } from "./executor.js";
export { defineExtension, type Extension, type ExtensionDefinition, isExtension } from "./extension.js";
export type { ExtensionResources } from "./extension-resources.js";
export { CALLBACK_FAMILIES, type CallbackFamily, type ListRequest, type ServerHandler } from "./handler.js";
export { type InputRequired, inputRequired, isInputRequired } from "./input.js";
export type { LegacyRequestEnv, LegacySession } from "./legacy.js";
export { MemoryBus, MemoryStore, memoryCluster } from "./memory-cluster.js";
export type { ModernRequestEnv } from "./modern.js";
export type { ServerConfig, ServerLimits, ServerLogger, ServerOptions } from "./options.js";
export { MAX_PREVIOUS_STATE_KEYS } from "./options.js";
export { SUBSCRIPTION_CAPACITY_MESSAGE } from "./publisher.js";
export { createServer, Server } from "./server.js";
export { sharedRequestStateStore } from "./shared-state-store.js";
export { type HandleOwner, StateHandles, type StateHandlesOptions } from "./state-handles.js";
export {
  MemoryRequestStateStore,
  type MemoryRequestStateStoreOptions,
  type RequestStateStore,
  STATE_CAPACITY_MESSAGE,
} from "./state-store.js";
export type { Subscription, SubscriptionChannel, SubscriptionEnd } from "./subscription.js";
export type { TaskEngine, TaskHooks, TaskSettings } from "./task-engine.js";
export type { TasksOptions } from "./task-options.js";
export { isTaskRun, runAsTask, type TaskContext, type TaskRun, type TaskWork } from "./task-run.js";
export { MemoryTaskStore, type TaskCapRefusal, type TaskRecord, type TaskStore } from "./task-store.js";
export type { TemplateVariables } from "./template-variables.js";
export {
  type ExpandValues,
  MAX_TEMPLATE_URI_LENGTH,
  type TemplateValues,
  UriTemplate,
} from "./uri-template.js";
