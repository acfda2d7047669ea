import { describe, expect, it } from "vitest";
import {
  descendantsOf,
  environHasMarker,
  findMarked,
  isSameLiveProcess,
  type ProcStat,
  parseStat,
  STDIO_MARKER_ENV,
  systemProcessOps,
} from "./process-tree.js";

const linux = process.platform === "linux";

describe("parseStat", () => {
  it("reads pid, ppid, group, state and start time, whatever the command name holds", () => {
    const tail = "S 10 12 12 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 777 1000 10";
    expect(parseStat(`42 (we) (ird) name) ${tail}`)).toEqual({
      pid: 42,
      ppid: 10,
      pgrp: 12,
      state: "S",
      startTime: 777,
    });
    expect(parseStat("garbage")).toBeUndefined();
    expect(parseStat("1 (x) S 1 2")).toBeUndefined();
  });

  it.runIf(linux)("reads this process from /proc", () => {
    const self = systemProcessOps.stat(process.pid);
    expect(self).toMatchObject({ pid: process.pid, ppid: process.ppid });
    expect(systemProcessOps.scan().some((s) => s.pid === process.pid)).toBe(true);
    expect(systemProcessOps.stat(0x7ffffff)).toBeUndefined();
  });
});

describe("markers and ancestry", () => {
  it("finds a marker among the tokens of the marker variable only", () => {
    const environ = ["PATH=/bin", `${STDIO_MARKER_ENV}=outer-1234:inner-5678`, "OTHER=inner-9999"].join("\0");
    expect(environHasMarker(environ, "inner-5678")).toBe(true);
    expect(environHasMarker(environ, "outer-1234")).toBe(true);
    expect(environHasMarker(environ, "inner-9999")).toBe(false);
    expect(environHasMarker(environ, "inner")).toBe(false);
  });

  it("walks descendants in one snapshot", () => {
    const stat = (pid: number, ppid: number): ProcStat => ({
      pid,
      ppid,
      pgrp: pid,
      state: "S",
      startTime: pid,
    });
    const table = [stat(1, 0), stat(10, 1), stat(11, 10), stat(12, 11), stat(13, 10), stat(20, 1)];
    expect([...descendantsOf(table, 10).keys()].sort()).toEqual([11, 12, 13]);
    expect(descendantsOf(table, 12).size).toBe(0);
  });

  it("treats a zombie, a dead process or another start time as not the recorded process", () => {
    const stat: ProcStat = { pid: 5, ppid: 1, pgrp: 5, state: "S", startTime: 100 };
    expect(isSameLiveProcess(stat, 100)).toBe(true);
    expect(isSameLiveProcess(stat, 101)).toBe(false);
    expect(isSameLiveProcess({ ...stat, state: "Z" }, 100)).toBe(false);
    expect(isSameLiveProcess(undefined, 100)).toBe(false);
  });

  it("skips processes older than the launch without reading their environment", () => {
    const reads: number[] = [];
    const ops = {
      ...systemProcessOps,
      scan: () => [
        { pid: 7, ppid: 1, pgrp: 7, state: "S", startTime: 50 },
        { pid: 8, ppid: 1, pgrp: 8, state: "S", startTime: 150 },
        { pid: 9, ppid: 1, pgrp: 9, state: "Z", startTime: 150 },
      ],
      carriesMarker: (pid: number) => {
        reads.push(pid);
        return true;
      },
    };
    expect([...findMarked(ops, "m", 100)]).toEqual([[8, 150]]);
    expect(reads).toEqual([8]);
  });
});
