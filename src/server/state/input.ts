import { isObject, type JsonValue } from "../../jsonrpc/message.js";
import type { ClientCapabilities } from "../../protocol/types/capabilities.js";
import type { InputRequests, InputResponses } from "../../protocol/types/input.js";

/** What one round of a handler gets from the previous one (both `undefined` on a first call). */
export interface RoundInput {
  inputResponses: InputResponses | undefined;
  requestState: JsonValue | undefined;
}

const INPUT_REQUIRED = Symbol.for("mcpkit.inputRequired");
const INPUT_METHODS = new Set(["sampling/createMessage", "elicitation/create", "roots/list"]);

/** What a handler returns to ask the client for input: made by {@link inputRequired}. */
export interface InputRequired {
  readonly [INPUT_REQUIRED]: true;
  /** The requests of this round (may be empty when only `state` is carried). */
  readonly requests: Readonly<InputRequests>;
  /** The handler's state for the next round, as JSON (`undefined`: none). */
  readonly state: JsonValue | undefined;
}

/**
 * Asks the client for input before the handler can answer: sampling, elicitation or the client's roots. The
 * handler is called again with the answers in `context.inputResponses` and `state` in `context.requestState`.
 * One handler serves both eras: in 2026-07-28 this is the wire's `InputRequiredResult` (its `requestState`
 * sealed by the server) and the client retries; in 2025-11-25 the server sends the requests to the client
 * itself and calls the handler again. Allowed from `callTool`, `getPrompt` and `readResource`.
 *
 * `state` must be JSON (it is copied now, as the wire would); at least one request or a state is needed.
 *
 * @example
 * .tool({ name: "greet", inputSchema: { type: "object" } }, (_args, ctx) => {
 *   const answer = ctx.inputResponses?.name;
 *   if (answer?.action !== "accept") {
 *     return inputRequired({
 *       name: { method: "elicitation/create", params: { message: "Your name?", requestedSchema: {
 *         type: "object", properties: { name: { type: "string" } }, required: ["name"] } } },
 *     });
 *   }
 *   return { content: [{ type: "text", text: `Hello, ${(answer.content as { name: string }).name}!` }] };
 * })
 */
export function inputRequired(requests: InputRequests, state?: JsonValue): InputRequired {
  if (!isObject(requests)) throw invalidInput("requests must be an object");
  const copied: InputRequests = {};
  for (const [key, request] of Object.entries(requests)) {
    if (key === "") throw invalidInput("a request key must not be empty");
    if (!isObject(request) || typeof request.method !== "string" || !INPUT_METHODS.has(request.method)) {
      throw invalidInput(`request "${key}" must be sampling/createMessage, elicitation/create or roots/list`);
    }
    if (request.params !== undefined && !isObject(request.params)) {
      throw invalidInput(`request "${key}" params must be an object`);
    }
    if (request.method !== "roots/list" && request.params === undefined) {
      throw invalidInput(`request "${key}" needs params`);
    }
    copied[key] = structuredClone(request);
  }
  let copy: JsonValue | undefined;
  if (state !== undefined) {
    const json = JSON.stringify(state);
    if (json === undefined) throw invalidInput("state must be a JSON value");
    copy = JSON.parse(json) as JsonValue;
  }
  if (Object.keys(copied).length === 0 && copy === undefined) {
    throw invalidInput("ask for at least one input, or carry a state");
  }
  return Object.freeze({ [INPUT_REQUIRED]: true as const, requests: Object.freeze(copied), state: copy });
}

/** True for a value made by {@link inputRequired} (across duplicate copies of the package). */
export function isInputRequired(value: unknown): value is InputRequired {
  return typeof value === "object" && value !== null && INPUT_REQUIRED in value;
}

/** The client methods whose handlers may answer with {@link inputRequired}. */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set([
  "tools/call",
  "prompts/get",
  "resources/read",
]);

/**
 * The capabilities `requests` need that `capabilities` lacks, as a `ClientCapabilities` object (the shape of
 * `-32021`'s `data.requiredCapabilities`), or `undefined` when the client can answer them all. Sampling needs
 * `sampling` (and `sampling.tools` for a request with tools); a form elicitation needs `elicitation` (with
 * `form`, or neither mode named); a URL elicitation needs `elicitation.url`; roots need `roots`.
 */
export function missingCapabilities(
  requests: Readonly<InputRequests>,
  capabilities: ClientCapabilities,
): ClientCapabilities | undefined {
  const missing: { [key: string]: { [key: string]: unknown } } = {};
  const need = (capability: string, sub?: string) => {
    missing[capability] ??= {};
    if (sub !== undefined) (missing[capability] as { [key: string]: unknown })[sub] = {};
  };
  for (const request of Object.values(requests)) {
    switch (request.method) {
      case "sampling/createMessage": {
        const sampling = capabilities.sampling;
        if (!isObject(sampling)) need("sampling");
        else if (request.params.tools !== undefined && !isObject(sampling.tools)) need("sampling", "tools");
        break;
      }
      case "elicitation/create": {
        const elicitation = capabilities.elicitation;
        const url = request.params.mode === "url";
        if (!isObject(elicitation)) need("elicitation", url ? "url" : undefined);
        else if (url && !isObject(elicitation.url)) need("elicitation", "url");
        else if (!url && elicitation.form === undefined && elicitation.url !== undefined) {
          need("elicitation", "form");
        }
        break;
      }
      case "roots/list":
        if (!isObject(capabilities.roots)) need("roots");
        break;
    }
  }
  return Object.keys(missing).length === 0 ? undefined : (missing as ClientCapabilities);
}

/** Names the capabilities of a {@link missingCapabilities} answer, for an error message. */
export function describeCapabilities(capabilities: ClientCapabilities): string {
  return Object.entries(capabilities)
    .map(([name, value]) => {
      const subs = isObject(value) ? Object.keys(value) : [];
      return subs.length === 0 ? name : subs.map((sub) => `${name}.${sub}`).join(", ");
    })
    .join(", ");
}

function invalidInput(problem: string): TypeError {
  return new TypeError(`inputRequired: ${problem}`);
}
