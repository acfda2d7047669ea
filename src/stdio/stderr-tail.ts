/** Most lines of the stderr tail quoted in an error message (the whole tail is in `details.stderrTail`). */
const QUOTED_LINES = 40;

/**
 * The last `capacity` bytes a launched server wrote to stderr, in a fixed ring: memory stays at `capacity`
 * however much the child writes. It is read only to explain why a server ended (in the error of an early exit
 * or a protocol violation), never logged.
 */
export class StderrTail {
  private readonly ring: Buffer;
  /** Where the next byte goes. */
  private next = 0;
  /** Bytes held (at most the capacity). */
  private held = 0;
  private total = 0;

  constructor(readonly capacity: number) {
    this.ring = Buffer.alloc(capacity);
  }

  /** Every byte received, kept or not. */
  get receivedBytes(): number {
    return this.total;
  }

  push(chunk: Buffer): void {
    const size = this.capacity;
    this.total += chunk.length;
    if (size === 0) return;
    // Only the last `size` bytes of a large chunk can survive.
    const part = chunk.length > size ? chunk.subarray(chunk.length - size) : chunk;
    const first = Math.min(part.length, size - this.next);
    part.copy(this.ring, this.next, 0, first);
    if (first < part.length) part.copy(this.ring, 0, first);
    this.next = (this.next + part.length) % size;
    this.held = Math.min(size, this.held + part.length);
  }

  /** The tail as safe text: whole characters and lines, escape sequences and control characters removed. */
  text(): string {
    if (this.held === 0) return "";
    const start = (this.next - this.held + this.capacity) % this.capacity;
    const bytes =
      start + this.held <= this.capacity
        ? this.ring.subarray(start, start + this.held)
        : Buffer.concat([this.ring.subarray(start), this.ring.subarray(0, this.next)]);
    let text = bytes.toString("utf8");
    // A cut through a character leaves replacement characters at the start: drop them.
    if (this.total > this.held) text = text.replace(/^\uFFFD+/, "");
    return cleanLines(text);
  }

  /**
   * The tail quoted for an error message: `""` when the child wrote nothing to stderr, else a line of
   * introduction and the last lines, each prefixed with `  | ` so that the quote cannot pass for our own text.
   */
  quote(): string {
    const text = this.text();
    if (text === "") return "";
    const lines = text.split("\n");
    const shown = lines.slice(-QUOTED_LINES);
    const cut = this.total > this.held || shown.length < lines.length;
    const intro = cut ? "the end of its stderr" : "its stderr";
    return `\n${intro}:\n${shown.map((line) => (line === "" ? "  |" : `  | ${line}`)).join("\n")}`;
  }
}

/** CSI and OSC escape sequences (colours, cursor moves, titles). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing terminal escapes is the point
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g;
/** Control characters other than tab and newline. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

function cleanLines(text: string): string {
  const lines = text
    .replace(/\r\n?/g, "\n")
    .replace(ESCAPES, "")
    .replace(CONTROLS, "")
    .split("\n")
    .map((line) => line.trimEnd());
  while (lines.length > 0 && lines[0] === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.join("\n");
}
