import type { ProgressParams } from "../protocol/types/index.js";
import type { OutputStream } from "./io.js";
import { oneLine } from "./table.js";

/**
 * Shows a call's progress on stderr: one line redrawn in place on a terminal, one line per update otherwise.
 *
 * @example
 * const progress = new ProgressLine(process.stderr, "add");
 * await client.callTool("add", args, { onProgress: (p) => progress.update(p) });
 * progress.clear();
 */
export class ProgressLine {
  private drawn = false;

  constructor(
    private readonly stream: OutputStream,
    private readonly label: string,
  ) {}

  /** Shows a task's status and status message. */
  status(task: { status: string; statusMessage?: string }): void {
    const message = task.statusMessage === undefined ? "" : ` ${oneLine(task.statusMessage)}`;
    this.draw(`${this.label}: ${task.status}${message}`);
  }

  update(progress: ProgressParams): void {
    const total = typeof progress.total === "number" ? progress.total : undefined;
    const amount = total === undefined ? `${progress.progress}` : `${progress.progress}/${total}`;
    const percent =
      total !== undefined && total > 0
        ? ` ${Math.min(100, Math.round((progress.progress / total) * 100))}%`
        : "";
    const message = typeof progress.message === "string" ? ` ${oneLine(progress.message)}` : "";
    this.draw(`${this.label}: ${amount}${percent}${message}`);
  }

  private draw(text: string): void {
    if (this.stream.isTTY === true) {
      const width = typeof this.stream.columns === "number" ? this.stream.columns - 1 : 200;
      this.stream.write(`\r\x1b[K${[...text].slice(0, width).join("")}`);
      this.drawn = true;
    } else {
      this.stream.write(`progress ${text}\n`);
    }
  }

  /** Clears the in-place line, if one was drawn; the next update draws it again. */
  clear(): void {
    if (this.drawn) this.stream.write("\r\x1b[K");
    this.drawn = false;
  }
}
