/**
 * Reading server-sent events in tests: a whole SSE body at once, or a live response event by event.
 *
 * @example
 * const { messages, comments } = parseSse(text);
 * const events = sseReader(res);
 * const first = await events.next(); // { message } or { comment }, undefined at the end
 */
import type { IncomingMessage } from "node:http";
import type { JsonRpcMessage } from "../../src/jsonrpc/message.js";

/** Parses an SSE body into its `data:` JSON messages and its comments. */
export function parseSse(text: string): { messages: JsonRpcMessage[]; comments: string[] } {
  const messages: JsonRpcMessage[] = [];
  const comments: string[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(":")) comments.push(line.slice(1).trim());
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length > 0) messages.push(JSON.parse(data.join("\n")) as JsonRpcMessage);
  }
  return { messages, comments };
}

/**
 * Reads SSE events from a live response as they arrive: `next()` resolves with the next JSON-RPC message or
 * comment, `undefined` once the stream ends.
 */
export function sseReader(
  res: IncomingMessage,
  onMessage: (message: JsonRpcMessage) => void = () => {},
): {
  next(): Promise<{ message?: JsonRpcMessage; comment?: string } | undefined>;
} {
  res.setEncoding("utf8");
  let buffer = "";
  const ready: Array<{ message?: JsonRpcMessage; comment?: string }> = [];
  let ended = false;
  let wake: (() => void) | undefined;
  res.on("data", (chunk: string) => {
    buffer += chunk;
    let cut = buffer.indexOf("\n\n");
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const { messages, comments } = parseSse(`${block}\n\n`);
      for (const comment of comments) ready.push({ comment });
      for (const message of messages) {
        onMessage(message);
        ready.push({ message });
      }
      cut = buffer.indexOf("\n\n");
    }
    wake?.();
  });
  const end = () => {
    ended = true;
    wake?.();
  };
  res.on("end", end);
  res.on("close", end);
  return {
    async next() {
      while (ready.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
      return ready.shift();
    },
  };
}
