#!/usr/bin/env node
/**
 * `npm run fuzz`: the seeded fuzz suite of mcpkit's stdio frames and HTTP requests (docs/reliability.md).
 *
 *   node fuzz/main.mjs [--seed N] [--count N] [--only stdio|http] [--run R] [--json]
 *
 * --seed   the suite seed (default 1); the same seed replays the same inputs, byte for byte
 * --count  inputs per transport (default 100,000)
 * --only   one transport
 * --run    only run R of that transport (a failure report names its run and input index)
 * --show   print input I of that transport (with --only), and run nothing
 * --deadline  ms without an answer before a request counts as lost or hung (default 15,000)
 * --json   print the summary as one JSON object (for the test), not as text
 *
 * Needs the built package (`npm run build`; `npm run fuzz` builds first). Exit status 1 when anything failed.
 */
import { fuzzHttp } from "./run-http.mjs";
import { fuzzStdio } from "./run-stdio.mjs";
import { showInput } from "./show.mjs";
import { Tally } from "./tally.mjs";

const TRANSPORTS = { stdio: fuzzStdio, http: fuzzHttp };

function parse(argv) {
  const options = {
    seed: 1,
    count: 100_000,
    only: undefined,
    run: undefined,
    show: undefined,
    deadline: 15_000,
    json: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${flag} needs a value`);
      return next;
    };
    if (flag === "--seed") options.seed = integer(flag, value());
    else if (flag === "--count") options.count = integer(flag, value());
    else if (flag === "--run") options.run = integer(flag, value());
    else if (flag === "--show") options.show = integer(flag, value());
    else if (flag === "--deadline") options.deadline = integer(flag, value());
    else if (flag === "--only") {
      options.only = value();
      if (!(options.only in TRANSPORTS)) throw new Error("--only takes stdio or http");
    } else if (flag === "--json") options.json = true;
    else throw new Error(`unknown option ${flag}`);
  }
  return options;
}

function integer(flag, text) {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${flag} takes a non-negative integer`);
  return value;
}

let options;
try {
  options = parse(process.argv.slice(2));
} catch (error) {
  console.error(`fuzz: ${error.message}`);
  process.exit(2);
}

if (options.show !== undefined) {
  if (options.only === undefined) {
    console.error("fuzz: --show needs --only stdio or --only http");
    process.exit(2);
  }
  console.log(showInput(options.only, options.seed, options.show));
  process.exit(0);
}

const summaries = [];
let failed = false;
for (const [name, fuzz] of Object.entries(TRANSPORTS)) {
  if (options.only !== undefined && options.only !== name) continue;
  const tally = new Tally(name, options.seed);
  const progress = options.json
    ? undefined
    : (done) => process.stderr.write(`\r${name}: ${done.toLocaleString("en")} inputs   `);
  await fuzz({
    seed: options.seed,
    count: options.count,
    only: options.run,
    env: {},
    tally,
    progress,
    deadlineMs: options.deadline,
  });
  if (!options.json) process.stderr.write("\n");
  summaries.push(tally.summary());
  failed ||= tally.failed;
}

if (options.json) console.log(JSON.stringify(summaries));
else for (const summary of summaries) print(summary);
process.exitCode = failed ? 1 : 0;

function print(s) {
  const failures = ["crash", "hang", "lost", "extra", "mismatch", "corrupt", "over-limit"];
  console.log(
    `\n== ${s.transport}: seed ${s.seed}, ${s.inputs.toLocaleString("en")} inputs, ${s.runs} runs, ${s.seconds} s`,
  );
  console.log(`   ${failures.map((kind) => `${kind} ${s[kind]}`).join(", ")}`);
  const list = (title, map) => {
    console.log(`   ${title}:`);
    for (const [key, n] of map) console.log(`     ${String(n).padStart(8)}  ${key}`);
  };
  list("answers by class", s.answers);
  list("no answer needed", s.noAnswer);
  list("input kinds", s.inputKinds);
  if (s.serverLogs.length > 0) list("server log", s.serverLogs);
  for (const failure of s.failures) {
    console.log(`   FAIL ${JSON.stringify(failure)}`);
    const replay = `--seed ${s.seed} --count ${options.count} --only ${s.transport}`;
    console.log(`        replay: npm run fuzz -- ${replay} --run ${failure.run}`);
    console.log(`        input:  npm run fuzz -- ${replay} --show ${failure.input}`);
  }
}
