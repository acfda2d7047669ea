import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import { nestsDeeperThan } from "../../jsonrpc/json-depth.js";
import type { ClientCapabilities } from "../../protocol/types/capabilities.js";
import type { InputRequests } from "../../protocol/types/input.js";
import { invalidParams } from "../core/errors.js";
import { identityFingerprint } from "../state/fingerprint.js";
import {
  describeCapabilities,
  INPUT_REQUIRED_METHODS,
  type InputRequired,
  missingCapabilities,
  type RoundInput,
} from "../state/input.js";
import {
  boundParams,
  isInputResponses,
  MAX_BOUND_DEPTH,
  type RequestStateSealer,
  type StateRefusal,
} from "../state/request-state.js";

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
  used: "requestState has already been used",
};

/** A retry's input for its handler, and the nonce of its `requestState` (when it carried one). */
export interface ModernInput {
  readonly input: RoundInput;
  readonly nonce: string | undefined;
}

/**
 * Reads the retry fields of a 2026-07-28 `tools/call`, `prompts/get`, `resources/read` or custom method
 * (`takesInput`) before its handler runs: `inputResponses` must be an object of result objects, `requestState` a string that this server sealed
 * for the same principal, method and params, not yet expired. Anything else throws `-32602`, and the handler is
 * never called; so do params nested deeper than 32 levels with a `requestState` (they cannot be bound). Other
 * methods carry no input: their fields are ignored. In single-use mode the state is spent later, by
 * {@link spendState}, when the handler is about to run.
 */
export async function readModernInput(
  sealer: RequestStateSealer,
  round: ModernRound,
  takesInput = INPUT_REQUIRED_METHODS.has(round.method),
): Promise<ModernInput> {
  if (!takesInput) return NO_INPUT;
  const responses = round.params.inputResponses;
  if (responses !== undefined && !isInputResponses(responses)) {
    throw invalidParams("inputResponses must be an object whose every value is a result object");
  }
  const token = round.params.requestState;
  if (token === undefined)
    return { input: { inputResponses: responses, requestState: undefined }, nonce: undefined };
  if (typeof token !== "string") throw invalidParams("requestState must be a string");
  const opened = await sealer.open(token, await bindingOf(round));
  if (!opened.ok) {
    throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${REFUSALS[opened.reason]}`, {
      reason: opened.reason,
    });
  }
  return { input: { inputResponses: responses, requestState: opened.state }, nonce: opened.nonce };
}

/** What a request without retry fields reads: no input, nothing to spend. */
export const NO_INPUT: ModernInput = Object.freeze({
  input: Object.freeze({ inputResponses: undefined, requestState: undefined }),
  nonce: undefined,
});

/**
 * Spends an opened state's nonce just before its handler round runs (after admission, so a call refused for
 * capacity keeps its state for the client's next try). In single-use mode a nonce the store refuses (spent
 * already, or unknown to it) throws `-32602` with `data.reason` `used`; without a store this does nothing.
 */
export async function spendState(sealer: RequestStateSealer, nonce: string | undefined): Promise<void> {
  if (nonce === undefined || (await sealer.spend(nonce))) return;
  throw new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${REFUSALS.used}`, { reason: "used" });
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
  place?: (request: InputRequests[string]) => Promise<{ readonly method: string }>,
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
  if (Object.keys(answer.requests).length > 0) {
    const requests: { [key: string]: unknown } = structuredClone({ ...answer.requests });
    // Each request through the plugins' `clientRequest` hooks (trace context in its `_meta`), in key order.
    if (place !== undefined) {
      for (const key of Object.keys(requests))
        requests[key] = await place(requests[key] as InputRequests[string]);
    }
    result.inputRequests = requests;
  }
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
