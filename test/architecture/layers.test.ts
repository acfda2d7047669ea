import { describe, expect, it } from "vitest";
import { buildImportGraph, cyclicComponents } from "./import-graph.js";

/**
 * The layers of src/ and, for each, the other layers it may import (type-only imports included). It is the rule
 * of test/package.test.ts ("imports only downward") written out layer by layer, and tighter where the tree
 * already is: client and server never import each other, the transports and the HTTP and stdio layers never
 * reach an extension (skills, apps), the platform-neutral layers never reach a Node-only one, and each Node-only
 * add-on sits on the one layer it extends. `(root)` is src/index.ts, the `mcpkit` entry: the protocol core.
 */
const CORE = ["jsonrpc", "protocol", "transports", "validation"];
const ENGINE = [...CORE, "server", "client"];
const MAY_IMPORT: { readonly [layer: string]: readonly string[] } = {
  jsonrpc: [],
  protocol: ["jsonrpc"],
  transports: ["jsonrpc", "protocol"],
  validation: ["jsonrpc", "protocol"],
  server: CORE,
  client: CORE,
  // Extensions, on the public API of the server and the client (their index only: test/package.test.ts).
  skills: ENGINE,
  apps: ENGINE,
  // OpenTelemetry for both sides, on the server's plugin seam and the client's transport.
  otel: ENGINE,
  http: ENGINE,
  stdio: ENGINE,
  // The OAuth client on the HTTP client transport's seam, the resource-server helpers on src/http's hook.
  auth: [...ENGINE, "http"],
  "(root)": ["jsonrpc", "protocol", "transports"],
  // Node-only add-ons, each on the layer it extends.
  node: [...ENGINE, "http"],
  "skills-node": [...ENGINE, "skills"],
  "auth-node": [...ENGINE, "auth"],
  redis: ENGINE,
  // The gateway: an edge on the engine and the transports it runs upstreams and serves clients on.
  gateway: [...ENGINE, "http", "stdio", "node"],
  // The command: everything.
  cli: [
    ...ENGINE,
    "skills",
    "apps",
    "http",
    "stdio",
    "auth",
    "node",
    "skills-node",
    "auth-node",
    "redis",
    "otel",
    "gateway",
  ],
};

/** Layers that run on Node only (test/package.test.ts): no platform-neutral layer may import one. */
const NODE_ONLY = new Set(["stdio", "node", "cli", "skills-node", "redis", "auth-node", "gateway"]);

/** `src/http/server/view.ts` is in `http`, `src/index.ts` in `(root)`. */
function layerOf(file: string): string {
  const [, first, second] = file.split("/");
  return second === undefined ? "(root)" : (first as string);
}

describe("layers", () => {
  const graph = buildImportGraph();

  it("gives every file of src/ a layer with a rule", () => {
    const unknown = [...new Set(graph.files.map(layerOf))].filter((layer) => !(layer in MAY_IMPORT));
    expect(unknown).toEqual([]);
  });

  it("is itself a layering: no cycle among the layers, and no platform-neutral layer on a Node-only one", () => {
    const next = new Map(Object.entries(MAY_IMPORT).map(([layer, below]) => [layer, [...below]]));
    expect(cyclicComponents(next)).toEqual([]);
    const neutralOnNode = Object.entries(MAY_IMPORT).flatMap(([layer, below]) =>
      NODE_ONLY.has(layer) ? [] : below.filter((b) => NODE_ONLY.has(b)).map((b) => `${layer} -> ${b}`),
    );
    expect(neutralOnNode).toEqual([]);
  });

  it("imports across layers only as the rule allows", () => {
    const problems: string[] = [];
    for (const [file, edges] of graph.edges) {
      const layer = layerOf(file);
      const allowed = new Set([layer, ...(MAY_IMPORT[layer] ?? [])]);
      for (const edge of edges) {
        if (edge.to === undefined) continue;
        const target = layerOf(edge.to);
        if (!allowed.has(target)) {
          problems.push(`${file}:${edge.line} (${layer}) imports ${edge.specifier} (${target})`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
