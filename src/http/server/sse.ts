import type { Clock } from "../../jsonrpc/clock.js";
import { utf8Length } from "../../jsonrpc/codec.js";

const encoder = new TextEncoder();
/** Bytes buffered before a writer that awaits {@link SseStream.drained} waits for the client to read. */
const HIGH_WATER_MARK = 64 * 1024;
const KEEPALIVE = ": keepalive\n\n";
/** The first bytes of a stream that has no event to send yet. */
export const STREAM_OPEN_COMMENT = "stream open";

/** Headers of every SSE response. */
export const SSE_HEADERS: { readonly [name: string]: string } = Object.freeze({
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  // Tells nginx-style proxies not to buffer the stream (2026-07-28 Streamable HTTP asks for it).
  "x-accel-buffering": "no",
});

/** Options of an {@link SseStream}. */
export interface SseStreamOptions {
  /** Interval of keepalive comments; 0 for none. */
  keepAliveMs: number;
  clock: Clock;
  /** Called once when the client stops reading (stream cancelled), not when the server closes it. */
  onCancel: () => void;
  /**
   * Writes a comment at once, for a stream with no event to send yet: some servers (Bun) send a streaming
   * response's head only with its first bytes, and a client waiting for the head would time out.
   */
  prime?: boolean;
}

/**
 * A server-sent-events body: `message` events carrying one JSON-RPC message each, keepalive comments, no event
 * ids (nothing is resumable). Bytes queue up to a high-water mark; a writer that cares awaits `drained()`.
 * Every byte written is counted, for the response size limit.
 */
export class SseStream {
  readonly body: ReadableStream<Uint8Array>;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private written = 0;
  private closed = false;
  private waiters: Array<() => void> = [];
  private keepAlive: unknown;

  constructor(private readonly options: SseStreamOptions) {
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => this.wake(),
        cancel: () => {
          if (this.closed) return;
          this.finish();
          options.onCancel();
        },
      },
      { highWaterMark: HIGH_WATER_MARK, size: (chunk) => chunk.byteLength },
    );
    if (options.prime === true) this.write(`: ${STREAM_OPEN_COMMENT}\n\n`);
    this.armKeepAlive();
  }

  /** Bytes written so far (events and comments). */
  get bytesWritten(): number {
    return this.written;
  }

  /** True once the stream is closed or cancelled: nothing more is written. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** True while the buffered bytes are at or above the high-water mark (the client reads slowly). */
  get congested(): boolean {
    return (this.controller?.desiredSize ?? 0) <= 0;
  }

  /** The byte size of the event carrying `json`. */
  static eventSize(json: string): number {
    return utf8Length(json) + EVENT_OVERHEAD;
  }

  /** Writes one `message` event; false when the stream is already closed. */
  event(json: string): boolean {
    return this.write(eventText(json));
  }

  /** Writes one keepalive comment (clients ignore comments). */
  keepalive(): boolean {
    return this.write(KEEPALIVE);
  }

  /** Resolves once the buffered bytes fall under the high-water mark, or the stream closes. */
  drained(): Promise<void> {
    if (this.closed || !this.congested) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Ends the stream (after what was written is read). Idempotent. */
  close(): void {
    if (this.closed) return;
    this.finish();
    try {
      this.controller?.close();
    } catch {
      // Already errored by the runtime: nothing left to close.
    }
  }

  private write(text: string): boolean {
    if (this.closed || !this.controller) return false;
    const bytes = encoder.encode(text);
    this.written += bytes.byteLength;
    this.controller.enqueue(bytes);
    return true;
  }

  private armKeepAlive(): void {
    if (this.options.keepAliveMs <= 0 || this.closed) return;
    this.keepAlive = this.options.clock.setTimeout(() => {
      this.keepalive();
      this.armKeepAlive();
    }, this.options.keepAliveMs);
  }

  private finish(): void {
    this.closed = true;
    if (this.keepAlive !== undefined) this.options.clock.clearTimeout(this.keepAlive);
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

function eventText(json: string): string {
  return `event: message\ndata: ${json}\n\n`;
}

const EVENT_OVERHEAD = eventText("").length;
