import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildImportGraph, repoRoot } from "./import-graph.js";

/**
 * The transports reach the server engine through one module, src/server/port.ts (or the public
 * src/server/index.ts), never through its internals. A failure lists every other import (file:line, the server
 * module, the names, types marked `type`): export what it needs from the port instead.
 */
const TRANSPORTS = ["src/http/server/", "src/stdio/", "src/node/"];
const PORT = "src/server/port.ts";
const ENTRIES = new Set([PORT, "src/server/index.ts"]);

describe("transport port", () => {
  const graph = buildImportGraph();

  it("lets the transports (src/http/server, src/stdio, src/node) into src/server through port.ts or index.ts only", () => {
    const reaches: string[] = [];
    for (const [file, edges] of graph.edges) {
      if (!TRANSPORTS.some((dir) => file.startsWith(dir))) continue;
      for (const edge of edges) {
        if (edge.to === undefined || !edge.to.startsWith("src/server/") || ENTRIES.has(edge.to)) continue;
        const types = new Set(edge.typeNames);
        const names = edge.names.map((name) => (types.has(name) ? `type ${name}` : name));
        reaches.push(`${file}:${edge.line} -> ${edge.to} { ${names.join(", ")} }`);
      }
    }
    expect(reaches).toEqual([]);
  });

  it("has the port: src/server/port.ts", () => {
    expect(existsSync(join(repoRoot, PORT)), `${PORT} exists`).toBe(true);
  });
});
