import { limitError } from "../../jsonrpc/limit-error.js";

/** One dispatched server-sent event. */
export interface SseEvent {
  /** The `event:` field, `message` when absent. */
  readonly event: string;
  /** The `data:` lines joined with `\n`. */
  readonly data: string;
  /** The last event id in force when the event was dispatched (set by this or an earlier event). */
  readonly id: string | undefined;
}

/** What the parser reports besides events. */
export interface SseParserHandlers {
  /** One complete event (its `data` lines joined with newlines). */
  event(event: SseEvent): void;
  /** A `retry:` field: the server's reconnection delay in milliseconds. */
  retry?(delayMs: number): void;
  /** An `id:` field, also on events without data (a priming event). */
  id?(id: string): void;
}

const LF = 0x0a;
const CR = 0x0d;
// ignoreBOM: each line is decoded on its own, and only the stream's first BOM is dropped (in takeLine).
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * A bounded, linear server-sent-events parser over bytes (the WHATWG event-stream grammar: LF, CR or CRLF line
 * ends, comments, `data`/`event`/`id`/`retry` fields). An event's bytes (every line up to its blank line,
 * comments included) are counted as they arrive, before any decoding: one over `maxEventBytes` throws
 * `McpkitError` `MESSAGE_TOO_LARGE` with `details.reason` `"sse_event_too_large"`. Each byte is looked at once;
 * a line is copied once, when it ends.
 *
 * @example
 * const parser = new SseParser(1_000_000, { event: (e) => console.log(e.data) });
 * parser.push(new TextEncoder().encode("data: {}\n\n"));
 */
export class SseParser {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private eventBytes = 0;
  private skipLf = false;
  private first = true;
  private data: string[] = [];
  private type = "";
  private lastId: string | undefined;

  constructor(
    private readonly maxEventBytes: number,
    private readonly handlers: SseParserHandlers,
  ) {}

  /** The last event id seen on the stream (what `Last-Event-ID` would carry). */
  get lastEventId(): string | undefined {
    return this.lastId;
  }

  /** Feeds the next chunk of the body. */
  push(chunk: Uint8Array): void {
    let start = 0;
    if (this.skipLf && chunk.length > 0) {
      this.skipLf = false;
      if (chunk[0] === LF) {
        start = 1;
        this.count(1);
      }
    }
    for (let i = start; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte !== LF && byte !== CR) continue;
      this.count(i - start + 1);
      this.takeLine(chunk.subarray(start, i));
      if (byte === CR) {
        if (i + 1 < chunk.length) {
          if (chunk[i + 1] === LF) {
            i++;
            this.count(1);
          }
        } else {
          this.skipLf = true;
        }
      }
      start = i + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.count(rest.length);
      // Copied: the caller may reuse its buffer.
      this.pending.push(rest.slice());
      this.pendingBytes += rest.length;
    }
  }

  /** The body ended: an event without its closing blank line is discarded, as the grammar says. */
  end(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.data = [];
    this.type = "";
    this.eventBytes = 0;
  }

  private count(bytes: number): void {
    this.eventBytes += bytes;
    if (this.eventBytes > this.maxEventBytes) {
      throw limitError(
        "MESSAGE_TOO_LARGE",
        "an SSE event",
        { option: "maxSseEventBytes", limit: this.maxEventBytes, size: this.eventBytes },
        { atLeast: true, extra: { reason: "sse_event_too_large" } },
      );
    }
  }

  private takeLine(tail: Uint8Array): void {
    let bytes = tail;
    if (this.pendingBytes > 0) {
      bytes = new Uint8Array(this.pendingBytes + tail.length);
      let offset = 0;
      for (const piece of this.pending) {
        bytes.set(piece, offset);
        offset += piece.length;
      }
      bytes.set(tail, offset);
      this.pending = [];
      this.pendingBytes = 0;
    }
    let line = decoder.decode(bytes);
    if (this.first) {
      this.first = false;
      if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    }
    this.line(line);
  }

  private line(line: string): void {
    if (line === "") {
      this.dispatch();
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data":
        this.data.push(value);
        break;
      case "event":
        this.type = value;
        break;
      case "id":
        if (!value.includes("\0")) {
          this.lastId = value;
          this.handlers.id?.(value);
        }
        break;
      case "retry":
        if (/^\d+$/.test(value)) this.handlers.retry?.(Number(value));
        break;
      default:
        break;
    }
  }

  private dispatch(): void {
    const data = this.data;
    const type = this.type;
    this.data = [];
    this.type = "";
    this.eventBytes = 0;
    if (data.length === 0) return;
    this.handlers.event({ event: type === "" ? "message" : type, data: data.join("\n"), id: this.lastId });
  }
}
