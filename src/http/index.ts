/**
 * Streamable HTTP for both protocol eras: a Web-standard `(Request) => Promise<Response>` server handler, and the
 * client transport on the platform's `fetch`.
 */
export type { AuthHook, AuthRequest, FetchLike, HeaderRecord } from "./client-fetch.js";
export {
  checkEndpointUrl,
  type EndpointUrlProblem,
  HTTP_CLIENT_PRESETS,
  type HttpClientPolicyInput,
  type HttpClientSecurityPolicy,
  httpClientPolicy,
  isLoopbackHost,
} from "./client-policy.js";
export {
  MAX_REFRESH_PAGES,
  type StreamableHttpClientOptions,
  StreamableHttpClientTransport,
} from "./client-transport.js";
export type { Clock } from "./clock.js";
export { createHttpHandler, type HttpHandler } from "./handler.js";
export type {
  Authenticate,
  HttpHandlerOptions,
  SessionOptions,
  ToolInputSchema,
  ToolSchemaResolver,
} from "./options.js";
export { DEFAULT_ALLOWED_HOSTS, DEFAULT_ALLOWED_ORIGINS } from "./origin.js";
export { type SseEvent, SseParser, type SseParserHandlers } from "./sse-parser.js";
export { type DroppedTool, ToolSchemaIndex } from "./tool-schema-index.js";
