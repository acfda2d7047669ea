import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import type { AbortLike } from "../../jsonrpc/lazy-abort.js";
import { limitDetails, limitMessage } from "../../jsonrpc/limit-error.js";
import type { ClientCapabilities } from "../../protocol/types/capabilities.js";
import type { InputRequests, InputResponses } from "../../protocol/types/input.js";
import { type ClientRequests, inputFailed, type MessageSender } from "../state/client-requests.js";
import {
  describeCapabilities,
  type InputRequired,
  isInputRequired,
  missingCapabilities,
  type RoundInput,
} from "../state/input.js";

type Result = { [key: string]: unknown };

/** What the 2025-11-25 input loop of one request needs. */
export interface LegacyRounds {
  /** One handler call (under the executor), with the previous round's answers. */
  round(input: RoundInput): Promise<Result | InputRequired>;
  /** The client capabilities negotiated at `initialize`. */
  capabilities: ClientCapabilities;
  /** The session's server-to-client requests. */
  requests: ClientRequests;
  /** Where this request's server-to-client requests go; `undefined` when it has no channel for them. */
  send: MessageSender | undefined;
  /** Fires when the request is cancelled or its session ends. */
  signal: AbortLike | undefined;
  /** What the `clientRequest` hooks learn of where the requests come from (the request's call). */
  origin?: unknown;
  maxRounds: number;
}

/**
 * Serves a 2025-11-25 request whose handler may answer `inputRequired()`: the server sends the requests to the
 * client itself, as real `sampling/createMessage`, `elicitation/create` and `roots/list` requests (all of a
 * round at once), waits for the answers, and calls the handler again with them and its state, round after
 * round, until it answers with a result. Fails with `-32021` naming the capability when the client did not
 * declare one the requests need at `initialize` (nothing is sent), and with `-32603` when a request fails on
 * the client, when there is no channel to send on, or past `maxRounds`.
 */
export async function runLegacyRounds(loop: LegacyRounds): Promise<Result> {
  let input: RoundInput = { inputResponses: undefined, requestState: undefined };
  for (let round = 1; ; round++) {
    const answer = await loop.round(input);
    if (!isInputRequired(answer)) return answer;
    if (round >= loop.maxRounds) {
      const facts = { option: "maxInputRounds", limit: loop.maxRounds, size: round + 1 };
      throw new JsonRpcError(
        ErrorCode.InternalError,
        limitMessage("The handler still needed input", facts, "rounds"),
        limitDetails(facts, { reason: "too_many_rounds" }),
      );
    }
    const inputResponses = await ask(loop, answer.requests);
    input = {
      inputResponses,
      requestState: answer.state === undefined ? undefined : structuredClone(answer.state),
    };
  }
}

/**
 * Sends every request of a round to the client and gathers the answers; the first failure cancels the rest.
 * A request whose capability the session did not declare is never sent: `-32021` names it.
 */
export async function ask(
  loop: Pick<LegacyRounds, "capabilities" | "requests" | "send" | "signal" | "origin">,
  requests: Readonly<InputRequests>,
): Promise<InputResponses> {
  const keys = Object.keys(requests);
  if (keys.length === 0) return {};
  const missing = missingCapabilities(requests, loop.capabilities);
  if (missing) {
    throw new JsonRpcError(
      ErrorCode.MissingRequiredClientCapability,
      `Missing required client capability: ${describeCapabilities(missing)} (not declared at initialize)`,
      { requiredCapabilities: missing },
    );
  }
  const send = loop.send;
  if (send === undefined) {
    throw new JsonRpcError(
      ErrorCode.InternalError,
      "No stream to send server-to-client requests on: accept text/event-stream on the POST, or open the session's GET stream",
      { reason: "no_channel" },
    );
  }
  if (!loop.requests.fits(keys.length)) {
    const facts = loop.requests.facts(keys.length);
    throw new JsonRpcError(
      ErrorCode.InternalError,
      limitMessage("Too many server-to-client requests pending", facts, "requests"),
      limitDetails(facts, { reason: "client_request_limit" }),
    );
  }
  const round = new AbortController();
  const onAbort = () => round.abort(loop.signal?.reason);
  if (loop.signal?.aborted) onAbort();
  else loop.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const answers = await Promise.all(
      keys.map(async (key) => {
        const request = requests[key] as InputRequests[string];
        try {
          return [
            key,
            await loop.requests.request(
              request.method,
              legacyParams(request),
              send,
              round.signal,
              loop.origin,
            ),
          ] as const;
        } catch (error) {
          round.abort(error);
          throw error === loop.signal?.reason ? error : inputFailed(key, error);
        }
      }),
    );
    // What each answer holds is the client's word: the handler checks it, as it would a 2026 retry's.
    return Object.fromEntries(answers) as InputResponses;
  } finally {
    loop.signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * 2025-11-25 requires an `elicitationId` on a URL-mode elicitation (2026-07-28 dropped it); a handler written
 * once for both eras need not know, so one is minted here when missing.
 */
function legacyParams(request: InputRequests[string]): { [key: string]: unknown } | undefined {
  const params = request.params as { [key: string]: unknown } | undefined;
  if (request.method !== "elicitation/create" || params?.mode !== "url" || "elicitationId" in params)
    return params;
  return { ...params, elicitationId: crypto.randomUUID() };
}
