import { readdirSync, readFileSync } from "node:fs";

/**
 * The environment variable that carries cleanup markers: one token per launch, `:`-separated, newest last. A
 * launched program inherits it, and so does everything it starts, unless a program deliberately drops it.
 */
export const STDIO_MARKER_ENV = "MCPKIT_STDIO_MARKER";

/** One process as `/proc/<pid>/stat` shows it. */
export interface ProcStat {
  pid: number;
  ppid: number;
  /** Process group id. */
  pgrp: number;
  /** One letter: `R`, `S`, `D`, `Z` (zombie), `T`, `X` (dead), ... */
  state: string;
  /** Start time in clock ticks since boot: with the pid, it names one process even across pid reuse. */
  startTime: number;
}

/**
 * The process-table operations cleanup needs. The real ones read Linux `/proc` and send signals; tests pass
 * stand-ins to provoke failures the kernel would not produce on demand.
 */
export interface ProcessOps {
  readonly platform: NodeJS.Platform;
  /** Every process, read in one pass over `/proc/*\/stat`. */
  scan(): ProcStat[];
  /** One process, or `undefined` when it is gone. */
  stat(pid: number): ProcStat | undefined;
  /** True when the process's initial environment carries `marker` in {@link STDIO_MARKER_ENV}. */
  carriesMarker(pid: number, marker: string): boolean;
  /** `process.kill`: a negative pid signals a process group. Throws as `process.kill` does. */
  kill(pid: number, signal: NodeJS.Signals): void;
}

/** Parses the text of `/proc/<pid>/stat`; the command name may hold spaces and parentheses. */
export function parseStat(text: string): ProcStat | undefined {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  // After ") ": field 3 (state) is index 0, so field n is index n - 3; starttime is field 22.
  const fields = text.slice(close + 2).split(" ");
  const stat: ProcStat = {
    pid: Number(text.slice(0, open)),
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    state: fields[0] ?? "",
    startTime: Number(fields[19]),
  };
  const numbers = [stat.pid, stat.ppid, stat.pgrp, stat.startTime];
  if (stat.state.length !== 1 || !numbers.every(Number.isSafeInteger)) return undefined;
  return stat;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, "latin1"));
  } catch {
    return undefined;
  }
}

function scanProc(): ProcStat[] {
  const table: ProcStat[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) table.push(stat);
  }
  return table;
}

/** True when an environment block (`NAME=value\0...`) lists `marker` in {@link STDIO_MARKER_ENV}. */
export function environHasMarker(environ: string, marker: string): boolean {
  const prefix = `${STDIO_MARKER_ENV}=`;
  for (const entry of environ.split("\0")) {
    if (entry.startsWith(prefix)) return entry.slice(prefix.length).split(":").includes(marker);
  }
  return false;
}

function readMarker(pid: number, marker: string): boolean {
  try {
    return environHasMarker(readFileSync(`/proc/${pid}/environ`, "latin1"), marker);
  } catch {
    // Gone, or not ours to read: either way not a process this launch can account for.
    return false;
  }
}

/** The real process table of this host. */
export const systemProcessOps: ProcessOps = {
  platform: process.platform,
  scan: scanProc,
  stat: readStat,
  carriesMarker: readMarker,
  kill: (pid, signal) => {
    process.kill(pid, signal);
  },
};

/** True when `stat` is the same live process that was recorded with `startTime`. */
export function isSameLiveProcess(stat: ProcStat | undefined, startTime: number): stat is ProcStat {
  return stat !== undefined && stat.startTime === startTime && stat.state !== "Z" && stat.state !== "X";
}

/**
 * The live processes that carry `marker`, as a map from pid to start time. `since` (a start time) skips every
 * process started before it without reading its environment: nothing older than the launch can carry it.
 */
export function findMarked(ops: ProcessOps, marker: string, since?: number): Map<number, number> {
  const found = new Map<number, number>();
  for (const stat of ops.scan()) {
    if (stat.pid === process.pid || stat.state === "Z" || stat.state === "X") continue;
    if (since !== undefined && stat.startTime < since) continue;
    if (ops.carriesMarker(stat.pid, marker)) found.set(stat.pid, stat.startTime);
  }
  return found;
}

/** Every descendant of `root` in one snapshot of the table, as a map from pid to start time. */
export function descendantsOf(table: readonly ProcStat[], root: number): Map<number, number> {
  const children = new Map<number, ProcStat[]>();
  for (const stat of table) {
    const siblings = children.get(stat.ppid);
    if (siblings) siblings.push(stat);
    else children.set(stat.ppid, [stat]);
  }
  const found = new Map<number, number>();
  const queue = [root];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    for (const child of children.get(pid) ?? []) {
      if (found.has(child.pid) || child.pid === root) continue;
      found.set(child.pid, child.startTime);
      queue.push(child.pid);
    }
  }
  return found;
}
