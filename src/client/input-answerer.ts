import { McpkitError } from "../jsonrpc/errors.js";
import { isObject } from "../jsonrpc/message.js";
import type {
  ElicitParams,
  ElicitResult,
  InputRequest,
  InputRequests,
  InputResponse,
  InputResponses,
} from "../protocol/types/input.js";
import type { CallbackBounds, CallbackRunner } from "./callbacks.js";
import { withElicitationDefaults } from "./elicitation-defaults.js";
import type { InputCallbacks, InputContext } from "./input-types.js";
import type { ClientLogger } from "./types.js";

const HANDLER_OF: { readonly [method: string]: "onSampling" | "onElicitation" | "onRoots" } = {
  "sampling/createMessage": "onSampling",
  "elicitation/create": "onElicitation",
  "roots/list": "onRoots",
};

/**
 * The client's one way of answering requests for input, for both eras: the `onInputRequired` resolver, or
 * else the per-kind handlers called concurrently, one per request. Every call goes through the
 * {@link CallbackRunner}; the responses are checked, and accepted forms get their schema defaults (SEP-1034).
 */
export class InputAnswerer {
  constructor(
    private readonly handlers: InputCallbacks,
    private readonly runner: CallbackRunner,
    private readonly logger: ClientLogger,
  ) {}

  /** True when the client was given a resolver or at least one handler. */
  get configured(): boolean {
    const { onInputRequired, onSampling, onElicitation, onRoots } = this.handlers;
    return (onInputRequired ?? onSampling ?? onElicitation ?? onRoots) !== undefined;
  }

  /** The callback that would answer `method`, if any (`onInputRequired` answers every method). */
  handlerFor(method: string): string | undefined {
    if (this.handlers.onInputRequired) return "onInputRequired";
    const name = HANDLER_OF[method];
    return name !== undefined && this.handlers[name] !== undefined ? name : undefined;
  }

  /**
   * Answers `requests` (already checked against the capabilities and {@link handlerFor}). Resolves with a
   * response for each key the callbacks answered; rejects with the runner's `CAPACITY`, `TIMEOUT`, `ABORTED`
   * or `CLOSED`, or with `CALLBACK_FAILED` when a callback threw or returned something invalid.
   */
  async answer(
    requests: InputRequests,
    context: Omit<InputContext, "signal">,
    bounds: CallbackBounds,
  ): Promise<InputResponses> {
    const entries = Object.entries(requests);
    const single = entries.length === 1 ? entries[0]?.[1].method : undefined;
    const name = this.handlers.onInputRequired
      ? "onInputRequired"
      : ((single && HANDLER_OF[single]) ?? "input handlers");
    const given = await this.runner.run(
      name,
      async (signal) => {
        try {
          return await this.call(requests, { ...context, signal });
        } catch (error) {
          throw new McpkitError("CALLBACK_FAILED", `${name} failed`, {
            cause: error,
            details: { callback: name },
          });
        }
      },
      bounds,
    );
    return this.finish(name, requests, given);
  }

  private call(requests: InputRequests, context: InputContext): InputResponses | Promise<InputResponses> {
    const { onInputRequired } = this.handlers;
    if (onInputRequired) return onInputRequired(requests, context);
    const answers = Object.entries(requests).map(async ([key, request]) => {
      const response = await this.callHandler(request, context);
      return [key, response] as const;
    });
    return Promise.all(answers).then((pairs) => Object.fromEntries(pairs));
  }

  private callHandler(request: InputRequest, context: InputContext): InputResponse | Promise<InputResponse> {
    const { onSampling, onElicitation, onRoots } = this.handlers;
    switch (request.method) {
      case "sampling/createMessage":
        if (onSampling) return onSampling(request.params, context);
        break;
      case "elicitation/create":
        if (onElicitation) return onElicitation(request.params, context);
        break;
      case "roots/list":
        if (onRoots) return onRoots(context);
        break;
    }
    throw new McpkitError("UNSUPPORTED", `no handler for ${request.method}`);
  }

  private finish(name: string, requests: InputRequests, given: unknown): InputResponses {
    if (!isObject(given)) throw invalid(name, "must return an object of responses");
    const out: InputResponses = {};
    for (const [key, request] of Object.entries(requests)) {
      if (!Object.hasOwn(given, key)) {
        this.logger.debug?.(`${name} left an input request unanswered`, { key, method: request.method });
        continue;
      }
      const response = given[key];
      const problem = responseProblem(request.method, response);
      if (problem !== undefined) throw invalid(name, `answered "${key}" (${request.method}): ${problem}`);
      out[key] =
        request.method === "elicitation/create"
          ? withElicitationDefaults(request.params as ElicitParams, response as ElicitResult)
          : (response as InputResponse);
    }
    const extra = Object.keys(given).filter((key) => !Object.hasOwn(requests, key));
    if (extra.length > 0) this.logger.debug?.(`${name} answered keys nobody asked for; dropped`, { extra });
    return out;
  }
}

/** What is wrong with a response to `method`, or undefined. */
export function responseProblem(method: string, response: unknown): string | undefined {
  if (!isObject(response)) return "a response must be an object";
  if (method === "elicitation/create") {
    if (!["accept", "decline", "cancel"].includes(response.action as string)) {
      return '"action" must be "accept", "decline" or "cancel"';
    }
    if (response.content !== undefined && !isObject(response.content)) return '"content" must be an object';
    return undefined;
  }
  if (method === "sampling/createMessage") {
    if (response.role !== "user" && response.role !== "assistant")
      return '"role" must be "user" or "assistant"';
    if (!isObject(response.content) && !Array.isArray(response.content))
      return '"content" must be a content block';
    return typeof response.model === "string" ? undefined : '"model" must be a string';
  }
  const roots = response.roots;
  if (!Array.isArray(roots)) return '"roots" must be an array';
  const bad = roots.findIndex((root) => !isObject(root) || typeof root.uri !== "string");
  return bad === -1 ? undefined : `"roots[${bad}]" must be an object with a string "uri"`;
}

function invalid(name: string, problem: string): McpkitError {
  return new McpkitError("CALLBACK_FAILED", `${name} ${problem}`, { details: { callback: name } });
}
