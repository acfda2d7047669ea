/**
 * Summarises a `.cpuprofile` (from `node --cpu-prof`): the functions with the most self time, and the share of
 * garbage collection, as percentages of the sampled time.
 *
 *   node bench/cpuprofile-summary.mjs /tmp/prof/CPU.*.cpuprofile [--top 40] [--filter dist/]
 *
 * `--filter <text>`: list only functions whose script URL contains the text (the percentages stay of the total).
 * `--heap`: the file is an allocation profile (`bench/profile-inprocess.mjs --alloc-prof`): bytes allocated per
 * call by allocating function, and by function and stack (`--callers` then names the allocating function).
 * `--by-source`: self time by source file instead (dist/ bundles name each module's file in a `// src/...` comment,
 * which the lines of a function are mapped back to), with garbage collection and V8/Node internals apart.
 * `--callers <name>`: instead, the call stacks (innermost first, 6 frames) that reach functions named `name`,
 * with the time spent inside them (self and below) from each stack.
 */
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args.splice(at, 2)[1] : fallback;
};
const top = Number(option("top", 40));
const filter = option("filter", undefined);
const callers = option("callers", undefined);
const bySource = args.includes("--by-source");
if (bySource) args.splice(args.indexOf("--by-source"), 1);
const heap = args.includes("--heap");
if (heap) args.splice(args.indexOf("--heap"), 1);
const file = args[0];
if (!file) throw new Error("usage: cpuprofile-summary.mjs <file.cpuprofile> [--top n] [--filter text]");

const profile = JSON.parse(readFileSync(file, "utf8"));
if (heap) {
  // An allocation profile: a tree of { callFrame, selfSize, children }; selfSize in bytes (sampled, scaled).
  const short = (f) =>
    `${f.functionName || "(anonymous)"} ${f.url.replace(/^file:\/\/.*?\/(dist|node_modules)\//, "$1/")}${f.url ? `:${f.lineNumber + 1}` : ""}`;
  const perCall = profile.calls ?? 1;
  const totals = new Map();
  let all = 0;
  const walk = (node, stack) => {
    const frames = [short(node.callFrame), ...stack].slice(0, 5);
    if (node.selfSize > 0) {
      const key = callers
        ? node.callFrame.functionName === callers
          ? frames.join("\n    <- ")
          : undefined
        : frames[0];
      if (key !== undefined) totals.set(key, (totals.get(key) ?? 0) + node.selfSize);
      all += node.selfSize;
    }
    for (const child of node.children ?? []) walk(child, frames);
  };
  walk(profile.head, []);
  console.log(`${file}: ${Math.round(all / perCall)} B allocated per call (sampled)`);
  for (const [key, bytes] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${String(Math.round(bytes / perCall)).padStart(6)} B  ${key}`);
  process.exit(0);
}
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const hits = new Map();
for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
const total = profile.samples.length;

const self = new Map();
for (const [id, count] of hits) {
  const { functionName, url, lineNumber } = byId.get(id).callFrame;
  const short = url.replace(/^file:\/\/.*?\/(dist|node_modules)\//, "$1/").replace(/^node:/, "node:");
  const key = `${functionName || "(anonymous)"} ${short}${url ? `:${lineNumber + 1}` : ""}`;
  const entry = self.get(key) ?? { count: 0, url };
  entry.count += count;
  self.set(key, entry);
}
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const frameName = (node) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const short = url.replace(/^file:\/\/.*?\/(dist|node_modules)\//, "$1/");
  return `${functionName || "(anonymous)"} ${short}${url ? `:${lineNumber + 1}` : ""}`;
};
if (bySource) {
  const { fileURLToPath } = await import("node:url");
  const sections = new Map();
  /** The `// src/...` module comments of a bundle: [line, file] in order. */
  const modulesOf = (url) => {
    let list = sections.get(url);
    if (list === undefined) {
      list = [];
      try {
        const lines = readFileSync(fileURLToPath(url), "utf8").split("\n");
        lines.forEach((line, at) => {
          const match = /^\/\/ (src\/\S+)$/.exec(line);
          if (match) list.push([at, match[1]]);
        });
      } catch {}
      sections.set(url, list);
    }
    return list;
  };
  const totals = new Map();
  for (const [id, count] of hits) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    let key;
    if (functionName === "(garbage collector)") key = "(garbage collector)";
    else if (!url.startsWith("file:"))
      key = url.startsWith("node:") ? "node internals" : `V8/native ${functionName}`.trim();
    else if (!url.includes("/dist/")) key = url.replace(/^.*\//, "");
    else {
      const modules = modulesOf(url);
      let file = "dist (unmapped)";
      for (const [line, name] of modules) if (line <= lineNumber) file = name;
      key = file;
    }
    totals.set(key, (totals.get(key) ?? 0) + count);
  }
  for (const [key, count] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((count / profile.samples.length) * 100).toFixed(1).padStart(5)}%  ${key}`);
  process.exit(0);
}
if (callers) {
  const inclusive = (node) =>
    (hits.get(node.id) ?? 0) + (node.children ?? []).reduce((s, c) => s + inclusive(byId.get(c)), 0);
  const stacks = new Map();
  for (const node of profile.nodes) {
    if (node.callFrame.functionName !== callers) continue;
    const frames = [];
    for (let id = node.id, depth = 0; id !== undefined && depth < 7; id = parent.get(id), depth++)
      frames.push(frameName(byId.get(id)));
    const key = frames.join("\n    <- ");
    stacks.set(key, (stacks.get(key) ?? 0) + inclusive(node));
  }
  for (const [key, count] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((count / profile.samples.length) * 100).toFixed(1)}%  ${key}`);
  process.exit(0);
}
const pct = (count) => `${((count / total) * 100).toFixed(1).padStart(5)}%`;
const rows = [...self.entries()].sort((a, b) => b[1].count - a[1].count);
const gc = rows.filter(([key]) => key.startsWith("(garbage collector)")).reduce((s, [, e]) => s + e.count, 0);
const idle = rows.filter(([key]) => key.startsWith("(idle)")).reduce((s, [, e]) => s + e.count, 0);
console.log(`${file}: ${total} samples; GC ${pct(gc)}, idle ${pct(idle)}`);
let shown = 0;
for (const [key, entry] of rows) {
  if (filter && !entry.url.includes(filter)) continue;
  console.log(`${pct(entry.count)}  ${key}`);
  if (++shown >= top) break;
}
