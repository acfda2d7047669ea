/**
 * Type-checks the ```ts blocks of Markdown files with the TypeScript compiler API, against the package sources.
 *
 * Every ```ts (or ```typescript) block is its own module, checked with the project's strict options, with
 * `mcpkit`, `mcpkit/server`, ... mapped to src/. HTML comments on the lines right above a block (blank lines
 * allowed between them) say what the block assumes:
 *
 * - `<!-- snippet: CODE -->`: TypeScript put before the block, for the free names a fragment uses, e.g.
 *   `<!-- snippet: import type { Transport } from "mcpkit"; declare const transport: Transport; -->`.
 * - `<!-- snippet: continues -->`: the block goes on the program of the block before it in the same file.
 * - `<!-- snippet: declarations -->`: the block lists signatures (`function f(): T;`, `interface`, `class`
 *   without bodies); each top-level `function`, `class`, `const` is checked as if `declare`d, so the
 *   signatures must be well-formed and every type they name must exist.
 * - `<!-- snippet: official -->`: the block is code of another SDK (e.g. `@modelcontextprotocol/sdk`); it is
 *   checked all the same, against that package from node_modules.
 * - `<!-- snippet: skip REASON -->`: not checked; the reason is required. For blocks that are deliberately not
 *   a TypeScript program. Prefer another fence (```sh, ```text, ```json) for what is not TypeScript.
 * - `<!-- snippets: CODE -->` (plural, on a line of its own anywhere in the file): TypeScript put before every
 *   block of that file.
 *
 * Errors are reported as `file:line:column message`, with the line of the Markdown file.
 */
import { join, resolve } from "node:path";
import ts from "typescript";

export interface Doc {
  /** The path shown in errors (relative to the repository). */
  file: string;
  text: string;
}

export interface Snippet {
  file: string;
  /** Markdown line (1-based) of the first code line of the first block of this program. */
  line: number;
  mode: "program" | "declarations" | "skip";
  official: boolean;
  skipReason?: string;
  /** The program's lines, each with the Markdown line it came from. */
  lines: { text: string; line: number }[];
}

export interface SnippetProblem {
  file: string;
  line: number;
  column: number;
  message: string;
}

const FENCE = /^```(\w*)\s*$/;
const TS_LANGS = new Set(["ts", "typescript", "mts"]);
const DIRECTIVE = /<!--\s*snippet:\s*([\s\S]*?)\s*-->/;
const FILE_PRELUDE = /^<!--\s*snippets:\s*([\s\S]*?)\s*-->\s*$/gm;

/** The programs of one Markdown file; throws on a malformed directive (with file and line). */
export function extractSnippets(doc: Doc): Snippet[] {
  const lines = doc.text.split("\n");
  const filePrelude: { text: string; line: number }[] = [];
  for (const match of doc.text.matchAll(FILE_PRELUDE)) {
    const line = doc.text.slice(0, match.index).split("\n").length;
    filePrelude.push({ text: (match[1] ?? "").replace(/\n/g, " "), line });
  }
  const snippets: Snippet[] = [];
  let last: Snippet | undefined;
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i] ?? "");
    if (!fence) continue;
    const lang = fence[1] ?? "";
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? "")) end++;
    if (end >= lines.length) throw new Error(`${doc.file}:${i + 1}: unclosed code fence`);
    const body = lines.slice(i + 1, end).map((text, k) => ({ text, line: i + 2 + k }));
    const directives = directivesAbove(lines, i, doc.file);
    i = end;
    if (!TS_LANGS.has(lang)) {
      if (directives.length > 0)
        throw new Error(`${doc.file}:${i + 1}: snippet directive on a ${lang} block`);
      continue;
    }
    let mode: Snippet["mode"] = "program";
    let official = false;
    let continues = false;
    let skipReason: string | undefined;
    const prelude: { text: string; line: number }[] = [];
    for (const { text, line } of directives) {
      if (text === "continues") continues = true;
      else if (text === "declarations") mode = "declarations";
      else if (text === "official") official = true;
      else if (text === "skip" || text.startsWith("skip ")) {
        skipReason = text.slice(4).trim();
        if (skipReason === "") throw new Error(`${doc.file}:${line}: "snippet: skip" needs a reason`);
        mode = "skip";
      } else prelude.push({ text: text.replace(/\n/g, " "), line });
    }
    if (continues) {
      if (!last || last.mode === "skip")
        throw new Error(`${doc.file}:${body[0]?.line ?? i}: "continues" with no checked block before it`);
      last.lines.push(...prelude, ...body);
      continue;
    }
    const snippet: Snippet = {
      file: doc.file,
      line: body[0]?.line ?? i,
      mode,
      official,
      lines: [...filePrelude, ...prelude, ...body],
    };
    if (skipReason !== undefined) snippet.skipReason = skipReason;
    snippets.push(snippet);
    last = snippet;
  }
  return snippets;
}

/** The `<!-- snippet: ... -->` comments right above line `fence` (blank lines may separate them). */
function directivesAbove(lines: string[], fence: number, file: string): { text: string; line: number }[] {
  const found: { text: string; line: number }[] = [];
  let j = fence - 1;
  while (j >= 0) {
    const current = lines[j] ?? "";
    if (current.trim() === "") {
      j--;
      continue;
    }
    if (!current.trimEnd().endsWith("-->")) break;
    let start = j;
    while (start >= 0 && !(lines[start] ?? "").includes("<!--")) start--;
    if (start < 0) break;
    const comment = lines.slice(start, j + 1).join("\n");
    const match = DIRECTIVE.exec(comment);
    if (!match) {
      if (/<!--\s*snippet\b/.test(comment) && !/<!--\s*snippets:/.test(comment))
        throw new Error(`${file}:${start + 1}: malformed snippet directive`);
      break;
    }
    found.unshift({ text: match[1] ?? "", line: start + 1 });
    j = start - 1;
  }
  return found;
}

/** Package entry points mapped to the sources, as in tsconfig.json and vitest.config.ts. */
export function sourcePaths(root: string): { [name: string]: string[] } {
  const src = (path: string) => [join(root, "src", path)];
  return {
    mcpkit: src("index.ts"),
    "mcpkit/server": src("server/index.ts"),
    "mcpkit/client": src("client/index.ts"),
    "mcpkit/http": src("http/index.ts"),
    "mcpkit/node": src("node/index.ts"),
    "mcpkit/stdio": src("stdio/index.ts"),
    "mcpkit/validation": src("validation/index.ts"),
    "mcpkit/skills": src("skills/index.ts"),
    "mcpkit/skills/node": src("skills-node/index.ts"),
    "mcpkit/redis": src("redis/index.ts"),
    "mcpkit/auth/node": src("auth-node/index.ts"),
    "mcpkit/apps": src("apps/index.ts"),
    "mcpkit/otel": src("otel/index.ts"),
    "mcpkit/gateway": src("gateway/index.ts"),
  };
}

/** Type-checks the programs (skipped ones excepted) in one TypeScript program; returns every problem. */
export function checkSnippets(snippets: readonly Snippet[], root: string): SnippetProblem[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error("cannot read tsconfig.json");
  const options: ts.CompilerOptions = {
    ...config.options,
    noEmit: true,
    baseUrl: root,
    paths: sourcePaths(root),
  };
  // Virtual files live in a folder of the repository, so that node_modules and "type": "module" apply.
  const dir = join(root, ".snippets");
  const virtual = new Map<string, { source: string; snippet: Snippet }>();
  snippets.forEach((snippet, index) => {
    if (snippet.mode === "skip") return;
    const name = resolve(dir, `snippet-${index}.ts`);
    const text = snippet.lines.map((l) => (snippet.mode === "declarations" ? ambient(l.text) : l.text));
    virtual.set(name, { source: `${text.join("\n")}\nexport {};\n`, snippet });
  });
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => virtual.get(resolve(name))?.source ?? readFile(name);
  host.fileExists = (name) => virtual.has(resolve(name)) || fileExists(name);
  host.getSourceFile = (name, language, onError, create) => {
    const entry = virtual.get(resolve(name));
    if (entry) return ts.createSourceFile(name, entry.source, language, true);
    return getSourceFile(name, language, onError, create);
  };
  host.directoryExists = (name) => resolve(name) === dir || ts.sys.directoryExists(name);
  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });
  const problems: SnippetProblem[] = [];
  for (const [name, { snippet }] of virtual) {
    const source = program.getSourceFile(name);
    if (!source) throw new Error(`snippet file ${name} not in program`);
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ];
    for (const diagnostic of diagnostics) {
      const at =
        diagnostic.start === undefined ? undefined : source.getLineAndCharacterOfPosition(diagnostic.start);
      const origin = at === undefined ? undefined : snippet.lines[at.line];
      problems.push({
        file: snippet.file,
        line: origin?.line ?? snippet.line,
        column: (at?.character ?? 0) + 1,
        message: ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"),
      });
    }
  }
  return problems;
}

/**
 * A signature line made ambient (`function f(): T;` -> `declare function f(): T;`). Not a .d.ts file: with
 * `skipLibCheck` the compiler would not check one.
 */
function ambient(line: string): string {
  return /^(function|class|const|let|abstract class|enum|namespace) /.test(line) ? `declare ${line}` : line;
}

/** `file:line:column message`, one per line. */
export function formatProblems(problems: readonly SnippetProblem[]): string {
  return problems.map((p) => `${p.file}:${p.line}:${p.column} ${p.message}`).join("\n");
}
