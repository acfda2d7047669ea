/** A JSON value, as it travels on the wire. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** A JSON-RPC request id. */
export type RequestId = string | number;

/** A JSON-RPC 2.0 request: it expects a response with the same id. */
export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: { [key: string]: unknown };
}

/** A JSON-RPC 2.0 notification: no id, no response. */
export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: { [key: string]: unknown };
}

/** A successful JSON-RPC 2.0 response. */
export interface JsonRpcResultResponse {
  jsonrpc: "2.0";
  id: RequestId;
  result: { [key: string]: unknown };
}

/** The `error` member of a JSON-RPC error response. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A failed JSON-RPC 2.0 response. `id` is absent when the request could not be read. */
export interface JsonRpcErrorResponse {
  jsonrpc: "2.0";
  id?: RequestId;
  error: JsonRpcErrorObject;
}

/** A response: a result or an error. */
export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
/** Any JSON-RPC message: request, notification or response. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** True for a request (a method and an id). */
export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return "method" in message && "id" in message;
}

/** True for a notification (a method, no id). */
export function isNotification(message: JsonRpcMessage): message is JsonRpcNotification {
  return "method" in message && !("id" in message);
}

/** True for a response, result or error (no method). */
export function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return !("method" in message);
}

/** True for an error response. */
export function isErrorResponse(message: JsonRpcMessage): message is JsonRpcErrorResponse {
  return "error" in message && !("method" in message);
}

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
