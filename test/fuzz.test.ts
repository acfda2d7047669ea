/**
 * The short run of the seeded fuzz suite (fuzz/, docs/reliability.md#fuzzing): a few thousand inputs per
 * transport against real server subprocesses of the built package, with fixed seeds, and no crash, hang, lost
 * or extra answer, mismatch, corrupt output or output over its bound. Then the suite is shown to catch a server
 * that drops, repeats or crashes on an answer (FUZZ_SABOTAGE), and to replay a seed byte for byte.
 * `npm run fuzz` is the long run (100,000 inputs per transport).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const MAIN = fileURLToPath(new URL("../fuzz/main.mjs", import.meta.url));
const module = (name: string) =>
  pathToFileURL(fileURLToPath(new URL(`../fuzz/${name}`, import.meta.url))).href;

interface Summary {
  transport: string;
  inputs: number;
  runs: number;
  crash: number;
  hang: number;
  lost: number;
  extra: number;
  mismatch: number;
  corrupt: number;
  "over-limit": number;
  answers: [string, number][];
  failures: { kind: string; run: number; input: number }[];
}

/** Runs `node fuzz/main.mjs --json ...args`; resolves its summaries (its exit status says whether any failed). */
function fuzz(
  args: string[],
  env: { [name: string]: string } = {},
): Promise<{ code: number; summaries: Summary[] }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [MAIN, "--json", ...args],
      { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        try {
          const code = error ? Number(error.code ?? 1) : 0;
          resolve({ code, summaries: JSON.parse(stdout) as Summary[] });
        } catch (parseError) {
          reject(new Error(`fuzz printed no summary (${String(parseError)}): ${stderr.slice(-2000)}`));
        }
      },
    );
  });
}

const FAILURES = ["crash", "hang", "lost", "extra", "mismatch", "corrupt", "over-limit"] as const;
const failuresOf = (summary: Summary) => Object.fromEntries(FAILURES.map((kind) => [kind, summary[kind]]));
const NONE = Object.fromEntries(FAILURES.map((kind) => [kind, 0]));

beforeAll(() => {
  const built = fileURLToPath(new URL("../dist/server/index.js", import.meta.url));
  expect(
    existsSync(built),
    "run `npm run build` first (npm test does): the fuzz target is the built package",
  ).toBe(true);
});

/** The short run's size per transport, and the deadline of any one test (a hang guard, not a threshold). */
const COUNT = 2_000;
const HANG_GUARD_MS = 120_000;

describe.concurrent("fuzz, short run (fixed seeds)", () => {
  it.each(["stdio", "http"])(
    `%s: seed 1, ${COUNT} inputs, every answer as the oracle says`,
    async (transport) => {
      const { code, summaries } = await fuzz(["--only", transport, "--seed", "1", "--count", String(COUNT)]);
      const [summary] = summaries;
      expect(summary?.inputs).toBe(COUNT);
      const found = summary && { ...failuresOf(summary), failures: summary.failures };
      expect(found).toEqual({ ...NONE, failures: [] });
      expect(code).toBe(0);
      // Not a vacuous pass: the answers cover success, tool errors and every JSON-RPC refusal class.
      const classes = new Set(summary?.answers.map(([cls]) => cls.replace(/^\d+ /, "")));
      for (const cls of ["ok", "tool-error", "e-32700", "e-32600", "e-32601", "e-32602"]) {
        expect(classes).toContain(cls);
      }
    },
    HANG_GUARD_MS,
  );
});

describe.concurrent("fuzz catches a broken server", () => {
  it.each([
    ["stdio", "drop:150", "lost"],
    ["stdio", "extra:150", "extra"],
    ["http", "crash:150", "crash"],
  ] as const)(
    "%s with FUZZ_SABOTAGE=%s: reports %s, with the run and input",
    async (transport, sabotage, kind) => {
      // A short deadline: the dropped answer is one that never comes.
      const args = ["--only", transport, "--seed", "2", "--count", "300", "--deadline", "3000"];
      const { code, summaries } = await fuzz(args, { FUZZ_SABOTAGE: sabotage });
      const [summary] = summaries;
      expect(code).toBe(1);
      expect(summary?.[kind]).toBeGreaterThan(0);
      const failure = summary?.failures.find((f) => f.kind === kind);
      expect(failure).toMatchObject({ run: 0, input: expect.any(Number) });
    },
    HANG_GUARD_MS,
  );
});

describe("fuzz inputs are seeded", () => {
  it("replays a seed byte for byte, and another seed differs", async () => {
    const { plan } = (await import(module("run-stdio.mjs"))) as {
      plan: (
        seed: number,
        transport: string,
        count: number,
        sizes: [number, number],
      ) => { rng: unknown; size: number; first: number }[];
    };
    const { stdioRun } = (await import(module("gen-stdio.mjs"))) as {
      stdioRun: (
        rng: unknown,
        options: { size: number; firstIndex: number },
      ) => { inputs: { bytes: Buffer }[] };
    };
    const bytesOf = (seed: number) => {
      const [run] = plan(seed, "stdio", 300, [300, 300]);
      if (!run) throw new Error("no run");
      return Buffer.concat(
        stdioRun(run.rng, { size: run.size, firstIndex: 0 }).inputs.map((input) => input.bytes),
      );
    };
    expect(bytesOf(7).equals(bytesOf(7))).toBe(true);
    expect(bytesOf(7).equals(bytesOf(8))).toBe(false);
  });
});
