/**
 * Streamable HTTP for both protocol eras: a Web-standard `(Request) => Promise<Response>` server handler, and the
 * client transport on the platform's `fetch` or on any {@link HttpClient} (`nodeHttp()` from `mcpkit/node`).
 */

export type { Clock } from "../jsonrpc/clock.js";
export type { HeaderParam } from "../protocol/routing-headers.js";
export {
  type AuthChallenge,
  type HttpAuthProvider,
  isAuthProvider,
  MAX_AUTH_RETRIES,
} from "./client/auth-provider.js";
export type {
  HeaderRecord,
  HttpClient,
  HttpClientExchange,
  HttpClientRequest,
  HttpClientResponse,
} from "./client/exchange.js";
export { type FetchLike, fetchHttpClient } from "./client/fetch.js";
export type { AuthHook, AuthRequest } from "./client/headers.js";
export {
  checkEndpointUrl,
  type EndpointUrlProblem,
  HTTP_CLIENT_PRESETS,
  type HttpClientPolicyInput,
  type HttpClientSecurityPolicy,
  httpClientPolicy,
  isLoopbackHost,
} from "./client/policy.js";
export { type SseEvent, SseParser, type SseParserHandlers } from "./client/sse-parser.js";
export { type DroppedTool, ToolSchemaIndex } from "./client/tool-schema-index.js";
export {
  MAX_REFRESH_PAGES,
  type StreamableHttpClientOptions,
  StreamableHttpClientTransport,
} from "./client/transport.js";
export { createHttpHandler, type HttpHandler } from "./server/handler.js";
export type {
  Authenticate,
  AuthenticateInfo,
  HttpClusterOptions,
  HttpHandlerOptions,
  SessionOptions,
  ToolInputSchema,
  ToolSchemaResolver,
} from "./server/options.js";
export { DEFAULT_ALLOWED_HOSTS, DEFAULT_ALLOWED_ORIGINS } from "./server/origin.js";
export type { HttpRequestContext } from "./server/view.js";
