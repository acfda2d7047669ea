import {
  descendantsOf,
  findMarked,
  isSameLiveProcess,
  type ProcessOps,
  type ProcStat,
} from "./process-tree.js";

/** How the root process ended: an exit code, or the signal that killed it. */
export interface StdioExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What one run of the close sequence did. Pid lists are bounded; the counts are exact. */
export interface StdioCleanupReport {
  /** What started the sequence. */
  trigger: "close" | "protocol" | "exit" | "eof" | "io";
  /** How the root process ended; `undefined` when it was still running at the end (a failure). */
  rootExit: StdioExit | undefined;
  /** The signals delivered to the process group (a group already empty is not signalled). */
  groupSignals: NodeJS.Signals[];
  /** `done` on Linux; `skipped` elsewhere (no `/proc`: only the group is signalled). */
  sweep: "done" | "skipped";
  /** Processes besides the root found before any signal, by ancestry or marker. */
  tracked: number;
  /** Processes besides the root still alive after the group SIGKILL and killed by the sweep. */
  swept: number;
  /** Their pids (at most 64). */
  sweptPids: number[];
  /** Processes still alive when verification gave up (at most 64); empty on success. */
  survivors: number[];
  /** Signal errors other than "no such process" (at most 64). */
  problems: string[];
  /** Wall time of the whole sequence. */
  durationMs: number;
}

/** What the close sequence works on. */
export interface CleanupTarget {
  /** The root process; it leads its own process group, so this is also the group id. */
  pid: number;
  /** Start time of the root, when it could be read: guards the ancestry walk and narrows the marker scan. */
  rootStartTime: number | undefined;
  marker: string;
  shutdownTimeoutMs: number;
  /** Resolves when the root has exited (and been reaped). */
  rootExited: Promise<StdioExit>;
  /** The root's exit, when it is already known. */
  exit: () => StdioExit | undefined;
  /** How long the root gets after SIGKILL (default 2,000 ms). */
  killWaitMs?: number;
  /** How long the sweep keeps killing and re-checking (default 2,000 ms). */
  verifyBudgetMs?: number;
}

/** Most pids and problems kept in a report. */
export const MAX_LISTED = 64;
/** How long the root gets to die after SIGKILL before cleanup reports it as a survivor. */
const KILL_WAIT_MS = 2_000;
/** How long the sweep keeps killing and re-checking marked processes. */
const VERIFY_BUDGET_MS = 2_000;

/**
 * The close sequence after stdin has ended: SIGTERM to the group (and to tracked processes that left it),
 * wait up to the budget for the root, SIGKILL the group, then on Linux kill every process that carries the
 * marker or descended from the root, checking each start time right before signalling so a recycled pid is
 * never hit, until none is left or the verification budget ends (after one kill and one re-check at least).
 * Never throws; the report says what failed.
 */
export async function runCleanup(
  target: CleanupTarget,
  ops: ProcessOps,
  trigger: StdioCleanupReport["trigger"],
): Promise<StdioCleanupReport> {
  const started = performance.now();
  const report: StdioCleanupReport = {
    trigger,
    rootExit: target.exit(),
    groupSignals: [],
    sweep: ops.platform === "linux" ? "done" : "skipped",
    tracked: 0,
    swept: 0,
    sweptPids: [],
    survivors: [],
    problems: [],
    durationMs: 0,
  };
  const linux = report.sweep === "done";
  const tracked = linux ? track(target, ops, report) : new Map<number, number>();
  report.tracked = tracked.size;

  signalGroup(target.pid, "SIGTERM", ops, report);
  for (const [pid, startTime] of tracked) {
    // Group members already got it; this reaches those that left the group (setsid, setpgid).
    if (ops.stat(pid)?.pgrp !== target.pid) signalChecked(pid, startTime, "SIGTERM", ops, report);
  }
  report.rootExit ??= await within(target.rootExited, target.shutdownTimeoutMs);
  signalGroup(target.pid, "SIGKILL", ops, report);
  report.rootExit ??= await within(target.rootExited, target.killWaitMs ?? KILL_WAIT_MS);

  if (linux) await sweep(target, ops, tracked, report);
  if (report.rootExit === undefined) report.survivors.unshift(target.pid);
  report.survivors.splice(MAX_LISTED);
  report.durationMs = Math.round(performance.now() - started);
  return report;
}

/** True when the report shows a process left behind or a root that would not die. */
export function cleanupFailed(report: StdioCleanupReport): boolean {
  return report.survivors.length > 0 || report.rootExit === undefined;
}

/** Snapshot before any signal: descendants by ancestry (while the root lives) plus every marked process. */
function track(target: CleanupTarget, ops: ProcessOps, report: StdioCleanupReport): Map<number, number> {
  let table: ProcStat[];
  try {
    table = ops.scan();
  } catch (error) {
    note(report, `reading /proc failed: ${String(error)}`);
    return new Map();
  }
  const tracked = new Map<number, number>();
  const root = table.find((stat) => stat.pid === target.pid);
  // The root is reaped only on this thread, so a live root seen here is ours and its children are ours.
  if (target.exit() === undefined && root && root.startTime === target.rootStartTime) {
    for (const [pid, startTime] of descendantsOf(table, target.pid)) tracked.set(pid, startTime);
  }
  for (const stat of table) {
    if (stat.pid === target.pid || stat.pid === process.pid || tracked.has(stat.pid)) continue;
    if (stat.state === "Z" || stat.state === "X") continue;
    if (target.rootStartTime !== undefined && stat.startTime < target.rootStartTime) continue;
    if (ops.carriesMarker(stat.pid, target.marker)) tracked.set(stat.pid, stat.startTime);
  }
  return tracked;
}

async function sweep(
  target: CleanupTarget,
  ops: ProcessOps,
  tracked: Map<number, number>,
  report: StdioCleanupReport,
): Promise<void> {
  const deadline = performance.now() + (target.verifyBudgetMs ?? VERIFY_BUDGET_MS);
  const killed = new Set<number>();
  for (let pause = 2, pass = 0; ; pause = Math.min(pause * 2, 50), pass++) {
    const alive = new Map<number, number>();
    for (const [pid, startTime] of tracked) {
      if (isSameLiveProcess(ops.stat(pid), startTime)) alive.set(pid, startTime);
    }
    let marked: Map<number, number>;
    try {
      marked = findMarked(ops, target.marker, target.rootStartTime);
    } catch (error) {
      note(report, `reading /proc failed: ${String(error)}`);
      marked = new Map();
    }
    for (const [pid, startTime] of marked) {
      if (pid === target.pid) continue;
      alive.set(pid, startTime);
      tracked.set(pid, startTime);
    }
    if (alive.size === 0) return;
    // The first pass always kills, and the pass after it always re-checks: a machine that stalls through the
    // whole budget (a loaded CI host) must not leave a process it has not even signalled as a survivor.
    if (pass > 0 && performance.now() >= deadline) {
      report.survivors.push(...[...alive.keys()].slice(0, MAX_LISTED));
      return;
    }
    for (const [pid, startTime] of alive) {
      if (!killed.has(pid)) {
        killed.add(pid);
        report.swept++;
        if (report.sweptPids.length < MAX_LISTED) report.sweptPids.push(pid);
      }
      signalChecked(pid, startTime, "SIGKILL", ops, report);
    }
    await delay(pause);
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals, ops: ProcessOps, report: StdioCleanupReport) {
  try {
    ops.kill(-pgid, signal);
    report.groupSignals.push(signal);
  } catch (error) {
    if (errorCode(error) !== "ESRCH") note(report, `${signal} to group ${pgid}: ${errorCode(error)}`);
  }
}

/** Signals `pid` only if it is still the process recorded with `startTime` (never a recycled pid). */
function signalChecked(
  pid: number,
  startTime: number,
  signal: NodeJS.Signals,
  ops: ProcessOps,
  report: StdioCleanupReport,
): void {
  if (!isSameLiveProcess(ops.stat(pid), startTime)) return;
  try {
    ops.kill(pid, signal);
  } catch (error) {
    if (errorCode(error) !== "ESRCH") note(report, `${signal} to ${pid}: ${errorCode(error)}`);
  }
}

function note(report: StdioCleanupReport, problem: string): void {
  if (report.problems.length < MAX_LISTED) report.problems.push(problem);
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : String(error);
}

/** `promise`'s value, or `undefined` once `ms` have passed first. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
