import { isObject } from "../jsonrpc/message.js";
import type { ClientCapabilities } from "../protocol/types/capabilities.js";
import type { InputRequest } from "../protocol/types/input.js";

/** The methods a server may ask the client for input with. */
export const INPUT_METHODS: ReadonlySet<string> = new Set([
  "sampling/createMessage",
  "elicitation/create",
  "roots/list",
]);

/**
 * Why a request for input cannot be served: `shape` (malformed), `method` (not an input method),
 * `capability` (the client did not declare what the method needs), or `detail` (the method is declared but
 * this use of it is not: URL-mode elicitation without `elicitation.url`, sampling tools without
 * `sampling.tools`).
 */
export interface InputProblem {
  kind: "shape" | "method" | "capability" | "detail";
  message: string;
  /** The capability path that is missing, for `capability` and `detail`. */
  capability?: string;
}

/**
 * Checks one request for input (`{method, params}`) against its shape and the client's declared capabilities.
 * Returns undefined when the client may serve it.
 */
export function inputProblem(request: unknown, capabilities: ClientCapabilities): InputProblem | undefined {
  if (!isObject(request) || typeof request.method !== "string") {
    return { kind: "shape", message: "an input request must be an object with a string method" };
  }
  const { method, params } = request;
  if (!INPUT_METHODS.has(method)) {
    return { kind: "method", message: `${method} is not a request for input` };
  }
  if (params !== undefined && !isObject(params)) {
    return { kind: "shape", message: `${method} params must be an object` };
  }
  const shape = shapeProblem(method, params ?? {});
  if (shape !== undefined) return { kind: "shape", message: `invalid ${method} params: ${shape}` };
  return capabilityProblem(request as unknown as InputRequest, capabilities);
}

function shapeProblem(method: string, params: { [key: string]: unknown }): string | undefined {
  if (method === "sampling/createMessage") {
    if (!Array.isArray(params.messages)) return '"messages" must be an array';
    if (typeof params.maxTokens !== "number") return '"maxTokens" must be a number';
    return undefined;
  }
  if (method === "elicitation/create") {
    if (typeof params.message !== "string") return '"message" must be a string';
    if (params.mode === "url") return typeof params.url === "string" ? undefined : '"url" must be a string';
    if (params.mode !== undefined && params.mode !== "form") return '"mode" must be "form" or "url"';
    const schema = params.requestedSchema;
    if (!isObject(schema) || !isObject(schema.properties)) {
      return '"requestedSchema" must be an object with "properties"';
    }
  }
  return undefined;
}

function capabilityProblem(
  request: InputRequest,
  capabilities: ClientCapabilities,
): InputProblem | undefined {
  const missing = (capability: string, kind: "capability" | "detail" = "capability"): InputProblem => ({
    kind,
    capability,
    message: `${request.method} needs the client capability "${capability}", which this client did not declare`,
  });
  switch (request.method) {
    case "roots/list":
      return isObject(capabilities.roots) ? undefined : missing("roots");
    case "sampling/createMessage": {
      const sampling = capabilities.sampling;
      if (!isObject(sampling)) return missing("sampling");
      const usesTools = request.params.tools !== undefined || request.params.toolChoice !== undefined;
      return usesTools && !isObject(sampling.tools) ? missing("sampling.tools", "detail") : undefined;
    }
    case "elicitation/create": {
      const elicitation = capabilities.elicitation;
      if (!isObject(elicitation)) return missing("elicitation");
      if (request.params.mode === "url") {
        return isObject(elicitation.url) ? undefined : missing("elicitation.url", "detail");
      }
      // `elicitation: {}` means form mode only; a client that lists modes must list `form` for it.
      const listsModes = elicitation.form !== undefined || elicitation.url !== undefined;
      return listsModes && !isObject(elicitation.form) ? missing("elicitation.form", "detail") : undefined;
    }
  }
}
