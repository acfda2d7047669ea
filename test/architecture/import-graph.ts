/**
 * The import graph of src/, for the architecture tests: every non-test .ts file, every relative import of it
 * (`import`, `import type`, `export ... from`, `import x = require()`, dynamic `import()` and `import("…")` types),
 * resolved to the file it names.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, posix, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** How an import is written. */
export type ImportKind =
  | "import"
  | "import type"
  | "export from"
  | "export type from"
  | "require"
  | "dynamic";

export interface ImportEdge {
  /** The importing file, relative to the repository root, with forward slashes (`src/http/index.ts`). */
  readonly from: string;
  /** The specifier as written (`./server/view.js`). */
  readonly specifier: string;
  /** The file it resolves to, like `from`; undefined for a package, a built-in, or a relative import with no file. */
  readonly to: string | undefined;
  readonly kind: ImportKind;
  /** True when the import brings in types only (`import type`, `export type`, or every named binding `type`). */
  readonly typeOnly: boolean;
  /** The names it brings in: `default`, `*` for a namespace or `export *`, else each named binding (`a as b` gives `a`). */
  readonly names: readonly string[];
  /** Those of `names` brought in as types only (all of them when `typeOnly`). */
  readonly typeNames: readonly string[];
  /** The 1-based line of the import. */
  readonly line: number;
}

export interface ImportGraph {
  /** Every file of the graph, sorted. */
  readonly files: readonly string[];
  /** Every import of every file, in source order. */
  readonly edges: ReadonlyMap<string, readonly ImportEdge[]>;
}

/** A path relative to the repository root with forward slashes. */
export function repoPath(absolute: string): string {
  return relative(repoRoot, absolute).split(sep).join("/");
}

/** Every non-test .ts file under `dir` (absolute), sorted. */
export function sourceFiles(dir: string = join(repoRoot, "src")): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts")) out.push(path);
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * The file a relative specifier of `fromAbsolute` names: `./x.js` is `./x.ts`, `./dir/index.js` is
 * `./dir/index.ts`, `./x` is `./x.ts` or `./x/index.ts`. Undefined for a non-relative specifier or no such file.
 */
export function resolveSpecifier(fromAbsolute: string, specifier: string): string | undefined {
  if (
    !specifier.startsWith("./") &&
    !specifier.startsWith("../") &&
    specifier !== "." &&
    specifier !== ".."
  ) {
    return undefined;
  }
  const base = resolve(dirname(fromAbsolute), specifier);
  const stem = base.replace(/\.(?:js|mjs|cjs|ts|mts|cts)$/, "");
  const candidates = [`${stem}.ts`, `${stem}.mts`, `${stem}.cts`, join(base, "index.ts"), base];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

function namedBindings(elements: readonly (ts.ImportSpecifier | ts.ExportSpecifier)[]): string[] {
  return elements.map((e) => (e.propertyName ?? e.name).text);
}

/** Every import of one file, package imports included (with `to` undefined). */
export function importsOfFile(absolute: string, text: string = readFileSync(absolute, "utf8")): ImportEdge[] {
  const source = ts.createSourceFile(absolute, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const from = repoPath(absolute);
  const out: ImportEdge[] = [];
  const add = (
    node: ts.Node,
    specifier: string,
    kind: ImportKind,
    names: string[],
    typeNames: string[],
    typeOnly = names.length > 0 && typeNames.length === names.length,
  ): void => {
    const target = resolveSpecifier(absolute, specifier);
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    out.push({
      from,
      specifier,
      to: target && repoPath(target),
      kind,
      typeOnly,
      names,
      typeNames: typeOnly ? names : typeNames,
      line,
    });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const names: string[] = [];
      const typeNames: string[] = [];
      if (clause?.name) names.push("default");
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.push("*");
      if (bindings && ts.isNamedImports(bindings)) {
        names.push(...namedBindings(bindings.elements));
        // `import { type A, type B }` brings in types only, like `import type { A, B }`.
        typeNames.push(...namedBindings(bindings.elements.filter((e) => e.isTypeOnly)));
      }
      const kind = clause?.isTypeOnly ? "import type" : "import";
      add(node, node.moduleSpecifier.text, kind, names, typeNames, clause?.isTypeOnly || undefined);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const clause = node.exportClause;
      const named = clause !== undefined && ts.isNamedExports(clause) ? clause.elements : undefined;
      const names = named === undefined ? ["*"] : namedBindings(named);
      const typeNames = named === undefined ? [] : namedBindings(named.filter((e) => e.isTypeOnly));
      const kind = node.isTypeOnly ? "export type from" : "export from";
      add(node, node.moduleSpecifier.text, kind, names, typeNames, node.isTypeOnly || undefined);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      add(node, node.moduleReference.expression.text, "require", ["*"], [], node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) add(node, arg.text, "dynamic", ["*"], [], false);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      const qualifier = node.qualifier;
      const name =
        qualifier === undefined
          ? "*"
          : ts.isIdentifier(qualifier)
            ? qualifier.text
            : qualifier.left.getText(source);
      add(node, node.argument.literal.text, "import type", [name], [name], true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The import graph of every non-test .ts file under `dir` (absolute; src/ by default). */
export function buildImportGraph(dir: string = join(repoRoot, "src")): ImportGraph {
  const files = sourceFiles(dir);
  const edges = new Map<string, ImportEdge[]>();
  for (const file of files) edges.set(repoPath(file), importsOfFile(file));
  return { files: files.map(repoPath), edges };
}

/** The files each file imports (relative imports that resolve to a file of the graph), deduplicated. */
export function adjacency(graph: ImportGraph): Map<string, string[]> {
  const known = new Set(graph.files);
  const out = new Map<string, string[]>();
  for (const file of graph.files) {
    const targets = new Set<string>();
    for (const edge of graph.edges.get(file) ?? []) {
      if (edge.to !== undefined && known.has(edge.to)) targets.add(edge.to);
    }
    out.set(file, [...targets].sort());
  }
  return out;
}

/**
 * Tarjan's strongly connected components, iterative (no recursion depth to worry about). Returns only the
 * components that hold a cycle: two or more files, or one file importing itself. Each component is sorted,
 * the list by its first file.
 */
export function cyclicComponents(next: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  for (const root of next.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; child: number }[] = [{ node: root, child: 0 }];
    index.set(root, counter);
    low.set(root, counter);
    counter++;
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; child: number };
      const children = next.get(frame.node) ?? [];
      if (frame.child < children.length) {
        const child = children[frame.child++] as string;
        if (!index.has(child)) {
          index.set(child, counter);
          low.set(child, counter);
          counter++;
          stack.push(child);
          onStack.add(child);
          work.push({ node: child, child: 0 });
        } else if (onStack.has(child)) {
          low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(child) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent)
        low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = component.length === 1 && (next.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) components.push(component.sort());
      }
    }
  }
  return components.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/** The shortest cycle through `start` inside `component`, as a path that ends where it starts. */
function shortestCycleThrough(
  start: string,
  component: ReadonlySet<string>,
  next: ReadonlyMap<string, readonly string[]>,
): string[] {
  const parent = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i] as string;
    for (const child of next.get(node) ?? []) {
      if (!component.has(child)) continue;
      if (child === start) {
        // The parent chain runs back to `start`, which is never anyone's child here.
        const path: string[] = [];
        for (let at: string | undefined = node; at !== undefined; at = parent.get(at)) path.unshift(at);
        return [...path, start];
      }
      if (!parent.has(child)) {
        parent.set(child, node);
        queue.push(child);
      }
    }
  }
  return [start, start];
}

/**
 * Readable cycles of one component: the shortest cycle through each of its files, each rotated to start at
 * its smallest file, duplicates dropped. Together they name every file of the component.
 */
export function cyclesOf(
  component: readonly string[],
  next: ReadonlyMap<string, readonly string[]>,
): string[][] {
  const members = new Set(component);
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const file of component) {
    const cycle = shortestCycleThrough(file, members, next);
    const ring = cycle.slice(0, -1);
    const smallest = ring.reduce((min, f, i) => (f < (ring[min] as string) ? i : min), 0);
    const rotated = [...ring.slice(smallest), ...ring.slice(0, smallest)];
    const key = rotated.join(" -> ");
    if (seen.has(key)) continue;
    seen.add(key);
    out.push([...rotated, rotated[0] as string]);
  }
  return out;
}

/** `src/a.ts -> src/b.ts -> src/a.ts`, with the common `src/` prefix dropped. */
export function formatCycle(cycle: readonly string[]): string {
  return cycle.map((f) => posix.relative("src", f)).join(" -> ");
}
