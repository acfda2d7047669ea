import type { Readable, Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";

/**
 * Receives a launched server's stderr, as UTF-8 text in arrival order, when the policy's `stderr` is
 * `capture`. It is the only place captured stderr goes: mcpkit never logs it. What it throws is ignored.
 */
export type StderrHandler = (text: string) => void;

/**
 * Hands stderr bytes to a handler until `limit` bytes have been delivered over the connection's life, then
 * only counts what it drops. It holds no bytes itself beyond a split UTF-8 character.
 */
export class StderrCapture {
  private delivered = 0;
  private droppedBytes = 0;
  private readonly decoder = new StringDecoder("utf8");

  constructor(
    private readonly limit: number,
    private readonly handler: StderrHandler,
  ) {}

  /** Bytes received past the limit and discarded. */
  get dropped(): number {
    return this.droppedBytes;
  }

  push(chunk: Buffer): void {
    const room = this.limit - this.delivered;
    if (room <= 0) {
      this.droppedBytes += chunk.length;
      return;
    }
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.delivered += part.length;
    this.droppedBytes += chunk.length - part.length;
    this.deliver(this.decoder.write(part));
  }

  /** The stream ended: delivers a trailing partial character, unless the limit cut the text. */
  end(): void {
    const rest = this.decoder.end();
    if (this.droppedBytes === 0) this.deliver(rest);
  }

  private deliver(text: string): void {
    if (text === "") return;
    try {
      this.handler(text);
    } catch {
      // A diagnostics handler must not take the connection down; nothing is logged by design.
    }
  }
}

/**
 * Copies a child's stderr to `destination` (this process's stderr in `inherit` mode), pausing the child's
 * stream while the destination is full. Returns the function that stops it.
 */
export function forwardStderr(source: Readable, destination: Writable): () => void {
  let waiting = false;
  const resume = () => {
    waiting = false;
    source.resume();
  };
  const onData = (chunk: Buffer) => {
    if (!destination.write(chunk) && !waiting) {
      waiting = true;
      source.pause();
      destination.once("drain", resume);
    }
  };
  source.on("data", onData);
  return () => {
    source.off("data", onData);
    destination.off("drain", resume);
  };
}
