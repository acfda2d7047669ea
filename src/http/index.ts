/** Streamable HTTP: a Web-standard `(Request) => Promise<Response>` server handler for both protocol eras. */
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
