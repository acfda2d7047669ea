import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  adjacency,
  buildImportGraph,
  cyclesOf,
  cyclicComponents,
  formatCycle,
  importsOfFile,
  repoRoot,
} from "./import-graph.js";

describe("import cycles", () => {
  const graph = buildImportGraph();
  const next = adjacency(graph);

  it("reads the whole of src/, every relative import resolved to a file", () => {
    expect(graph.files.length).toBeGreaterThan(100);
    // An unresolved relative import would hide its edge from the cycle check.
    const unresolved = [...graph.edges.values()]
      .flat()
      .filter((e) => e.specifier.startsWith(".") && e.to === undefined)
      .map((e) => `${e.from}:${e.line} ${e.specifier}`);
    expect(unresolved).toEqual([]);
  });

  it("has no import cycle in src/, type-only imports included", () => {
    // One line per cycle: the shortest cycle through each file of each strongly connected component.
    const cycles = cyclicComponents(next).flatMap((component) => cyclesOf(component, next).map(formatCycle));
    expect(cycles).toEqual([]);
  });

  it("finds every strongly connected component of a small graph, self-imports included", () => {
    const small = new Map<string, string[]>([
      ["src/a.ts", ["src/b.ts"]],
      ["src/b.ts", ["src/c.ts", "src/d.ts"]],
      ["src/c.ts", ["src/a.ts"]],
      ["src/d.ts", ["src/e.ts"]],
      ["src/e.ts", ["src/e.ts"]],
      ["src/f.ts", ["src/a.ts"]],
    ]);
    const components = cyclicComponents(small);
    expect(components).toEqual([["src/a.ts", "src/b.ts", "src/c.ts"], ["src/e.ts"]]);
    expect(components.flatMap((c) => cyclesOf(c, small).map(formatCycle))).toEqual([
      "a.ts -> b.ts -> c.ts -> a.ts",
      "e.ts -> e.ts",
    ]);
  });

  it("reads every form of import: import, import type, export from, dynamic import() and import() types", () => {
    const text = [
      'import { a, type B } from "./x.js";',
      'import type { C } from "./y.js";',
      'import { type D } from "./z.js";',
      'export { e as f } from "./w.js";',
      'export type * from "./v.js";',
      'const lazy = () => import("./u.js");',
      'let t: import("./s.js").T;',
      'import "./r.js";',
    ].join("\n");
    const edges = importsOfFile(join(repoRoot, "src", "fake.ts"), text).map(
      ({ specifier, kind, typeOnly, names, typeNames }) => ({ specifier, kind, typeOnly, names, typeNames }),
    );
    expect(edges).toEqual([
      { specifier: "./x.js", kind: "import", typeOnly: false, names: ["a", "B"], typeNames: ["B"] },
      { specifier: "./y.js", kind: "import type", typeOnly: true, names: ["C"], typeNames: ["C"] },
      { specifier: "./z.js", kind: "import", typeOnly: true, names: ["D"], typeNames: ["D"] },
      { specifier: "./w.js", kind: "export from", typeOnly: false, names: ["e"], typeNames: [] },
      { specifier: "./v.js", kind: "export type from", typeOnly: true, names: ["*"], typeNames: ["*"] },
      { specifier: "./u.js", kind: "dynamic", typeOnly: false, names: ["*"], typeNames: [] },
      { specifier: "./s.js", kind: "import type", typeOnly: true, names: ["T"], typeNames: ["T"] },
      { specifier: "./r.js", kind: "import", typeOnly: false, names: [], typeNames: [] },
    ]);
  });
});
