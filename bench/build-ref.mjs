/**
 * The build of another commit, for bench/compare.mjs: a clone of this repository at that commit, installed
 * (`npm ci`) and built (`npm run build`), then cut down to what the built package needs at run time
 * (`npm prune --omit=dev`) and kept under `node_modules/.cache/bench-compare/<sha>`, so that a second
 * comparison against the same commit starts at once.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { log } from "./harness.mjs";
import { SELF } from "./kit.mjs";

const KIT = new URL("./kit.mjs", import.meta.url).href;

const MARK = ".bench-compare.json";

const git = (cwd, ...args) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

/** Runs `command` in `cwd`, its output kept in `logFile`; on failure, the log's tail goes into the error. */
function run(cwd, logFile, command, args, label = `${command} ${args.join(" ")}`) {
  const started = performance.now();
  try {
    execFileSync(command, args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
      maxBuffer: 2 ** 28,
    });
  } catch (error) {
    const out = `${error.stdout ?? ""}${error.stderr ?? ""}`;
    writeFileSync(logFile, out, { flag: "a" });
    throw new Error(`${label} failed in ${cwd}:\n${out.split("\n").slice(-30).join("\n")}`);
  }
  log(`  ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * The package directory of `ref`'s build, built now unless the cache holds it.
 * Returns `{ ref, sha, dir, cached }`.
 */
export async function buildRef(ref, { root = SELF } = {}) {
  const sha = git(root, "rev-parse", "--verify", "--end-of-options", `${ref}^{commit}`);
  const cache = resolve(root, "node_modules/.cache/bench-compare");
  const dir = join(cache, sha);
  if (existsSync(join(dir, MARK))) {
    log(`# ${ref} (${sha.slice(0, 12)}): cached build in ${dir}`);
    return { ref, sha, dir, cached: true };
  }
  log(`# building ${ref} (${sha.slice(0, 12)}) in a temporary clone`);
  mkdirSync(cache, { recursive: true });
  const tmp = mkdtempSync(join(cache, `.tmp-${sha.slice(0, 12)}-`));
  const logFile = join(cache, `${sha}.log`);
  try {
    // --shared borrows this repository's objects (nothing is copied or fetched), so any commit it holds can be
    // checked out, reachable from a branch or not. The clone's .git is dropped once the build is done.
    const source = resolve(root, git(root, "rev-parse", "--git-common-dir"));
    run(root, logFile, "git", ["clone", "--quiet", "--shared", "--no-checkout", source, tmp]);
    run(tmp, logFile, "git", ["checkout", "--quiet", "--detach", sha]);
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    run(tmp, logFile, npm, ["ci", "--no-audit", "--no-fund"]);
    run(tmp, logFile, npm, ["run", "build"]);
    run(tmp, logFile, npm, ["prune", "--omit=dev", "--no-audit", "--no-fund"]);
    rmSync(join(tmp, ".git"), { recursive: true, force: true });
    // The entries the bench drives load from the pruned build (checked in a child, not loaded here twice).
    const check = `import { loadKit } from ${JSON.stringify(KIT)}; await loadKit(${JSON.stringify(tmp)});`;
    run(tmp, logFile, process.execPath, ["--input-type=module", "-e", check], "load check");
    writeFileSync(join(tmp, MARK), `${JSON.stringify({ ref, sha, built: new Date().toISOString() })}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
  return { ref, sha, dir, cached: false };
}
