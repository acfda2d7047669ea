/**
 * The fuzz runners' view of a server subprocess: starts `server.mjs`, keeps its stderr tail and its log counts,
 * and says how and when it ended. Shared by the stdio and HTTP runners.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const SERVER = fileURLToPath(new URL("./server.mjs", import.meta.url));
const TAIL_BYTES = 4_096;

export class ServerProcess {
  constructor(mode, env = {}) {
    this.child = spawn(process.execPath, [SERVER, mode], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    this.stderrTail = "";
    this.logCounts = {};
    this.endReason = undefined;
    this.exit = new Promise((resolve) => {
      this.child.on("exit", (code, signal) => resolve({ code, signal }));
    });
    this.exited = undefined;
    this.exit.then((result) => {
      this.exited = result;
    });
    // A server that dies mid-write must not take the runner with it (EPIPE on its stdin).
    this.child.stdin.on("error", () => {});
    let pending = "";
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (text) => {
      pending += text;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) this.stderrLine(line);
      if (pending.length > TAIL_BYTES) pending = pending.slice(-TAIL_BYTES);
    });
  }

  stderrLine(line) {
    if (line.startsWith("FUZZ-LOG ")) {
      try {
        this.logCounts = JSON.parse(line.slice(9));
      } catch {}
      return;
    }
    if (line.startsWith("FUZZ-END ")) this.endReason = line.slice(9);
    this.stderrTail = `${this.stderrTail}${line}\n`.slice(-TAIL_BYTES);
  }

  get alive() {
    return this.exited === undefined;
  }

  /** Writes bytes, waiting for `drain` when the pipe is full; resolves false if the process is gone. */
  async write(bytes) {
    if (!this.alive || this.child.stdin.destroyed) return false;
    if (this.child.stdin.write(bytes)) return true;
    await Promise.race([new Promise((resolve) => this.child.stdin.once("drain", resolve)), this.exit]);
    return this.alive;
  }

  /** Ends stdin and waits up to `ms` for the process to exit; kills it (and says so) past that. */
  async end(ms) {
    this.child.stdin.end();
    return this.waitExit(ms);
  }

  async waitExit(ms) {
    let timer;
    const late = new Promise((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    });
    const result = await Promise.race([this.exit, late]);
    clearTimeout(timer);
    if (result !== undefined) {
      await new Promise((resolve) => setImmediate(resolve));
      return result;
    }
    this.child.kill("SIGKILL");
    await this.exit;
    return { code: null, signal: "SIGKILL", hung: true };
  }
}

/** A printable preview of input bytes, for a report. */
export function preview(bytes, max = 160) {
  const text = bytes.subarray(0, max).toString("latin1");
  return JSON.stringify(text) + (bytes.length > max ? ` (+${bytes.length - max} bytes)` : "");
}

/** Resolves after `ms`. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
