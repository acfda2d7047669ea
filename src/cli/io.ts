import type { Readable, Writable } from "node:stream";

/** A stream the CLI writes to; `isTTY` and `columns` as on `process.stdout`. */
export type OutputStream = Writable & { isTTY?: boolean; columns?: number };

/** The process the CLI runs in, injectable for tests. */
export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  stdin: Readable & { isTTY?: boolean };
  /** Fires on Ctrl-C (SIGINT): a call is cancelled, `listen` ends. */
  interrupt: AbortSignal;
  /** Where `inspect` finds its page (`page.js`, `page.css`); default: `inspect/` beside the built CLI. */
  inspectorAssets?: URL;
}

/** Writes results: JSON documents with `--json`, human text otherwise, notes to stderr. */
export class Output {
  /** A line drawn in place on stderr (progress), cleared before anything else is written there. */
  transient: { clear(): void } | undefined;

  constructor(
    readonly io: CliIo,
    readonly json: boolean,
  ) {}

  /** Prints a command's result: `value` as JSON with `--json`, else `human()`. */
  result(value: unknown, human: () => string): void {
    this.io.stdout.write(this.json ? `${JSON.stringify(value, null, 2)}\n` : human());
  }

  /** One JSON document per line (`listen --json`), or a human line. */
  line(value: unknown, human: string): void {
    this.io.stdout.write(this.json ? `${JSON.stringify(value)}\n` : `${human}\n`);
  }

  /** A line on stderr (a log message), after clearing a progress line drawn in place. */
  stderrLine(text: string): void {
    this.transient?.clear();
    this.io.stderr.write(`${text}\n`);
  }

  /** A note for the person at the terminal, on stderr (never with `--json`, which keeps stderr for errors). */
  note(text: string): void {
    if (!this.json) this.stderrLine(text);
  }

  /** The width to cut table lines to: the terminal's, or none when stdout is not a terminal. */
  get width(): number | undefined {
    const { stdout } = this.io;
    return stdout.isTTY === true && typeof stdout.columns === "number" ? stdout.columns : undefined;
  }
}
