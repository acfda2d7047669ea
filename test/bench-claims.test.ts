// The performance claims are generated from the latest recorded full run (docs/bench/latest.json) by
// scripts/bench-claims.mjs: README.md and docs/performance.md must hold exactly that text between their markers,
// and the README no speed claim of its own outside them. Nothing here runs or times a benchmark.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type BenchRun,
  currentText,
  LATEST,
  performanceText,
  ROOT,
  readLatest,
  readmeText,
  TARGETS,
} from "../scripts/bench-claims.mjs";

const run = readLatest();
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

describe("the performance claims", () => {
  it(`${LATEST} is a full run of a commit`, () => {
    expect(run.format).toBe(1);
    expect(run.scale).toBe("full");
    expect(run.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(Number.isNaN(Date.parse(run.date))).toBe(false);
  });

  for (const target of TARGETS) {
    it(`${target.file} holds what ${LATEST} gives between ${target.start} and ${target.end}`, () => {
      expect(currentText(read(target.file), target.start, target.end)).toBe(target.render(run));
    });
  }

  it("the README makes no speed claim outside the markers", () => {
    const readme = read("README.md");
    const [target] = TARGETS;
    if (target === undefined) throw new Error("no README target");
    const outside = readme.slice(0, readme.indexOf(target.start)) + readme.slice(readme.indexOf(target.end));
    expect(outside.match(/\b\d+(\.\d+)?x\b/g) ?? []).toEqual([]);
    expect(outside).not.toMatch(/\bfaster\b|\bx the\b/i);
  });

  it("every figure of the texts comes from the run", () => {
    const copy: BenchRun = structuredClone(run);
    const inProcess = copy.rows.find((row) => row.key === "inProcess");
    if (inProcess === undefined) throw new Error("no in-process row");
    const best = Math.max(inProcess.values.v1 ?? 0, inProcess.values.v2 ?? 0);
    inProcess.values.mcpkit = best * 9.87;
    copy.date = "2001-02-03T04:05:06.000Z";
    copy.commit = "abcdef0".padEnd(40, "0");
    for (const render of [readmeText, performanceText]) {
      const text = render(copy);
      expect(text).toContain("9.87x");
      expect(text).toContain("2001-02-03");
      expect(text).toContain("abcdef0");
      expect(text).not.toBe(render(run));
    }
  });
});
