/**
 * Facts the docs state that the code can confirm: the runtime dependencies (names and counts), the size of the
 * packed tarball, and the option defaults of the HTTP server, the HTTP client and stdio. Each check reads both
 * sides, the Markdown and the code, so a default changed in both places stays green and one changed in only one
 * place fails, naming the file and the row.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { httpClientPolicy } from "../src/http/client/policy.js";
import { buildHttpConfig } from "../src/http/server/options.js";
import { DEFAULT_ALLOWED_HOSTS, DEFAULT_ALLOWED_ORIGINS } from "../src/http/server/origin.js";
import { systemClock } from "../src/jsonrpc/clock.js";
import { stdioPolicy } from "../src/stdio/policy.js";
import { pollWindowOption } from "../src/stdio/poll-window.js";
import { repoRoot } from "./support/wire-schema.js";

const read = (file: string) => readFileSync(join(repoRoot, file), "utf8");

const pkg = JSON.parse(read("package.json")) as { dependencies?: { [name: string]: string } };
const dependencies = Object.keys(pkg.dependencies ?? {}).sort();

function markdownFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join("docs", "api") ? [] : markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

/** The user-facing docs whose dependency statements are checked. */
const DOCS = ["README.md", ...markdownFiles("docs")];

// --- runtime dependencies ---------------------------------------------------------------------------------------

/** Static and dynamic import specifiers of a source file. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const statics = [...text.matchAll(/^(?:import|export)[^;]*?from\s+"([^"]+)"/gms)].map((m) => m[1] ?? "");
  const dynamics = [...text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1] ?? "");
  return [...statics, ...dynamics];
}

/**
 * The runtime dependencies reachable from the core entries (`mcpkit`, `mcpkit/server`, `mcpkit/client`),
 * following relative imports, dynamic ones included (the core loads its JSON Schema validator on demand).
 */
function coreDependencies(): string[] {
  const seen = new Set<string>();
  const found = new Set<string>();
  const queue = ["src/index.ts", "src/server/index.ts", "src/client/index.ts"].map((f) => join(repoRoot, f));
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of importsOf(file)) {
      if (spec.startsWith(".")) {
        const base = join(dirname(file), spec).replace(/\.js$/, "");
        const target = [`${base}.ts`, join(base, "index.ts")].find((path) => existsSync(path));
        if (target !== undefined) queue.push(target);
      } else {
        const name = spec.startsWith("@")
          ? spec.split("/").slice(0, 2).join("/")
          : (spec.split("/")[0] ?? "");
        if (dependencies.includes(name)) found.add(name);
      }
    }
  }
  return [...found].sort();
}

const COUNT_WORDS: { readonly [word: string]: number } = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};

/**
 * Sentences that state a dependency count of another time on purpose: dated records of past benchmark runs.
 * Each is matched by a piece of its own text, so it stays exempt only while it is there.
 */
const HISTORICAL = [
  {
    file: join("docs", "performance.md"),
    text: "one runtime dependency, none\nin the core entries' static graphs, installed size 0.13x (holds)",
    why: "the result of the issue 7 run, when mcpkit had one",
  },
];

interface CountStatement {
  file: string;
  line: number;
  count: number;
  core: boolean;
  text: string;
}

/** Every "<count> runtime dependenc(y|ies)" of a doc; "of/in the core" right after it scopes it to the core. */
function countStatementsIn(file: string, text: string): CountStatement[] {
  const statements: CountStatement[] = [];
  const pattern = /\b(\d+|[a-z]+)\s+runtime\s+dependenc(?:y|ies)\b((?:\s+(?:of|in)\s+the\s+core\b)?)/gi;
  for (const match of text.matchAll(pattern)) {
    const word = (match[1] ?? "").toLowerCase();
    const count = /^\d+$/.test(word) ? Number(word) : COUNT_WORDS[word];
    if (count === undefined) continue; // "no runtime dependency" of one entry, "its runtime dependencies", ...
    const at = match.index ?? 0;
    const exempt = HISTORICAL.some((h) => {
      const start = text.indexOf(h.text);
      return h.file === file && start >= 0 && start <= at && at < start + h.text.length;
    });
    if (exempt) continue;
    const line = text.slice(0, at).split("\n").length;
    statements.push({ file, line, count, core: (match[2] ?? "") !== "", text: match[0] });
  }
  return statements;
}

const countStatements = () => DOCS.flatMap((file) => countStatementsIn(file, read(file)));

describe("runtime dependencies, as the docs state them", () => {
  it("package.json has some, and the core reaches only the validator", () => {
    expect(dependencies.length).toBeGreaterThan(0);
    expect(coreDependencies()).toEqual(["@cfworker/json-schema"]);
  });

  it("every count the docs give is package.json's (or, said of the core, what the core reaches)", () => {
    const statements = countStatements();
    // The scan finds the statements there are: the README states the count.
    expect(statements.some((s) => s.file === "README.md")).toBe(true);
    const core = coreDependencies().length;
    const wrong = statements
      .filter((s) => s.count !== (s.core ? core : dependencies.length))
      .map(
        (s) => `${s.file}:${s.line}: "${s.text}" (package.json: ${dependencies.length}, the core: ${core})`,
      );
    expect(wrong).toEqual([]);
  });

  it("the historical exemptions are still in their files", () => {
    for (const h of HISTORICAL) expect(read(h.file), `${h.file}: ${h.why}`).toContain(h.text);
  });

  it("docs/packaging.md's table lists exactly package.json's dependencies", () => {
    const text = read("docs/packaging.md");
    const section = text.slice(text.indexOf("## Runtime dependencies"), text.indexOf("## Checks"));
    const names = [...section.matchAll(/^\| `([^`]+)`/gm)].map((m) => m[1]).sort();
    expect(names).toEqual(dependencies);
  });

  it("the README and the CHANGELOG name each of them where they list them", () => {
    const readme = read("README.md");
    const intro = readme.split("\n\n").find((paragraph) => /runtime\s+dependenc/i.test(paragraph)) ?? "";
    const changelog = read("CHANGELOG.md");
    const bullet = changelog.slice(changelog.indexOf("- Runtime dependencies:"));
    const listed = bullet.slice(0, bullet.indexOf("\n- "));
    for (const name of dependencies) {
      expect(intro, `README.md's opening paragraph names ${name}`).toContain(`\`${name}\``);
      expect(listed, `CHANGELOG.md's "Runtime dependencies" bullet names ${name}`).toContain(`\`${name}\``);
    }
    expect(
      [...listed.matchAll(/`([^`]+)`/g)].map((m) => m[1]).filter((n) => !n?.startsWith("mcpkit")),
    ).toEqual([...dependencies].sort((a, b) => listed.indexOf(a) - listed.indexOf(b)));
  });
});

// --- the packed tarball ------------------------------------------------------------------------------------------

/**
 * How far a figure of docs/packaging.md may stray from the tarball before the test fails: 15%. The doc rounds,
 * and the package grows a little with most changes; a figure off by more than that has gone stale (the one this
 * test replaced was 2.5 times too small), and the message gives the figures to write instead.
 */
const PACK_TOLERANCE = 0.15;

const UNITS: { readonly [unit: string]: number } = { kB: 1_000, MB: 1_000_000 };

function bytes(amount: string, unit: string): number {
  return Number(amount) * (UNITS[unit] ?? Number.NaN);
}

const format = (n: number) =>
  n >= 1_000_000 ? `${(n / 1_000_000).toFixed(2)} MB` : `${Math.round(n / 1_000)} kB`;

describe("docs/packaging.md's figures", () => {
  it("give the tarball's size, unpacked size and file count, and the share of src/ and the maps, within 15%", () => {
    expect(existsSync(join(repoRoot, "dist")), "run `npm run build` first (npm test does)").toBe(true);
    const [packed] = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
        cwd: repoRoot,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      }),
    ) as {
      size: number;
      unpackedSize: number;
      entryCount: number;
      files: { path: string; size: number }[];
    }[];
    if (packed === undefined) throw new Error("npm pack --dry-run --json gave no package");
    const src = packed.files.filter((f) => f.path.startsWith("src/")).reduce((sum, f) => sum + f.size, 0);
    const maps = packed.files.filter((f) => f.path.endsWith(".map")).reduce((sum, f) => sum + f.size, 0);
    const actual = {
      tarball: packed.size,
      unpacked: packed.unpackedSize,
      files: packed.entryCount,
      src,
      maps,
      rest: packed.unpackedSize - src - maps,
    };

    const text = read("docs/packaging.md");
    const sentence =
      /the\s+tarball\s+is\s+about\s+([\d.]+)\s+(kB|MB)\s+\(([\d.]+)\s+(kB|MB)\s+unpacked,\s+([\d,]+)\s+files\),\s+of\s+which\s+`src\/`\s+is\s+([\d.]+)\s+(kB|MB)\s+and\s+the\s+maps\s+([\d.]+)\s+(kB|MB)\s+unpacked;\s+dropping\s+both\s+would\s+leave\s+about\s+([\d.]+)\s+(kB|MB)\s+unpacked/.exec(
        text,
      );
    expect(
      sentence,
      "docs/packaging.md states the tarball's figures in the sentence this test reads",
    ).not.toBeNull();
    const m = sentence as RegExpExecArray;
    const stated = {
      tarball: bytes(m[1] ?? "", m[2] ?? ""),
      unpacked: bytes(m[3] ?? "", m[4] ?? ""),
      files: Number((m[5] ?? "").replaceAll(",", "")),
      src: bytes(m[6] ?? "", m[7] ?? ""),
      maps: bytes(m[8] ?? "", m[9] ?? ""),
      rest: bytes(m[10] ?? "", m[11] ?? ""),
    };
    const stale = (Object.keys(actual) as (keyof typeof actual)[])
      .filter((key) => Math.abs(stated[key] - actual[key]) > PACK_TOLERANCE * actual[key])
      .map((key) => {
        const now = key === "files" ? String(actual[key]) : format(actual[key]);
        const doc = key === "files" ? String(stated[key]) : format(stated[key]);
        return `${key}: the doc says ${doc}, the tarball has ${now}`;
      });
    expect(stale, "update docs/packaging.md ('What the tarball holds')").toEqual([]);
  }, 60_000);
});

describe("the install path the docs give", () => {
  it("names the tarball `npm pack` writes for this package.json, wherever the docs name one", () => {
    const { name, version } = JSON.parse(read("package.json")) as { name: string; version: string };
    const named = DOCS.flatMap((file) =>
      [...read(file).matchAll(/\bmcpkit-[\w.-]+?\.tgz\b/g)].map((m) => `${file}: ${m[0]}`),
    );
    expect(named.some((n) => n.startsWith("README.md"))).toBe(true);
    expect(named.some((n) => n.startsWith(join("docs", "cli.md")))).toBe(true);
    expect(named.filter((n) => !n.endsWith(`: ${name}-${version}.tgz`))).toEqual([]);
  });
});

// --- option defaults -------------------------------------------------------------------------------------------

interface Row {
  key: string;
  cell: string;
  line: number;
}

/** The rows of the table of `file` whose header starts with `firstHeader` and has a `Default` column. */
function defaultsTable(file: string, firstHeader: string): Row[] {
  const lines = read(file).split("\n");
  const start = lines.findIndex((line) => {
    const cells = line.split("|").map((c) => c.trim());
    return cells[1] === firstHeader && cells.includes("Default");
  });
  if (start < 0) throw new Error(`${file}: no table headed "${firstHeader} | ... Default"`);
  const header = (lines[start] ?? "").split("|").map((c) => c.trim());
  const column = header.indexOf("Default");
  const rows: Row[] = [];
  for (let i = start + 2; i < lines.length && (lines[i] ?? "").startsWith("|"); i++) {
    const cells = (lines[i] ?? "").split("|").map((c) => c.trim());
    const key = /^`([^`]+)`$/.exec(cells[1] ?? "")?.[1];
    if (key === undefined) throw new Error(`${file}:${i + 1}: the first cell is not a \`key\``);
    rows.push({ key, cell: cells[column] ?? "", line: i + 1 });
  }
  return rows;
}

/**
 * What a Default cell says, when it says a value: a number (`8,000`, `900,000 (15 min)`), `false`/`true`, a
 * quoted string, a JSON list in backticks, or "none" (undefined). `NOT_A_VALUE` for words.
 */
const NOT_A_VALUE = Symbol("words");
function cellValue(cell: string): unknown {
  const number = /^([\d,]+(?:\.\d+)?)(?:\s|$)/.exec(cell);
  if (number) return Number((number[1] ?? "").replaceAll(",", ""));
  const code = /^`([^`]+)`(?:,|\s|$)/.exec(cell)?.[1];
  if (code === "Infinity") return Number.POSITIVE_INFINITY;
  if (code !== undefined) return JSON.parse(code);
  if (/^none\b/.test(cell)) return undefined;
  return NOT_A_VALUE;
}

/**
 * Checks each row against `resolved` and returns the mismatches; rows in words are checked by `words`, which must
 * cover every one of them.
 */
function checkTable(
  file: string,
  rows: Row[],
  resolved: (key: string) => unknown,
  words: { readonly [key: string]: (cell: string) => void } = {},
): string[] {
  expect(rows.length).toBeGreaterThan(3);
  const mismatches: string[] = [];
  for (const row of rows) {
    const stated = cellValue(row.cell);
    if (stated === NOT_A_VALUE) {
      const check = words[row.key];
      if (check === undefined)
        mismatches.push(`${file}:${row.line}: ${row.key}: "${row.cell}" is not a value`);
      else check(row.cell);
      continue;
    }
    const actual = resolved(row.key);
    if (JSON.stringify(actual) !== JSON.stringify(stated)) {
      mismatches.push(
        `${file}:${row.line}: ${row.key}: the doc says ${JSON.stringify(stated)}, the code applies ${JSON.stringify(actual)}`,
      );
    }
  }
  return mismatches;
}

function at(value: unknown, path: string): unknown {
  return path
    .split(".")
    .reduce<unknown>((v, key) => (v as { [key: string]: unknown } | undefined)?.[key], value);
}

describe("option defaults in the docs are the defaults the code applies", () => {
  it("docs/http.md: createHttpHandler's options", () => {
    const config = buildHttpConfig({});
    const rows = defaultsTable("docs/http.md", "Option");
    const mismatches = checkTable(
      "docs/http.md",
      rows,
      (key) => (key === "allowedHosts" ? DEFAULT_ALLOWED_HOSTS : at(config, key)),
      {
        allowedOrigins: (cell) => {
          // "`http`/`https` on `localhost`, `127.0.0.1`, `[::1]`, any port"
          const schemes = new Set(
            DEFAULT_ALLOWED_ORIGINS.map((o) => new URL(o.replace(":*", "")).protocol.slice(0, -1)),
          );
          const hosts = new Set(
            DEFAULT_ALLOWED_ORIGINS.map((o) => o.replace(/^https?:\/\//, "").replace(/:\*$/, "")),
          );
          const named = [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? "");
          expect(new Set(named.filter((n) => schemes.has(n)))).toEqual(schemes);
          expect(new Set(named.filter((n) => !schemes.has(n)))).toEqual(hosts);
          expect(DEFAULT_ALLOWED_ORIGINS.every((o) => o.endsWith(":*"))).toBe(cell.includes("any port"));
        },
        clock: (cell) => {
          expect(cell).toBe("the runtime's timers");
          expect(config.clock).toBe(systemClock);
        },
      },
    );
    expect(mismatches).toEqual([]);
    // The table covers the keys with a default, the sessions' and the cluster's included.
    for (const key of ["maxBodyBytes", "keepAliveMs", "sessions.idleTimeoutMs", "cluster.forwardAckMs"]) {
      expect(rows.map((r) => r.key)).toContain(key);
    }
  });

  it("docs/http-client.md: the HTTP client policy", () => {
    const policy = httpClientPolicy();
    const rows = defaultsTable("docs/http-client.md", "Key");
    expect(checkTable("docs/http-client.md", rows, (key) => at(policy, key))).toEqual([]);
    expect(rows.map((r) => r.key).sort()).toEqual(Object.keys(policy).sort());
  });

  it("docs/stdio.md: the stdio policy, and the serveStdio options' defaults", () => {
    const policy = stdioPolicy();
    const rows = defaultsTable("docs/stdio.md", "Key");
    expect(checkTable("docs/stdio.md", rows, (key) => at(policy, key))).toEqual([]);
    expect(rows.map((r) => r.key).sort()).toEqual(Object.keys(policy).sort());

    const text = read("docs/stdio.md");
    const poll = /pollAfterWriteMs\?: number; \/\/ default ([\d.]+)/.exec(text)?.[1];
    expect(Number(poll)).toBe(pollWindowOption(undefined));
    expect(text).toContain(`(default ${pollWindowOption(undefined)} ms;`);
  });
});

describe("the checks of this file can fail", () => {
  it("reads a cell as the value it states", () => {
    expect(cellValue("8,000")).toBe(8000);
    expect(cellValue("900,000 (15 min)")).toBe(900_000);
    expect(cellValue("`false`")).toBe(false);
    expect(cellValue('`"forward"`')).toBe("forward");
    expect(cellValue('`["localhost", "::1"]`, any port')).toEqual(["localhost", "::1"]);
    expect(cellValue("none (every request is anonymous)")).toBeUndefined();
    expect(cellValue("the runtime's timers")).toBe(NOT_A_VALUE);
  });

  it("reports a default the doc and the code disagree on, with the file and line", () => {
    const rows: Row[] = [
      { key: "keepAliveMs", cell: "15,000", line: 83 },
      { key: "maxBodyBytes", cell: "8,000,000", line: 80 },
      { key: "a", cell: "1", line: 1 },
      { key: "b", cell: "2", line: 2 },
    ];
    const code: { [key: string]: number } = { keepAliveMs: 8_000, maxBodyBytes: 8_000_000, a: 1, b: 2 };
    expect(checkTable("docs/http.md", rows, (key) => code[key])).toEqual([
      "docs/http.md:83: keepAliveMs: the doc says 15000, the code applies 8000",
    ]);
    const withWords = [...rows, { key: "clock", cell: "the timers", line: 93 }];
    expect(checkTable("docs/http.md", withWords, (key) => code[key])).toEqual([
      "docs/http.md:83: keepAliveMs: the doc says 15000, the code applies 8000",
      'docs/http.md:93: clock: "the timers" is not a value',
    ]);
  });

  it("finds dependency counts as the docs write them, scoped to the core or not, history aside", () => {
    const text = [
      "mcpkit's one runtime dependency, `@cfworker/json-schema`. Three runtime dependencies in all,",
      "one runtime dependency of the core; `mcpkit/apps` has no runtime dependency; its runtime dependencies.",
      "Then: one runtime dependency, none",
      "in the core entries' static graphs, installed size 0.13x (holds).",
    ].join("\n");
    const found = countStatementsIn(join("docs", "performance.md"), text);
    expect(found.map((s) => [s.line, s.count, s.core])).toEqual([
      [1, 1, false],
      [1, 3, false],
      [2, 1, true],
    ]);
  });
});
