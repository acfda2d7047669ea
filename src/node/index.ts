/** Node adapters for the Streamable HTTP handler: a `node:http` listener and a one-call `serve()`. */
export { type FetchHandler, type NodeListener, toNodeHandler } from "./adapter.js";
export { type ServeHandle, type ServeOptions, serve } from "./serve.js";
