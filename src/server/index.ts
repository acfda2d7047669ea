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
} from "./authoring/authoring.js";
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
} from "./authoring/builder.js";
export { type DynamicOptions, DynamicServer } from "./authoring/dynamic.js";
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
} from "./authoring/dynamic-registries.js";
export type { TemplateVariables } from "./authoring/template-variables.js";
export {
  type ExpandValues,
  MAX_TEMPLATE_URI_LENGTH,
  type TemplateValues,
  UriTemplate,
} from "./authoring/uri-template.js";
export {
  CLUSTER_UNAVAILABLE_MESSAGE,
  type Cluster,
  type ClusterBus,
  clusterUnavailable,
  type SharedStore,
} from "./cluster/cluster.js";
export { MemoryBus, MemoryStore, memoryCluster } from "./cluster/memory.js";
export { sharedRequestStateStore } from "./cluster/shared-state-store.js";
export type { ServerConnection } from "./connection.js";
export type { NotificationSink, RequestContext } from "./core/context.js";
export { invalidParams, isResourceNotFoundError, methodNotFound, resourceNotFound } from "./core/errors.js";
export {
  HANDLER_CAPACITY_MESSAGE,
  HANDLER_RETRY_AFTER_MS,
  HANDLER_TIMEOUT_MESSAGE,
} from "./core/executor.js";
export {
  CALLBACK_FAMILIES,
  type CallbackFamily,
  HANDLER_CALLBACKS,
  type ListRequest,
  type ServerHandler,
} from "./core/handler.js";
export type { EngineOptions, ServerConfig, ServerLimits, ServerLogger } from "./core/options.js";
export { MAX_PREVIOUS_STATE_KEYS } from "./core/options.js";
export {
  type Broadcast,
  type PluginAnswer,
  type PluginCall,
  type PluginClientRequest,
  type PluginData,
  type PluginHost,
  type PluginIncoming,
  type PluginMethod,
  type PluginMethodCall,
  type PluginOutgoing,
  type PluginSendRequest,
  type PluginSession,
  pluginAnswer,
  pluginAnswerKind,
  type ServerPlugin,
} from "./core/plugin.js";
export {
  SERVER_PRESETS,
  type ServerPolicyInput,
  type ServerSecurityPolicy,
  serverPolicy,
} from "./core/policy.js";
export { SUBSCRIPTION_CAPACITY_MESSAGE } from "./core/publisher.js";
export type { Subscription, SubscriptionChannel, SubscriptionEnd } from "./core/subscription.js";
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
} from "./custom/custom.js";
export {
  defineExtension,
  type Extension,
  type ExtensionDefinition,
  isExtension,
} from "./custom/extension.js";
export type { ExtensionResources } from "./custom/extension-resources.js";
export type { CustomMethods } from "./custom/methods.js";
export type { LegacyRequestEnv, LegacySession } from "./eras/legacy.js";
export type { ModernRequestEnv } from "./eras/modern.js";
export type { ServerOptions } from "./options.js";
export { createServer, Server } from "./server.js";
export type { ClientRequests, MessageSender } from "./state/client-requests.js";
export { type HandleOwner, StateHandles, type StateHandlesOptions } from "./state/handles.js";
export { type InputRequired, inputRequired, isInputRequired } from "./state/input.js";
export {
  MemoryRequestStateStore,
  type MemoryRequestStateStoreOptions,
  type RequestStateStore,
  STATE_CAPACITY_MESSAGE,
} from "./state/store.js";
export { MemoryTaskStore, type TaskCapRefusal, type TaskRecord, type TaskStore } from "./state/task-store.js";
export type { TaskEngine, TaskHooks, TaskSettings } from "./tasks/engine.js";
export type { TasksOptions } from "./tasks/options.js";
export type { TasksPlugin } from "./tasks/plugin.js";
export { isTaskRun, runAsTask, type TaskContext, type TaskRun, type TaskWork } from "./tasks/run.js";
