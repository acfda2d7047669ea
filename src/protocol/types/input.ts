import type { JsonObject, MetaObject, Open, ResultBase, Role } from "./common.js";
import type { AudioContent, ImageContent, TextContent } from "./content.js";

/**
 * What a server may ask of the client: sampling, elicitation and roots. In 2025-11-25 these are real
 * server-to-client requests; in 2026-07-28 they travel inside an {@link InputRequiredResult} and the client
 * answers by retrying its request with `inputResponses`.
 */

/** One message of a sampling conversation. `content` is one block or, since 2025-11-25, an array. */
export interface SamplingMessage extends Open {
  role: Role;
  content: SamplingContent | SamplingContent[];
  _meta?: MetaObject;
}

/** A block of a sampling message: text, image, audio, or (with `sampling.tools`) tool use and results. */
export type SamplingContent = TextContent | ImageContent | AudioContent | Open;

/** The params of `sampling/createMessage`. Unknown members are kept. */
export interface CreateMessageParams extends Open {
  messages: SamplingMessage[];
  modelPreferences?: Open;
  systemPrompt?: string;
  includeContext?: "none" | "thisServer" | "allServers";
  temperature?: number;
  maxTokens: number;
  stopSequences?: string[];
  metadata?: JsonObject;
  /** Needs the client capability `sampling.tools`. */
  tools?: Open[];
  /** Needs the client capability `sampling.tools`. */
  toolChoice?: Open;
  _meta?: MetaObject;
}

/** The client's answer to `sampling/createMessage`: the sampled message and the model that produced it. */
export interface CreateMessageResult extends Open {
  role: Role;
  content: SamplingContent | SamplingContent[];
  model: string;
  stopReason?: "endTurn" | "stopSequence" | "maxTokens" | "toolUse" | (string & {});
  _meta?: MetaObject;
}

/** A field of an elicitation form: a primitive with an optional `default` (SEP-1034). */
export interface PrimitiveSchema extends Open {
  type: "string" | "number" | "integer" | "boolean" | "array";
  title?: string;
  description?: string;
  default?: ElicitValue;
}

/** The form of a form-mode elicitation: flat, primitive properties only. */
export interface ElicitationSchema extends Open {
  $schema?: string;
  type: "object";
  properties: { [name: string]: PrimitiveSchema };
  required?: string[];
}

/** Form mode: the client shows a form built from `requestedSchema`. */
export interface ElicitFormParams extends Open {
  mode?: "form";
  message: string;
  requestedSchema: ElicitationSchema;
  _meta?: MetaObject;
}

/**
 * URL mode: the client sends the user to `url` (needs the client capability `elicitation.url`). 2025-11-25 adds
 * an `elicitationId`; 2026-07-28 has none.
 */
export interface ElicitUrlParams extends Open {
  mode: "url";
  message: string;
  url: string;
  elicitationId?: string;
  _meta?: MetaObject;
}

/** The params of `elicitation/create`. */
export type ElicitParams = ElicitFormParams | ElicitUrlParams;

/** A value of a submitted elicitation form. */
export type ElicitValue = string | number | boolean | string[];

/** The user's answer to an elicitation. `content` is present only for an accepted form. */
export interface ElicitResult extends Open {
  action: "accept" | "decline" | "cancel";
  content?: { [name: string]: ElicitValue };
  _meta?: MetaObject;
}

/** A root the client exposes: a `file://` URI and an optional name. */
export interface Root extends Open {
  uri: string;
  name?: string;
  _meta?: MetaObject;
}

/** The params of `roots/list`: only `_meta`. */
export interface ListRootsParams extends Open {
  _meta?: MetaObject;
}

/** The client's answer to `roots/list`. */
export interface ListRootsResult extends Open {
  roots: Root[];
  _meta?: MetaObject;
}

/** One request for input: an entry of a 2026 InputRequiredResult, or a 2025 server request's method and params. */
export type InputRequest =
  | { method: "sampling/createMessage"; params: CreateMessageParams }
  | { method: "elicitation/create"; params: ElicitParams }
  | { method: "roots/list"; params?: ListRootsParams };

/** The answer to one {@link InputRequest}. */
export type InputResponse = CreateMessageResult | ElicitResult | ListRootsResult;

/** Input requests keyed by server-chosen names. */
export type InputRequests = { [key: string]: InputRequest };

/** Responses keyed like the {@link InputRequests} they answer. */
export type InputResponses = { [key: string]: InputResponse };

/**
 * A 2026-07-28 result asking for input before the request can complete: retry the same request with
 * `inputResponses` (one per key of `inputRequests`) and `requestState` echoed exactly. At least one of the two
 * members is present.
 */
export interface InputRequiredResult extends ResultBase {
  resultType: "input_required";
  inputRequests?: InputRequests;
  requestState?: string;
}
