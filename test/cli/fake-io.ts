import { PassThrough, Writable } from "node:stream";
import type { CliIo } from "../../src/cli/io.js";

/** A sink that keeps what was written. */
class Capture extends Writable {
  text = "";
  isTTY?: boolean;
  columns?: number;
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

/** Injected stdout, stderr and stdin for `runCli`, with an interrupt the test can fire. */
export function fakeIo(options: { tty?: boolean; input?: string; columns?: number } = {}) {
  const stdout = new Capture();
  const stderr = new Capture();
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (options.tty === true) {
    stdin.isTTY = true;
    stdout.isTTY = true;
    stdout.columns = options.columns ?? 100;
    stderr.isTTY = true;
    stderr.columns = options.columns ?? 100;
  }
  if (options.input !== undefined) stdin.end(options.input);
  const interrupt = new AbortController();
  const io: CliIo = { stdout, stderr, stdin, interrupt: interrupt.signal };
  return { io, stdout, stderr, stdin, interrupt };
}
