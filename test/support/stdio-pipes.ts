import { PassThrough } from "node:stream";

/** An in-memory stdin and stdout for a stdio transport, and what was written to the stdout. */
export interface StdioPipes {
  input: PassThrough;
  output: PassThrough;
  /** The complete lines written to `output` so far. */
  lines: string[];
  /** Each of {@link lines} parsed as JSON. */
  frames(): { [key: string]: unknown }[];
  /** Writes each message to `input` as one line (a string as it is, anything else as JSON). */
  write(...messages: unknown[]): boolean;
  /** What was written to `output` after its last newline. */
  partial(): string;
}

/**
 * An input and an output stream, with the output's lines collected as they are written.
 *
 * @example
 * const io = stdioPipes();
 * new StdioServerTransport({ input: io.input, output: io.output });
 * io.write({ jsonrpc: "2.0", id: 1, method: "ping" });
 */
export function stdioPipes(): StdioPipes {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: string[] = [];
  let rest = "";
  output.on("data", (chunk: Buffer) => {
    const parts = (rest + chunk.toString("utf8")).split("\n");
    rest = parts.pop() ?? "";
    lines.push(...parts);
  });
  return {
    input,
    output,
    lines,
    frames: () => lines.map((line) => JSON.parse(line) as { [key: string]: unknown }),
    write: (...messages) =>
      input.write(`${messages.map((m) => (typeof m === "string" ? m : JSON.stringify(m))).join("\n")}\n`),
    partial: () => rest,
  };
}
