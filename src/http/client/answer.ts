import { parseMessage } from "../../jsonrpc/codec.js";
import { McpkitError } from "../../jsonrpc/errors.js";
import {
  isObject,
  isResponse,
  type JsonRpcMessage,
  type JsonRpcResponse,
  type RequestId,
} from "../../jsonrpc/message.js";
import type { OpenResponse } from "./requester.js";
import { SseParser } from "./sse-parser.js";

/** Where the messages of a response body that are not the awaited answer go. */
export type Route = (message: JsonRpcMessage) => void;

/** What one SSE body held for a request: its answer, or where to resume from. */
export interface StreamOutcome {
  answer: JsonRpcResponse | undefined;
  /** The last event id the stream carried (resumption point of a 2025 stream). */
  lastEventId: string | undefined;
  /** The server's `retry:` delay, when it sent one. */
  retryMs: number | undefined;
}

/** Thrown inside the parser to stop it once the answer is in hand. */
class Answered {
  constructor(readonly answer: JsonRpcResponse) {}
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Decodes one JSON-RPC message (or, where the revision allows, a batch) from text. */
export function decodeMessages(text: string, allowBatch: boolean, where: string): JsonRpcMessage[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw malformed(`${where} is not valid JSON`);
  }
  const values = Array.isArray(value) && allowBatch ? value : [value];
  return values.map((item) => {
    try {
      return parseMessage(item);
    } catch (error) {
      throw malformed(`${where} is not a valid JSON-RPC message (${(error as Error).message})`);
    }
  });
}

/**
 * True when `message` answers request `id`: a response with that id, or an error response without a usable id
 * (`null`, which a server sends when it could not read the request) on that request's own HTTP exchange.
 */
export function answers(message: JsonRpcMessage, id: RequestId): message is JsonRpcResponse {
  if (!isResponse(message)) return false;
  if ("id" in message && message.id === id) return true;
  return "error" in message && !("id" in message && message.id !== null);
}

/** The answer with the request's id (an id-less error is given it). */
export function withId(message: JsonRpcResponse, id: RequestId): JsonRpcResponse {
  return "id" in message && message.id === id ? message : ({ ...message, id } as JsonRpcResponse);
}

/**
 * Reads a JSON body: every message that is not the answer to `id` is routed; returns the answer, or undefined
 * when the body held none.
 */
export async function readJsonAnswer(
  response: OpenResponse,
  id: RequestId,
  allowBatch: boolean,
  route: Route,
): Promise<JsonRpcResponse | undefined> {
  const bytes = await response.bytes();
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw malformed("the JSON answer is not valid UTF-8");
  }
  let answer: JsonRpcResponse | undefined;
  for (const message of decodeMessages(text, allowBatch, "the JSON answer")) {
    if (answer === undefined && answers(message, id)) answer = withId(message, id);
    else route(message);
  }
  return answer;
}

/**
 * Reads an SSE body event by event as it streams: `message` events carry one JSON-RPC message each; the answer
 * to `id` ends the read (the rest of the stream is cancelled), everything else is routed as it arrives. Events
 * are bounded by `maxEventBytes`; `whole` bounds the body as a POST answer.
 */
export async function readStreamAnswer(
  response: OpenResponse,
  id: RequestId | undefined,
  maxEventBytes: number,
  whole: boolean,
  route: Route,
): Promise<StreamOutcome> {
  let retryMs: number | undefined;
  const parser = new SseParser(maxEventBytes, {
    event: (event) => {
      // Other event types, and events without data (SEP-1699 priming events), carry no message.
      if (event.event !== "message" || event.data.trim() === "") return;
      for (const message of decodeMessages(event.data, false, "an SSE event")) {
        if (id !== undefined && answers(message, id)) throw new Answered(withId(message, id));
        route(message);
      }
    },
    retry: (ms) => {
      retryMs = ms;
    },
  });
  let answer: JsonRpcResponse | undefined;
  await response.read((chunk) => {
    try {
      parser.push(chunk);
      return true;
    } catch (error) {
      if (!(error instanceof Answered)) throw error;
      answer = error.answer;
      return false;
    }
  }, whole);
  if (answer === undefined) parser.end();
  return { answer, lastEventId: parser.lastEventId, retryMs };
}

/** An answer that breaks the protocol. */
export function malformed(message: string): McpkitError {
  return new McpkitError("PROTOCOL", message, { details: { reason: "malformed_response" } });
}

/** A JSON-RPC error answer's code and data, when `message` is one. */
export function errorOf(
  message: JsonRpcResponse,
): { code: number; message: string; data: unknown } | undefined {
  if (!("error" in message) || !isObject(message.error)) return undefined;
  const { code, message: text, data } = message.error as { code: number; message: string; data?: unknown };
  return { code, message: text, data };
}
