import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./support/wire-schema.js";

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  dependencies?: { [name: string]: string };
  exports: { [entry: string]: string | { types: string; default: string } };
};

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const sources = walk(join(repoRoot, "src")).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));

/** Layers that run on Node only and may use its built-ins. */
const NODE_ONLY_LAYERS = new Set(["stdio", "node"]);

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^(?:import|export)[^;]*?from\s+"([^"]+)"/gms)].map((m) => m[1] ?? "");
}

describe("package shape", () => {
  it("has no runtime dependencies", () => {
    expect(pkg.dependencies ?? {}).toEqual({});
  });

  it("lists every entry with types first and no wildcard", () => {
    for (const [entry, target] of Object.entries(pkg.exports)) {
      expect(entry).not.toContain("*");
      if (typeof target === "string") continue;
      expect(Object.keys(target)[0], entry).toBe("types");
    }
  });

  it("keeps every source file at or under 600 lines", () => {
    const long = sources
      .map((file) => ({
        file: relative(repoRoot, file),
        lines: readFileSync(file, "utf8").split("\n").length,
      }))
      .filter(({ lines }) => lines > 600);
    expect(long).toEqual([]);
  });

  it("imports only downward: jsonrpc <- protocol <- client | server <- http | stdio <- node", () => {
    const rank: { [layer: string]: number } = {
      jsonrpc: 0,
      protocol: 1,
      server: 2,
      client: 2,
      http: 3,
      stdio: 3,
      node: 4,
    };
    const problems: string[] = [];
    for (const file of sources) {
      const layer = relative(join(repoRoot, "src"), file).split("/")[0] ?? "";
      if (!(layer in rank)) continue;
      for (const spec of importsOf(file)) {
        if (!spec.startsWith(".")) {
          if (!(NODE_ONLY_LAYERS.has(layer) && spec.startsWith("node:"))) {
            problems.push(`${relative(repoRoot, file)} imports package ${spec}`);
          }
          continue;
        }
        const target = relative(join(repoRoot, "src"), resolve(dirname(file), spec)).split("/")[0] ?? "";
        // The transport contract (one interface file) is the seam every layer above jsonrpc may name.
        if (target === "transports" && spec.endsWith("transports/transport.js")) continue;
        if (target === layer) continue;
        if (!(target in rank) || (rank[target] ?? 9) >= (rank[layer] ?? 0)) {
          problems.push(`${relative(repoRoot, file)} (${layer}) imports ${spec} (${target})`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("builds entry points whose import graphs stay inside the package (plus node: built-ins for Node-only entries)", () => {
    const dist = join(repoRoot, "dist");
    expect(existsSync(dist), "run `npm run build` first (npm test does)").toBe(true);
    for (const entry of [".", "./server", "./client", "./http", "./stdio", "./node"]) {
      const target = pkg.exports[entry];
      expect(target, entry).toBeDefined();
      if (target === undefined || typeof target === "string") continue;
      const seen = new Set<string>();
      const queue = [join(repoRoot, target.default)];
      while (queue.length > 0) {
        const file = queue.pop() as string;
        if (seen.has(file)) continue;
        seen.add(file);
        expect(existsSync(file), file).toBe(true);
        expect(existsSync(join(repoRoot, target.types)), target.types).toBe(true);
        for (const spec of importsOf(file)) {
          // Node-only entries may use Node's built-ins, and nothing else from outside.
          if ((entry === "./stdio" || entry === "./node") && spec.startsWith("node:")) continue;
          expect(spec.startsWith("."), `${relative(repoRoot, file)} imports ${spec}`).toBe(true);
          queue.push(resolve(dirname(file), spec));
        }
      }
      expect(seen.size).toBeGreaterThan(1);
    }
  });
});
