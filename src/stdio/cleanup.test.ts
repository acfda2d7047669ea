import { describe, expect, it } from "vitest";
import { type CleanupTarget, cleanupFailed, runCleanup, type StdioExit } from "./cleanup.js";
import type { ProcessOps, ProcStat } from "./process-tree.js";

const ROOT = 100;
const MARKER = "marker-under-test";

interface FakeProcess extends ProcStat {
  marked: boolean;
  /** Signals this process ignores. */
  ignores: NodeJS.Signals[];
  /** `kill` of this pid fails with this errno code. */
  refuses?: string;
}

/** A process table in memory: signals kill unless ignored or refused; the root's death resolves `exited`. */
function fakeTable(platform: NodeJS.Platform = "linux") {
  const table = new Map<number, FakeProcess>();
  const signals: string[] = [];
  let resolveExit!: (exit: StdioExit) => void;
  const exited = new Promise<StdioExit>((resolve) => {
    resolveExit = resolve;
  });
  let exit: StdioExit | undefined;
  const deliver = (proc: FakeProcess, signal: NodeJS.Signals) => {
    if (proc.ignores.includes(signal)) return;
    table.delete(proc.pid);
    if (proc.pid === ROOT) {
      exit = { code: null, signal };
      resolveExit(exit);
    }
  };
  const ops: ProcessOps = {
    platform,
    scan: () =>
      [...table.values()].map(({ pid, ppid, pgrp, state, startTime }) => ({
        pid,
        ppid,
        pgrp,
        state,
        startTime,
      })),
    stat: (pid) => table.get(pid),
    carriesMarker: (pid, marker) => marker === MARKER && table.get(pid)?.marked === true,
    kill: (pid, signal) => {
      signals.push(`${signal} ${pid}`);
      if (pid < 0) {
        const members = [...table.values()].filter((p) => p.pgrp === -pid);
        if (members.length === 0) throw Object.assign(new Error("ESRCH"), { code: "ESRCH" });
        for (const member of members) deliver(member, signal);
        return;
      }
      const proc = table.get(pid);
      if (!proc) throw Object.assign(new Error("ESRCH"), { code: "ESRCH" });
      if (proc.refuses) throw Object.assign(new Error(proc.refuses), { code: proc.refuses });
      deliver(proc, signal);
    },
  };
  const add = (pid: number, fields: Partial<FakeProcess> = {}) =>
    table.set(pid, {
      pid,
      ppid: ROOT,
      pgrp: ROOT,
      state: "S",
      startTime: 500,
      marked: true,
      ignores: [],
      ...fields,
    });
  add(ROOT, { ppid: 1, startTime: 400 });
  const target: CleanupTarget = {
    pid: ROOT,
    rootStartTime: 400,
    marker: MARKER,
    shutdownTimeoutMs: 20,
    rootExited: exited,
    exit: () => exit,
    killWaitMs: 20,
    verifyBudgetMs: 60,
  };
  return { table, ops, signals, add, target };
}

describe("runCleanup", () => {
  it("TERMs the group and strays, KILLs the group, sweeps the rest and verifies", async () => {
    const { ops, signals, add, target, table } = fakeTable();
    add(101); // a plain group member
    add(102, { pgrp: 102, ignores: ["SIGTERM"] }); // called setsid and ignores TERM
    add(103, { pgrp: 103, ppid: 1, startTime: 450 }); // orphaned, marked, left the group
    add(104, { pgrp: 1, ppid: 1, marked: false, startTime: 10 }); // unrelated
    const report = await runCleanup(target, ops, "close");
    expect(signals.slice(0, 3)).toEqual(["SIGTERM -100", "SIGTERM 102", "SIGTERM 103"]);
    expect(signals).toContain("SIGKILL -100");
    expect(signals).toContain("SIGKILL 102");
    expect(signals.some((s) => s.endsWith(" 104"))).toBe(false);
    expect(report).toMatchObject({
      trigger: "close",
      rootExit: { signal: "SIGTERM" },
      groupSignals: ["SIGTERM"],
      sweep: "done",
      tracked: 3,
      swept: 1,
      sweptPids: [102],
      survivors: [],
      problems: [],
    });
    expect(cleanupFailed(report)).toBe(false);
    expect([...table.keys()]).toEqual([104]);
  });

  it("kills and re-checks at least once, however little of the budget is left (a loaded machine)", async () => {
    const { ops, add, target, table } = fakeTable();
    add(102, { pgrp: 102, ignores: ["SIGTERM"] });
    // A budget already spent when the sweep starts: as if the machine had stalled through all of it.
    const report = await runCleanup({ ...target, verifyBudgetMs: 0 }, ops, "close");
    expect(report).toMatchObject({ sweptPids: [102], survivors: [] });
    expect(table.has(102)).toBe(false);
  });

  it("never signals a pid whose start time changed since it was found (a recycled pid)", async () => {
    const { ops, signals, add, target, table } = fakeTable();
    add(102, { pgrp: 102, ignores: ["SIGTERM"] });
    const scan = ops.scan;
    let scans = 0;
    const recycling: ProcessOps = {
      ...ops,
      // After the first scan, pid 102 dies and an unrelated process gets its number.
      scan: () => {
        if (scans++ === 1)
          table.set(102, { ...(table.get(102) as FakeProcess), startTime: 999, marked: false });
        return scan();
      },
    };
    const report = await runCleanup(target, recycling, "exit");
    expect(signals.filter((s) => s.endsWith(" 102"))).toEqual(["SIGTERM 102"]);
    expect(report.survivors).toEqual([]);
    expect(table.has(102)).toBe(true);
  });

  it("reports a marked process it may not kill as a survivor: cleanup failed", async () => {
    const { ops, add, target } = fakeTable();
    add(105, { pgrp: 105, refuses: "EPERM" });
    const report = await runCleanup(target, ops, "protocol");
    expect(report.survivors).toEqual([105]);
    expect(report.problems).toContain("SIGKILL to 105: EPERM");
    expect(cleanupFailed(report)).toBe(true);
  });

  it("reports a root that outlives SIGKILL", async () => {
    const { ops, target, table } = fakeTable();
    (table.get(ROOT) as FakeProcess).ignores.push("SIGTERM", "SIGKILL");
    const report = await runCleanup(target, ops, "close");
    expect(report.rootExit).toBeUndefined();
    expect(report.survivors).toEqual([ROOT]);
    expect(cleanupFailed(report)).toBe(true);
  });

  it("only signals the group where there is no /proc", async () => {
    const { ops, add, target, signals } = fakeTable("darwin");
    add(102, { pgrp: 102 });
    const report = await runCleanup(target, ops, "close");
    expect(report.sweep).toBe("skipped");
    expect(signals).toEqual(["SIGTERM -100", "SIGKILL -100"]);
    expect(report.groupSignals).toEqual(["SIGTERM"]);
  });

  it("does not count an empty group as a problem", async () => {
    const { ops, target, table } = fakeTable();
    table.delete(ROOT);
    const exited: StdioExit = { code: 0, signal: null };
    const report = await runCleanup({ ...target, exit: () => exited }, ops, "exit");
    expect(report).toMatchObject({ rootExit: exited, groupSignals: [], problems: [], survivors: [] });
  });
});
