import type { RequestId } from "../jsonrpc/message.js";
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  InputRequests,
  InputResponses,
  ListRootsResult,
} from "../protocol/types/input.js";
import type { Era } from "../protocol/versions.js";

/**
 * What a resolver or a server-request handler knows about the request for input it is answering.
 *
 * @example
 * onElicitation: async (params, { signal, era }) => askUser(params.message, { signal }),
 */
export interface InputContext {
  /** The connection's era. */
  era: Era;
  /**
   * 2026-07-28: the method of the operation that asked for input (`tools/call`, `prompts/get`, ...).
   * 2025-11-25: the server request's method (`sampling/createMessage`, `elicitation/create`, `roots/list`).
   */
  method: string;
  /**
   * 2026-07-28: the operation's params as the caller gave them (no `_meta`, no input responses).
   * 2025-11-25: the server request's params.
   */
  params: { readonly [key: string]: unknown };
  /** 2026-07-28: the round, from 1; 2025-11-25: always 1. */
  round: number;
  /** 2025-11-25: the id of the server's request. */
  serverRequestId?: RequestId;
  /**
   * Aborted when the answer is no longer wanted: the callback timed out (`callbackTimeoutMs`), the
   * operation's deadline passed, the server cancelled its request, or the client closed.
   */
  signal: AbortSignal;
}

/**
 * Answers every request for input with one function. 2026-07-28: called once per `input_required` round with
 * the whole `inputRequests` map; returns a response for each key (a key left out is sent without a response,
 * and the server asks again). 2025-11-25: called once per server request, with a one-entry map keyed by the
 * request's JSON-RPC id as a string.
 *
 * @example
 * const client = new Client({
 *   transport, clientInfo,
 *   capabilities: { elicitation: {} },
 *   onInputRequired: async (requests) => {
 *     const responses: InputResponses = {};
 *     for (const [key, request] of Object.entries(requests)) responses[key] = await ui.answer(request);
 *     return responses;
 *   },
 * });
 */
export type InputResolver = (
  requests: InputRequests,
  context: InputContext,
) => InputResponses | Promise<InputResponses>;

/** Answers `sampling/createMessage` (needs the `sampling` capability). */
export type SamplingHandler = (
  params: CreateMessageParams,
  context: InputContext,
) => CreateMessageResult | Promise<CreateMessageResult>;

/**
 * Answers `elicitation/create` (needs the `elicitation` capability; URL mode needs `elicitation.url`). For an
 * accepted form, fields the user left empty get the schema's `default` (SEP-1034).
 */
export type ElicitationHandler = (
  params: ElicitParams,
  context: InputContext,
) => ElicitResult | Promise<ElicitResult>;

/** Answers `roots/list` (needs the `roots` capability). */
export type RootsHandler = (context: InputContext) => ListRootsResult | Promise<ListRootsResult>;

/** The input options of `new Client(...)`; see `ClientOptions`. */
export interface InputOptions {
  /**
   * One resolver for every request for input, in both eras. Give either this or the per-kind handlers
   * (`onSampling`, `onElicitation`, `onRoots`), not both.
   */
  onInputRequired?: InputResolver;
  /** Answers sampling requests, in both eras. */
  onSampling?: SamplingHandler;
  /** Answers elicitation requests, in both eras. */
  onElicitation?: ElicitationHandler;
  /** Answers roots requests, in both eras. */
  onRoots?: RootsHandler;
  /** 2026-07-28: most `input_required` rounds one operation may take (default 16). */
  maxInputRounds?: number;
  /** How long one resolver or handler call may take, in milliseconds (default 30,000). */
  callbackTimeoutMs?: number;
  /**
   * How many resolver and handler calls may run at once (default 32). One more is refused at once: a 2025
   * server request gets a JSON-RPC error, a 2026 operation fails with `CAPACITY`.
   */
  maxConcurrentCallbacks?: number;
}

/** The callbacks of {@link InputOptions}, each present or undefined. */
export type InputCallbacks = {
  [K in "onInputRequired" | "onSampling" | "onElicitation" | "onRoots"]: InputOptions[K];
};
