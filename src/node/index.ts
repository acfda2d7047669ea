/**
 * Node adapters: for the Streamable HTTP handler, a `node:http` listener and a one-call `serve()`; for the client
 * transport, `nodeHttp()`, its HTTP stack on `node:http` / `node:https` with keep-alive.
 */
export { type FetchHandler, type NodeListener, toNodeHandler } from "./adapter.js";
export { type NodeHttpOptions, nodeHttp } from "./http-client.js";
export { type ServeHandle, type ServeOptions, type ServeTimeouts, serve } from "./serve.js";
