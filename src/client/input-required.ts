import { McpkitError } from "../jsonrpc/errors.js";
import { limitError } from "../jsonrpc/limit-error.js";
import { isObject } from "../jsonrpc/message.js";
import type { ResultObject } from "../jsonrpc/pending.js";
import type { ClientCapabilities } from "../protocol/types/capabilities.js";
import type { InputRequests, InputRequiredResult } from "../protocol/types/input.js";
import { MODERN_VERSION } from "../protocol/versions.js";
import type { Deadline } from "./deadline.js";
import type { InputAnswerer } from "./input-answerer.js";
import { inputProblem } from "./input-checks.js";
import type { InputContext } from "./input-types.js";

export const DEFAULT_MAX_INPUT_ROUNDS = 16;

/**
 * True for a 2026-07-28 `input_required` result: the server needs input before it can complete the request.
 *
 * @example
 * const result = await client.request("tools/call", { name: "deploy" });
 * if (isInputRequiredResult(result)) showPrompts(result.inputRequests);
 */
export function isInputRequiredResult(result: unknown): result is InputRequiredResult {
  return isObject(result) && result.resultType === "input_required";
}

/** The client's side of the input loop. */
export interface InputLoopConfig {
  answerer: InputAnswerer;
  capabilities: ClientCapabilities;
  maxRounds: number;
}

/** One operation whose result may ask for input. */
export interface InputTrip {
  method: string;
  /** The params as the caller gave them. */
  params: { [key: string]: unknown };
  /** The operation's one deadline: it covers every round and every resolver call. */
  deadline: Deadline;
  /** Sends `method` with `params` under a new id and resolves with its checked result. */
  send(params: { [key: string]: unknown }): Promise<ResultObject>;
  /** Without a resolver: return the input_required result as is, or throw `INPUT_REQUIRED` with it. */
  unresolved: "return" | "throw";
}

/**
 * Drives 2026-07-28 input rounds until the server's result is complete: checks every input request against
 * the client's declared capabilities (a request the client cannot serve fails the operation without calling
 * any callback), answers them through the {@link InputAnswerer}, and retries the same method and params with
 * `inputResponses` and the exact `requestState` (only when one was given). A result carrying only
 * `requestState` is retried without asking anyone. At most `maxRounds` retries, all inside the operation's
 * deadline.
 */
export async function completeInput(
  first: ResultObject,
  trip: InputTrip,
  config: InputLoopConfig,
): Promise<ResultObject> {
  let result = first;
  const context: Omit<InputContext, "signal" | "round"> = {
    era: MODERN_VERSION,
    method: trip.method,
    params: callerParams(trip.params),
  };
  for (let round = 1; isInputRequiredResult(result); round++) {
    const requests: InputRequests = result.inputRequests ?? {};
    const keys = Object.keys(requests);
    if (keys.length > 0 && !config.answerer.configured) {
      if (trip.unresolved === "return") return result;
      throw new McpkitError(
        "INPUT_REQUIRED",
        `${trip.method} needs input and the client has no resolver (onInputRequired, or per-kind handlers)`,
        { details: { method: trip.method, result } },
      );
    }
    if (round > config.maxRounds) {
      const facts = { option: "maxInputRounds", limit: config.maxRounds, size: round };
      throw limitError("LIMIT_EXCEEDED", `${trip.method} kept asking for input`, facts, {
        unit: "rounds",
        extra: { method: trip.method },
      });
    }
    checkRequests(trip.method, requests, config);
    const retry = { ...trip.params };
    if (keys.length > 0) {
      retry.inputResponses = await config.answerer.answer(
        requests,
        { ...context, round },
        { parent: trip.deadline },
      );
    } else {
      delete retry.inputResponses;
    }
    if (typeof result.requestState === "string") retry.requestState = result.requestState;
    else delete retry.requestState;
    trip.deadline.throwIfEnded();
    result = await trip.send(retry);
  }
  return result;
}

function checkRequests(method: string, requests: InputRequests, config: InputLoopConfig): void {
  for (const [key, request] of Object.entries(requests)) {
    const problem = inputProblem(request, config.capabilities);
    if (problem !== undefined) {
      const code = problem.kind === "capability" || problem.kind === "detail" ? "UNSUPPORTED" : "PROTOCOL";
      throw new McpkitError(
        code,
        `${method} asked for input the client cannot give ("${key}"): ${problem.message}`,
        {
          details: {
            method,
            key,
            request,
            ...(problem.capability ? { capability: problem.capability } : {}),
          },
        },
      );
    }
    const inputMethod = (request as { method: string }).method;
    if (config.answerer.handlerFor(inputMethod) === undefined) {
      throw new McpkitError(
        "UNSUPPORTED",
        `${method} asked for ${inputMethod} ("${key}") and the client has no handler for it`,
        {
          details: { method, key, request },
        },
      );
    }
  }
}

/** The operation's params without what the client adds: `_meta`, `inputResponses`, `requestState`. */
function callerParams(params: { [key: string]: unknown }): { [key: string]: unknown } {
  const { _meta: _m, inputResponses: _i, requestState: _s, ...rest } = params;
  return rest;
}
