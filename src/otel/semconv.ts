import type { Attributes } from "@opentelemetry/api";

/**
 * The names of the OpenTelemetry semantic conventions for MCP this entry follows: `docs/gen-ai/mcp.md` of
 * open-telemetry/semantic-conventions at commit 04f167230afe1a2244c4c860cea0e716fb6ee59e (status: Development).
 */
export const ATTR = {
  methodName: "mcp.method.name",
  sessionId: "mcp.session.id",
  protocolVersion: "mcp.protocol.version",
  resourceUri: "mcp.resource.uri",
  requestId: "jsonrpc.request.id",
  toolName: "gen_ai.tool.name",
  promptName: "gen_ai.prompt.name",
  operationName: "gen_ai.operation.name",
  statusCode: "rpc.response.status_code",
  errorType: "error.type",
  networkTransport: "network.transport",
  networkProtocolName: "network.protocol.name",
} as const;

/** The bucket boundaries (seconds) the conventions advise for all four MCP duration histograms. */
export const DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
]);

/** `error.type` of a `tools/call` answered with `isError: true`, as the conventions name it. */
export const TOOL_ERROR = "tool_error";

const RESOURCE_METHODS = new Set([
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "notifications/resources/updated",
]);

/**
 * The low-cardinality target of a span's name (`{mcp.method.name} {target}`): the tool's name for
 * `tools/call`, the prompt's for `prompts/get`, else none.
 */
export function targetOf(
  method: string,
  params: { readonly [key: string]: unknown } | undefined,
): string | undefined {
  if (method !== "tools/call" && method !== "prompts/get") return undefined;
  const name = params?.name;
  return typeof name === "string" ? name : undefined;
}

/** The span name the conventions give a message: `{mcp.method.name} {target}`, or the method alone. */
export function spanName(method: string, params: { readonly [key: string]: unknown } | undefined): string {
  const target = targetOf(method, params);
  return target === undefined ? method : `${method} ${target}`;
}

/**
 * The attributes a message's method and params name, into `into`: `mcp.method.name`, the tool or prompt
 * name (and `gen_ai.operation.name` `execute_tool` for a tool call), the resource URI.
 */
export function messageAttributes(
  into: Attributes,
  method: string,
  params: { readonly [key: string]: unknown } | undefined,
): Attributes {
  into[ATTR.methodName] = method;
  const target = targetOf(method, params);
  if (target !== undefined) {
    if (method === "tools/call") {
      into[ATTR.toolName] = target;
      into[ATTR.operationName] = "execute_tool";
    } else into[ATTR.promptName] = target;
  }
  if (RESOURCE_METHODS.has(method) && typeof params?.uri === "string") into[ATTR.resourceUri] = params.uri;
  return into;
}

/** A JSON-RPC id as the conventions record it (a string; none for `null`). */
export function requestIdAttribute(id: unknown): string | undefined {
  return typeof id === "string" || typeof id === "number" ? String(id) : undefined;
}

/** The outcome of one exchange: an error's code and message, or a tool's `isError`. */
export interface Outcome {
  /** `error.type`: the JSON-RPC code as a string, `tool_error`, or a local class (`timeout`, `cancelled`). */
  readonly errorType: string;
  /** `rpc.response.status_code`, when a JSON-RPC error came back. */
  readonly statusCode?: string;
  /** The span status description: the JSON-RPC error's message. */
  readonly message?: string;
}

/** The outcome of a JSON-RPC response for `method`: `undefined` when it succeeded. */
export function responseOutcome(
  method: string,
  response: { readonly [key: string]: unknown },
): Outcome | undefined {
  const error = response.error;
  if (error !== undefined && error !== null && typeof error === "object") {
    const { code, message } = error as { code?: unknown; message?: unknown };
    const status = typeof code === "number" ? String(code) : "_OTHER";
    return typeof message === "string"
      ? { errorType: status, statusCode: status, message }
      : { errorType: status, statusCode: status };
  }
  return resultOutcome(method, response.result);
}

/** The outcome of a result: `tool_error` for a `tools/call` result with `isError: true`. */
export function resultOutcome(method: string, result: unknown): Outcome | undefined {
  if (method !== "tools/call" || result === null || typeof result !== "object") return undefined;
  return (result as { isError?: unknown }).isError === true ? { errorType: TOOL_ERROR } : undefined;
}
