/**
 * `npm run bench:compare -- <git-ref> [--json <file>]`: this working tree's build of mcpkit against the build of
 * another commit, side by side in one run, on the workloads of `npm run bench` (bench/harness.mjs,
 * bench/clients.mjs): in-process, stdio, HTTP 2026-07-28 and 2025-11-25 (sequential, then concurrent clients),
 * memory per idle 2025-11-25 session and cold import. Each side is its own build's client and server, driven by
 * the same bench code; the server is `plainServer` (bench/servers.mjs), on APIs every build has, validating its
 * arguments alike on both sides. Warm-up first, the two builds alternate within each round (the order rotates),
 * medians over the rounds; prints new / old per row. See docs/performance.md.
 *
 * `<git-ref>` is built in a temporary clone (bench/build-ref.mjs), cached by commit under
 * node_modules/.cache/bench-compare/<sha>. The working tree's `dist/` must be fresh: the npm script builds it.
 * Env: BENCH_SCALE=smoke (tiny counts, for CI) or full; BENCH_ROUNDS=<n>; BENCH_ONLY=inprocess,stdio,http,memory,cold.
 */
import { writeFileSync } from "node:fs";
import { buildRef } from "./build-ref.mjs";
import { mcpkitClients } from "./clients.mjs";
import { coldImport } from "./footprint.mjs";
import {
  collect,
  concurrent,
  gitCommit,
  log,
  machine,
  median,
  scaleFromEnv,
  sequential,
  sessionMemory,
  startPeer,
} from "./harness.mjs";
import { hasValidateOption, loadKit, SELF } from "./kit.mjs";
import { LEGACY, MODERN, plainServer } from "./servers.mjs";
import { fmt, markdownTable, ratio } from "./table.mjs";

const USAGE = "usage: npm run bench:compare -- <git-ref> [--json <file>]";
const argv = process.argv.slice(2);
let ref;
let jsonFile;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--json") jsonFile = argv[++i];
  else if (argv[i].startsWith("--json=")) jsonFile = argv[i].slice("--json=".length);
  else if (ref === undefined && !argv[i].startsWith("-")) ref = argv[i];
  else throw new Error(`${USAGE}\nunexpected argument ${argv[i]}`);
}
if (ref === undefined || jsonFile === "") throw new Error(USAGE);

const { name: scaleName, scale: S } = scaleFromEnv();
const SECTIONS = ["inprocess", "stdio", "http", "memory", "cold"];
const only = new Set((process.env.BENCH_ONLY ?? SECTIONS.join(",")).split(",").map((s) => s.trim()));
for (const name of only) if (!SECTIONS.includes(name)) throw new Error(`BENCH_ONLY: unknown section ${name}`);

const started = performance.now();
const old = await buildRef(ref);
const buildSeconds = (performance.now() - started) / 1000;
const current = gitCommit();
const IMPLS = ["new", "old"];
const kits = { new: await loadKit(SELF), old: await loadKit(old.dir) };

// Like with like: both servers validate their arguments (each build's default) when both builds can; when one
// predates argument validation, the other is given `validate: false`.
const hasOption = { new: hasValidateOption(kits.new), old: hasValidateOption(kits.old) };
const validated = hasOption.new && hasOption.old;
const validateOf = (impl) => (validated || !hasOption[impl] ? undefined : false);
const flags = (impl) => [
  `--kit=${kits[impl].root}`,
  "--plain",
  ...(validateOf(impl) === false ? ["--no-validate"] : []),
];
const drivers = Object.fromEntries(
  IMPLS.map((impl) => [
    impl,
    mcpkitClients(kits[impl], {
      server: () => plainServer(kits[impl].server, validateOf(impl)),
      peerFlags: flags(impl),
    }),
  ]),
);

const count = (warm, n) => (warm ? Math.ceil(n / 5) : n);
const samples = {};
if (only.has("inprocess")) {
  samples.inProcess = await collect(
    `in-process, ${S.inProcess} sequential calls`,
    IMPLS,
    S.rounds,
    (impl, warm) => sequential(() => drivers[impl].inProcess(), count(warm, S.inProcess)),
  );
}
if (only.has("stdio")) {
  samples.stdio = await collect(`stdio, ${S.stdio} sequential calls`, IMPLS, S.rounds, (impl, warm) =>
    sequential(() => drivers[impl].stdio(), count(warm, S.stdio), warm ? 0 : S.stdioWarmup),
  );
}
for (const era of only.has("http") ? [MODERN, LEGACY] : []) {
  const peers = {};
  for (const impl of IMPLS) peers[impl] = await startPeer("mcpkit", era, { flags: flags(impl) });
  try {
    const connect = (impl) => () => drivers[impl].http(peers[impl].url, era);
    samples[`seq${era}`] = await collect(
      `HTTP ${era}, ${S.httpSequential} sequential calls`,
      IMPLS,
      S.rounds,
      (impl, warm) => sequential(connect(impl), count(warm, S.httpSequential)),
    );
    const label = `HTTP ${era}, ${S.clients} clients x ${S.callsPerClient} calls`;
    samples[`conc${era}`] = await collect(label, IMPLS, S.rounds, (impl, warm) =>
      concurrent(connect(impl), S.clients, count(warm, S.callsPerClient)),
    );
  } finally {
    await Promise.all(Object.values(peers).map((peer) => peer.stop()));
  }
}
if (only.has("memory")) {
  samples.memory = await collect(
    `memory, 2 x ${S.sessions} idle 2025-11-25 HTTP sessions`,
    IMPLS,
    S.rounds,
    (impl, warm) => sessionMemory("mcpkit", S.sessions, warm, flags(impl)),
  );
}
if (only.has("cold")) {
  samples.cold = await collect(
    `cold import of client + server, ${S.coldRuns} runs`,
    IMPLS,
    S.rounds,
    async (impl, warm) => {
      const runs = [];
      for (let i = 0; i < (warm ? 1 : S.coldRuns); i++)
        runs.push(await coldImport("mcpkit", kits[impl].root));
      return { ms: median(runs) };
    },
  );
}

// ---- rows: medians, new / old, and the spread of the per-round ratios ----
const conc = `${S.clients}x${S.callsPerClient}`;
const ROWS = [
  ["inProcess", "rate", "in-process calls/s", "/s", true],
  ["stdio", "rate", "stdio calls/s", "/s", true],
  ...[MODERN, LEGACY].flatMap((era) => [
    [`seq${era}`, "rate", `HTTP ${era} sequential calls/s`, "/s", true],
    [`conc${era}`, "rate", `HTTP ${era} ${conc} calls/s`, "/s", true],
    [`conc${era}`, "p99", `HTTP ${era} ${conc} p99 latency`, "ms", false],
  ]),
  ["memory", "rss", `RSS per idle 2025-11-25 session (${S.sessions} more)`, "KB", false],
  ["memory", "heap", `heap per idle 2025-11-25 session (${S.sessions} more)`, "KB", false],
  ["cold", "ms", "cold import of client + server", "ms", false],
];
const rows = [];
for (const [section, metric, name, unit, higher] of ROWS) {
  const set = samples[section];
  if (set === undefined) continue;
  const per = (impl) => set[impl].map((s) => s[metric]);
  const roundRatios = per("new").map((v, r) => v / per("old")[r]);
  const key = section === "memory" || metric === "p99" ? `${section}:${metric}` : section;
  rows.push({ key, name, unit, higher, new: median(per("new")), old: median(per("old")), roundRatios });
}

const short = (sha) => sha.slice(0, 12);
const oldLabel = `old: ${ref} (${short(old.sha)})`;
const newLabel = `new: working tree (${short(current.commit)}${current.dirty ? ", modified" : ""})`;
const spread = (list) => {
  const finite = list.filter(Number.isFinite);
  return finite.length === 0 ? "n/a" : `${Math.min(...finite).toFixed(2)}-${Math.max(...finite).toFixed(2)}`;
};
const header = ["workload", "new", "old", "new / old", "per round"];
const cells = rows.map((row) => [
  row.name,
  fmt(row.new, row.unit),
  fmt(row.old, row.unit),
  `${ratio(row.new, row.old)} ${row.higher ? "↑" : "↓"}`,
  spread(row.roundRatios),
]);
const seconds = (performance.now() - started) / 1000;
const host = machine();
const validation = validated
  ? "both servers validate their arguments (raw JSON Schema, each build's default)"
  : `no argument validation on either side (${hasOption.old ? "the working tree" : ref} has none; the other runs with validate: false)`;

console.log(`mcpkit build comparison, scale ${scaleName}, ${S.rounds} rounds (medians), warm-up first`);
console.log(`${newLabel}; ${oldLabel}${old.cached ? ", cached build" : ""}`);
console.log(
  `node ${host.node}, ${host.platform}, ${host.cpu}, ${host.cores} cores, load ${host.loadAverage.join(" ")}`,
);
console.log(`each side: its own build's client and server, the same bench code; ${validation}`);
console.log("new / old: ↑ higher is better (throughput), ↓ lower is better (latency, memory, time);");
console.log("per round: the lowest and highest new / old of the rounds (the two ran back to back in each).");
console.log("");
console.log(markdownTable(header, cells));
console.log("");
console.log(`done in ${seconds.toFixed(1)} s (of which ${buildSeconds.toFixed(1)} s to get the old build)`);

if (jsonFile !== undefined) {
  const result = {
    format: 1,
    date: new Date().toISOString(),
    scale: scaleName,
    rounds: S.rounds,
    counts: S,
    seconds: Number(seconds.toFixed(1)),
    new: current,
    old: { ref, commit: old.sha, cached: old.cached },
    validated,
    machine: host,
    rows,
  };
  writeFileSync(jsonFile, `${JSON.stringify(result, null, 2)}\n`);
  log(`written to ${jsonFile}`);
}
