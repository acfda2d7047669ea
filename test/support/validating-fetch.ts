/**
 * A `fetch` for official MCP clients under test: every JSON-RPC message the client POSTs, and every message in
 * the answers (a JSON body, or each SSE event as it streams), is checked against the official schema of the
 * era. The client gets the same bytes it would have got (the body is teed, not buffered).
 *
 * @example
 * const wire = validatingFetch(new WireValidator("2026-07-28"));
 * const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: wire.fetch });
 * // ... after the test: expect(wire.errors).toEqual([]);
 */
import type { JsonRpcMessage } from "../../src/jsonrpc/message.js";
import { parseSse } from "./sse-reader.js";
import type { WireSchemaError, WireValidator } from "./wire-schema.js";

/** One HTTP exchange as the client saw it. */
export interface WireExchange {
  method: string;
  status: number;
  /** The request's headers, lowercase names. */
  headers: { [name: string]: string };
  sent: JsonRpcMessage | undefined;
  received: JsonRpcMessage[];
}

export interface ValidatingFetch {
  fetch: typeof fetch;
  validator: WireValidator;
  exchanges: WireExchange[];
  /** Schema errors (or unparseable bodies) seen so far. */
  errors: unknown[];
  /** Every JSON-RPC message that crossed, in order of arrival. */
  messages(): JsonRpcMessage[];
}

/**
 * `inner` does the exchange (default: the global `fetch`); a server-side test passes its handler, so the
 * traffic of a client written in another language is checked too.
 */
export function validatingFetch(validator: WireValidator, inner: typeof fetch = fetch): ValidatingFetch {
  const exchanges: WireExchange[] = [];
  const errors: unknown[] = [];
  const all: JsonRpcMessage[] = [];
  const check = (message: JsonRpcMessage, from: "client" | "server") => {
    all.push(message);
    try {
      validator.check(message, from);
    } catch (error) {
      errors.push(error as WireSchemaError);
    }
  };
  const wrapped = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers: { [name: string]: string } = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const sent = typeof init?.body === "string" ? (JSON.parse(init.body) as JsonRpcMessage) : undefined;
    if (sent) check(sent, "client");
    const response = await inner(input, init);
    const exchange: WireExchange = {
      method: init?.method ?? "GET",
      status: response.status,
      headers,
      sent,
      received: [],
    };
    exchanges.push(exchange);
    const type = response.headers.get("content-type") ?? "";
    if (
      response.body === null ||
      !(type.startsWith("text/event-stream") || type.startsWith("application/json"))
    ) {
      return response;
    }
    const [mine, theirs] = response.body.tee();
    void consume(mine, type.startsWith("text/event-stream"), (message) => {
      exchange.received.push(message);
      check(message, "server");
    }).catch((error: unknown) => {
      if ((error as { name?: string }).name !== "AbortError") errors.push(error);
    });
    return new Response(theirs, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return { fetch: wrapped as typeof fetch, validator, exchanges, errors, messages: () => [...all] };
}

async function consume(
  body: ReadableStream<Uint8Array>,
  sse: boolean,
  onMessage: (message: JsonRpcMessage) => void,
): Promise<void> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (value) buffer += decoder.decode(value, { stream: true });
    if (sse) {
      let cut = buffer.indexOf("\n\n");
      while (cut >= 0) {
        for (const message of parseSse(buffer.slice(0, cut + 2)).messages) onMessage(message);
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf("\n\n");
      }
    }
    if (done) break;
  }
  if (!sse && buffer.trim() !== "") onMessage(JSON.parse(buffer) as JsonRpcMessage);
}
