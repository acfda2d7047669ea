import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError } from "../jsonrpc/errors.js";
import { nestsDeeperThan } from "../jsonrpc/json-depth.js";
import type { ClientCapabilities } from "../protocol/types/capabilities.js";
import { invalidParams } from "./errors.js";
import { identityFingerprint } from "./fingerprint.js";
import {
  describeCapabilities,
  INPUT_REQUIRED_METHODS,
  type InputRequired,
  missingCapabilities,
  type RoundInput,
} from "./input.js";
import {
  boundParams,
  isInputResponses,
  MAX_BOUND_DEPTH,
  type RequestStateSealer,
  type StateRefusal,
} from "./request-state.js";

type Params = { [key: string]: unknown };

/** The request a 2026-07-28 round belongs to: what its `requestState` is bound to. */
export interface ModernRound {
  readonly method: string;
  readonly params: Params;
  readonly identity: unknown;
}

const REFUSALS: { readonly [reason in StateRefusal]: string } = {
  malformed: "requestState is malformed",
  invalid: "requestState failed verification (altered, or sealed for another request or principal)",
  expired: "requestState has expired",
};

/**
 * Reads the retry fields of a 2026-07-28 `tools/call`, `prompts/get` or `resources/read` before its handler
 * runs: `inputResponses` must be an object of result objects, `requestState` a string that this server sealed
 * for the same principal, method and params, not yet expired. Anything else throws `-32602`, and the handler is
 * never called; so do params nested deeper than 32 levels with a `requestState` (they cannot be bound). Other
 * methods carry no input: their fields are ignored.
 */
export async function readModernInput(sealer: RequestStateSealer, round: ModernRound): Promise<RoundInput> {
  if (!INPUT_REQUIRED_METHODS.has(round.method))
    return { inputResponses: undefined, requestState: undefined };
  const responses = round.params.inputResponses;
  if (responses !== undefined && !isInputResponses(responses)) {
    throw invalidParams("inputResponses must be an object whose every value is a result object");
  }
  const token = round.params.requestState;
  if (token === undefined) return { inputResponses: responses, requestState: undefined };
  if (typeof token !== "string") throw invalidParams("requestState must be a string");
  const opened = await sealer.open(token, await bindingOf(round));
  if (!opened.ok) {
    throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${REFUSALS[opened.reason]}`, {
      reason: opened.reason,
    });
  }
  return { inputResponses: responses, requestState: opened.state };
}

/**
 * The `InputRequiredResult` a handler's `inputRequired()` becomes in 2026-07-28: `resultType`,
 * `inputRequests` and, when the handler passed a state, `requestState` sealed for this request. Throws
 * `-32021` with `data.requiredCapabilities` when this request's client capabilities cannot answer the requests,
 * and `-32602` (`data.reason: "too_deep"`) when a state is to be sealed for params nested deeper than 32 levels.
 */
export async function inputRequiredResult(
  sealer: RequestStateSealer,
  answer: InputRequired,
  round: ModernRound,
  capabilities: ClientCapabilities,
): Promise<Params> {
  const missing = missingCapabilities(answer.requests, capabilities);
  if (missing) {
    throw new JsonRpcError(
      ErrorCode.MissingRequiredClientCapability,
      `Missing required client capability: ${describeCapabilities(missing)}`,
      { requiredCapabilities: missing },
    );
  }
  const result: Params = { resultType: "input_required" };
  if (Object.keys(answer.requests).length > 0) result.inputRequests = structuredClone({ ...answer.requests });
  if (answer.state !== undefined)
    result.requestState = await sealer.seal(answer.state, await bindingOf(round));
  return result;
}

/** What a state of this round is bound to; params too deep to bind are the client's fault: `-32602`. */
async function bindingOf(round: ModernRound) {
  // The params object is one level above its members.
  if (nestsDeeperThan(boundParams(round.params), MAX_BOUND_DEPTH + 1)) {
    throw new JsonRpcError(
      ErrorCode.InvalidParams,
      `Invalid params: params nest deeper than ${MAX_BOUND_DEPTH} levels, too deep to bind a requestState to`,
      { reason: "too_deep", maxDepth: MAX_BOUND_DEPTH },
    );
  }
  return {
    principal: await identityFingerprint(round.identity),
    method: round.method,
    params: round.params,
  };
}
