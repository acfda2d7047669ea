import { describe, expect, it } from "vitest";
import { buildImportGraph } from "./import-graph.js";

/**
 * The extensions and edges (docs/architecture.md) are built on the public surface: they reach the server and
 * the client through `src/server/index.ts` and `src/client/index.ts` only, never a room of the engine. An
 * extension that needs more means the surface is missing something: add it to the index instead.
 */
const EDGES = [
  "src/skills/",
  "src/apps/",
  "src/redis/",
  "src/auth/",
  "src/skills-node/",
  "src/auth-node/",
  "src/otel/",
  "src/gateway/",
];
const ENGINES = ["src/server/", "src/client/"];
const INDEXES = new Set(["src/server/index.ts", "src/client/index.ts"]);

describe("the public surface", () => {
  it("is all the extensions and edges import of the server and the client", () => {
    const graph = buildImportGraph();
    const faults: string[] = [];
    for (const [from, edges] of graph.edges) {
      if (!EDGES.some((edge) => from.startsWith(edge))) continue;
      for (const edge of edges) {
        const to = edge.to;
        if (to === undefined || INDEXES.has(to) || !ENGINES.some((engine) => to.startsWith(engine))) continue;
        faults.push(`${from}:${edge.line} -> ${to} { ${edge.names.join(", ")} }`);
      }
    }
    expect(faults).toEqual([]);
  });
});
