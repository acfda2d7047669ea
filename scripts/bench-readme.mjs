// `npm run bench:readme`: rewrites the performance sentence of README.md and the recorded run in
// docs/performance.md from docs/bench/latest.json (scripts/bench-claims.mjs). `--check` rewrites nothing and
// exits 1 when either text differs from what the JSON gives (test/bench-claims.test.ts checks the same).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { between, currentText, LATEST, ROOT, readLatest, TARGETS } from "./bench-claims.mjs";

const check = process.argv.includes("--check");
const run = readLatest();
let stale = 0;
for (const target of TARGETS) {
  const path = join(ROOT, target.file);
  const text = readFileSync(path, "utf8");
  const body = target.render(run);
  if (currentText(text, target.start, target.end) === body) {
    console.log(`${target.file}: up to date with ${LATEST}`);
  } else if (check) {
    stale++;
    console.error(
      `${target.file}: the text between ${target.start} and ${target.end} is not what ${LATEST} gives`,
    );
  } else {
    writeFileSync(path, between(text, target.start, target.end, body));
    console.log(`${target.file}: rewritten from ${LATEST}`);
  }
}
if (stale > 0) process.exit(1);
