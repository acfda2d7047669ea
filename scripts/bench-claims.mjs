// The performance claims of README.md and docs/performance.md, rendered from the latest recorded full run of
// `npm run bench -- --record` (docs/bench/latest.json), never typed by hand. Each text lives between markers:
//
//   README.md              <!-- bench:start --> ... <!-- bench:end -->              the performance sentence
//   docs/performance.md    <!-- bench:table:start --> ... <!-- bench:table:end -->  the run, its machine, the table
//
// `npm run bench:readme` (scripts/bench-readme.mjs) rewrites them; test/bench-claims.test.ts fails when they
// differ from what the JSON gives. Every figure in them is computed here from the JSON.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  bestOfficial,
  fmt,
  markdownTable,
  OFFICIAL_HEADER,
  OTEL_HEADER,
  officialCells,
  otelCells,
  ratio,
} from "../bench/table.mjs";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const LATEST = "docs/bench/latest.json";

export const TARGETS = [
  { file: "README.md", start: "<!-- bench:start -->", end: "<!-- bench:end -->", render: readmeText },
  {
    file: "docs/performance.md",
    start: "<!-- bench:table:start -->",
    end: "<!-- bench:table:end -->",
    render: performanceText,
  },
];

/** docs/bench/latest.json, parsed. */
export function readLatest(root = ROOT) {
  return JSON.parse(readFileSync(join(root, LATEST), "utf8"));
}

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const count = (n) => n.toLocaleString("en-US");

function rowOf(run, key) {
  const row = run.rows.find((r) => r.key === key);
  if (row === undefined) throw new Error(`${LATEST} has no row ${key}`);
  return row;
}

/** mcpkit / the best official SDK of a row, as the table prints it (`3.04x`). */
function versusOfficial(run, key) {
  const row = rowOf(run, key);
  const text = ratio(row.values.mcpkit, bestOfficial(row));
  if (text === "n/a") throw new Error(`${LATEST}: row ${key} lacks mcpkit or an official SDK`);
  return text;
}

function describeRun(run) {
  const { machine } = run;
  return {
    date: run.date.slice(0, 10),
    commit: `${run.commit.slice(0, 7)}${run.dirty ? " with uncommitted changes" : ""}`,
    host: `a ${machine.cores}-core ${machine.cpu} (${machine.platform}) with Node ${machine.node}`,
    load: `load average ${machine.loadAverageStart[0]} at the start and ${machine.loadAverageEnd[0]} at the end`,
  };
}

/**
 * `text` wrapped at spaces to lines of at most `width` characters (continuation lines start with `indent`);
 * a code span is never broken.
 */
export function wrap(text, width = 110, indent = "") {
  const words = [];
  for (const word of text.split(" ")) {
    const last = words.length - 1;
    const open = last >= 0 && (words[last].match(/`/g) ?? []).length % 2 === 1;
    if (open) words[last] += ` ${word}`;
    else words.push(word);
  }
  const lines = [];
  let line = "";
  for (const word of words) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = `${indent}${word}`;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines.join("\n");
}

function checkFull(run) {
  if (run.format !== 1) throw new Error(`${LATEST}: unknown format ${run.format}`);
  if (run.scale !== "full") throw new Error(`${LATEST} is not a full run (scale ${run.scale})`);
}

/** The README's sentence. */
export function readmeText(run) {
  checkFull(run);
  const { date, commit, host, load } = describeRun(run);
  const v = (key) => versusOfficial(run, key);
  const validating =
    run.validation === "off"
      ? "with mcpkit's argument validation off"
      : "with every server validating its arguments";
  const clients = run.counts.clients;
  const rss = rowOf(run, "sessionRss");
  const cold = rowOf(run, "cold");
  return wrap(
    [
      "Side-by-side benchmarks against the official SDKs run with `npm run bench`",
      `([docs/performance.md](docs/performance.md)). In the latest recorded full run (${date}, commit ${commit}, on`,
      `${host}, a shared machine: ${load}; [docs/bench/latest.json](docs/bench/latest.json)), ${validating},`,
      `mcpkit made ${v("inProcess")} the best official SDK's calls per second in-process, ${v("stdio")} over stdio,`,
      `${v(`seq${MODERN}`)} over HTTP ${MODERN} (sequential; ${v(`conc${MODERN}`)} with ${clients} clients) and`,
      `${v(`seq${LEGACY}`)} over HTTP ${LEGACY} with sessions (${v(`conc${LEGACY}`)} with ${clients} clients), with`,
      `${v(`p99${MODERN}`)} (${MODERN}) and ${v(`p99${LEGACY}`)} (${LEGACY}) of the best official p99 latency at`,
      `${clients} clients, ${v("sessionRss")} of the RSS per idle session (${fmt(rss.values.mcpkit, rss.unit)}) and`,
      `${v("cold")} of the cold import time (${fmt(cold.values.mcpkit, cold.unit)}).`,
    ].join(" "),
  );
}

/** docs/performance.md: how, when and where the run was made, and its table. */
export function performanceText(run) {
  checkFull(run);
  const { date, commit, load } = describeRun(run);
  const { machine, counts } = run;
  const validation =
    run.validation === "off"
      ? "mcpkit's argument validation was off (`BENCH_MCPKIT_SCHEMA=off`)"
      : `every mcpkit server validated its arguments, like the official ones (\`BENCH_MCPKIT_SCHEMA=${run.validation}\`)`;
  const lines = [
    wrap(
      [
        `Recorded by \`npm run bench -- --record\` in [bench/latest.json](bench/latest.json) on ${date}, commit`,
        `\`${commit}\`. Machine: Node ${machine.node}, ${machine.platform}, ${machine.cpu} (${machine.cores} cores, as`,
        `reported by \`os.cpus()\`), ${machine.memoryGiB} GiB, shared with other work: ${load}. Full scale,`,
        `${run.rounds} rounds, medians; the run took ${Math.round(run.seconds)} s. Counts: in-process`,
        `${count(counts.inProcess)} calls, stdio ${count(counts.stdio)}${counts.stdioWarmup ? ` (after ${count(counts.stdioWarmup)} untimed on the same connection)` : ""}, HTTP ${count(counts.httpSequential)} sequential`,
        `and ${counts.clients} x ${counts.callsPerClient} concurrent, 2 x ${count(counts.sessions)} sessions,`,
        `${counts.coldRuns} cold imports per implementation. In this run ${validation}.`,
      ].join(" "),
    ),
    "",
    markdownTable(OFFICIAL_HEADER, officialCells(run.rows)),
  ];
  if (run.customVsTool.length > 0) lines.push("");
  for (const { label, custom, tool } of run.customVsTool) {
    lines.push(
      wrap(
        `- mcpkit's custom method against its \`tools/call\`, ${label}, same rounds: ${fmt(custom, "/s")} against ${fmt(tool, "/s")} (${ratio(custom, tool)}).`,
        110,
        "  ",
      ),
    );
  }
  // Runs recorded before the otel section have no `otel` rows.
  if (run.otel !== undefined && run.otel.length > 0) {
    lines.push("", "mcpkit/otel, in-process `tools/call`, same rounds:", "");
    lines.push(markdownTable(OTEL_HEADER, otelCells(run.otel)));
  }
  return lines.join("\n");
}

/** Where the marker line `marker` starts and ends in `text` (a marker is a line of its own). */
function markerLine(text, marker) {
  const escaped = marker.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
  const at = text.search(new RegExp(`^${escaped}$`, "m"));
  if (at < 0) throw new Error(`no line ${marker}`);
  return { at, after: at + marker.length };
}

/** `text` with the lines between the marker lines `start` and `end` replaced by `body`. */
export function between(text, start, end, body) {
  const from = markerLine(text, start);
  const to = markerLine(text, end);
  if (to.at < from.after) throw new Error(`${end} comes before ${start}`);
  return `${text.slice(0, from.after)}\n${body}\n${text.slice(to.at)}`;
}

/** The lines between the marker lines `start` and `end` now, as `between` writes them. */
export function currentText(text, start, end) {
  const from = markerLine(text, start);
  const to = markerLine(text, end);
  if (to.at < from.after) throw new Error(`${end} comes before ${start}`);
  return text.slice(from.after, to.at).replace(/^\n/, "").replace(/\n$/, "");
}
