import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";

/**
 * Reads answers line by line from a stream, asking each question on `output`. `ask` resolves `null` at the end
 * of input (Ctrl-D) and rejects when `signal` fires. Lines typed ahead are kept, in order.
 */
export class LineReader {
  private readonly lines: string[] = [];
  private waiting: ((line: string | null) => void) | undefined;
  private ended = false;
  private readonly rl: Interface;

  constructor(
    input: Readable,
    private readonly output: Writable,
  ) {
    const terminal =
      (input as { isTTY?: boolean }).isTTY === true && (output as { isTTY?: boolean }).isTTY === true;
    this.rl = createInterface({ input, output, terminal });
    this.rl.on("line", (line) => this.deliver(line));
    this.rl.on("close", () => {
      this.ended = true;
      this.deliver(null);
    });
  }

  ask(question: string, signal?: AbortSignal): Promise<string | null> {
    signal?.throwIfAborted();
    this.output.write(question);
    const typed = this.lines.shift();
    if (typed !== undefined) return Promise.resolve(typed);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiting = undefined;
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting = (line) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(line);
      };
    });
  }

  close(): void {
    this.rl.close();
  }

  private deliver(line: string | null): void {
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      waiting(line);
    } else if (line !== null) this.lines.push(line);
  }
}
