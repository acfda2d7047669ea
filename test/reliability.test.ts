/**
 * Keeps `npm run soak` and `npm run cycles` (reliability/, run on the BUILT package) from rotting: each runs at a
 * tiny size and passes, and each fails when the server is made to leak (heap drift) or to leave a process the
 * launcher cannot catch (a survivor). The full-size runs are recorded in docs/reliability.md.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const script = (name: string) => fileURLToPath(new URL(`../reliability/${name}`, import.meta.url));

beforeAll(() => {
  if (!existsSync(`${root}/dist/node/index.js`))
    throw new Error("run `npm run build` first (npm test does): the reliability scripts import dist/");
});

/** Runs a script with `env` on top of this process's; resolves with its exit code and output. */
function run(name: string, env: { [key: string]: string }): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script(name)],
      { cwd: root, env: { ...process.env, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        resolve({ code, out: `${stdout}${stderr}` });
      },
    );
  });
}

/** Live processes whose environment carries `entry` (`NAME=value`). */
function carrying(entry: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const state = readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]?.[0];
      if (state === "Z" || state === "X") continue;
      if (readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(entry)) found.push(Number(pid));
    } catch {
      // gone or not ours to read
    }
  }
  return found;
}

/** A short soak: the smallest sizes that still cover both workloads, a looser drift bound for so few calls. */
const SMOKE_SOAK = {
  SOAK_CALLS: "600",
  SOAK_CYCLES: "60",
  SOAK_SAMPLES: "5",
  SOAK_WARMUP_PERCENT: "20",
  SOAK_MAX_DRIFT_PERCENT: "50",
};

describe("npm run soak, smoke size", () => {
  it("passes against the mcpkit server, every call answered and no session left", {
    timeout: 90_000,
  }, async () => {
    const { code, out } = await run("soak.mjs", SMOKE_SOAK);
    expect(out).toContain("600 tools/call (2026-07-28), 0 failed");
    expect(out).toContain("60 open/call/DELETE cycles (2025-11-25)");
    expect(out).toContain("0 sessions, 0 subscriptions open");
    expect(out).toContain("PASS");
    expect(code).toBe(0);
  });

  it("fails when the server's heap grows past the bound", { timeout: 90_000 }, async () => {
    // 20 KB kept per `add` call: about 8 MB after the warm-up, well over half of a ~6 MB baseline heap.
    const { code, out } = await run("soak.mjs", {
      ...SMOKE_SOAK,
      SOAK_CALLS: "1000",
      SOAK_CYCLES: "0",
      SOAK_INJECT_LEAK_BYTES: "20000",
    });
    expect(out).toMatch(/FAIL: heap drift \d+\.\d% over the warm-up baseline \(max 50%\)/);
    expect(code).toBe(1);
  });
});

describe.runIf(process.platform === "linux")("npm run cycles, smoke size", () => {
  it("passes: no survivor, no child, no descriptor left", { timeout: 90_000 }, async () => {
    const { code, out } = await run("cycles.mjs", { CYCLES: "2" });
    expect(out).toContain("2 in ");
    expect(out).toMatch(/survivors: {2}0 \(markers scanned: 2\), children of this process 0/);
    expect(out).toContain("PASS");
    expect(code).toBe(0);
  });

  it("fails on a process that escaped the launcher, and kills it", { timeout: 90_000 }, async () => {
    const { code, out } = await run("cycles.mjs", { CYCLES: "1", CYCLES_INJECT_SURVIVOR: "1" });
    // One from the warm-up cycle, one from the counted cycle.
    expect(out).toMatch(/FAIL: 2 processes survived: .*\/bin\/sleep 30/);
    expect(out).toContain("killed 2 of the 2 survivors");
    expect(code).toBe(1);
    const token = /\(run (mcpkit-cycles-[\w-]+)\)/.exec(out)?.[1];
    expect(token).toBeDefined();
    expect(carrying(`MCPKIT_CYCLES_RUN=${token}`)).toEqual([]);
  });
});
