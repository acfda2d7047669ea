import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./support/wire-schema.js";

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  dependencies?: { [name: string]: string };
  bin?: { [name: string]: string };
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
const NODE_ONLY_LAYERS = new Set(["stdio", "node", "cli", "skills-node", "redis", "auth-node", "gateway"]);

/** The Redis client: a peer dependency of mcpkit/redis, imported by that layer only. */
const REDIS_PEER = "redis";
/** The OpenTelemetry API: a peer dependency of mcpkit/otel, imported by that layer only. */
const OTEL_PEER = "@opentelemetry/api";

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const statics = [...text.matchAll(/^(?:import|export)[^;]*?from\s+"([^"]+)"/gms)].map((m) => m[1] ?? "");
  const dynamics = [...text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1] ?? "");
  return [...statics, ...dynamics];
}

/** The core's one runtime dependency, and the one source file that may import it (loaded by the core on demand). */
const RUNTIME_DEPENDENCY = "@cfworker/json-schema";
const DEPENDENCY_IMPORTER = join("src", "validation", "json-schema.ts");
/** The OAuth library of mcpkit/auth: imported under src/auth only, never reached from the core entries. */
const AUTH_DEPENDENCY = "oauth4webapi";
const AUTH_LAYER = join("src", "auth");
const AUTH_ENTRIES = new Set(["./auth", "./auth/node"]);
/** The YAML parser of the Skills frontmatter: imported under src/skills only, reached by mcpkit/skills(/node) alone. */
const SKILLS_DEPENDENCY = "yaml";
const SKILLS_LAYER = join("src", "skills");
const SKILLS_ENTRIES = new Set(["./skills", "./skills/node"]);

/** Static imports and re-exports of a built file, side-effect imports (`import "./chunk.js"`) included. */
function builtImportsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^(?:import|export)\s[^;]*?from\s*"([^"]+)"|^import\s*"([^"]+)"/gms)].map(
    (m) => m[1] ?? m[2] ?? "",
  );
}

const ENTRIES = [
  ".",
  "./server",
  "./client",
  "./http",
  "./stdio",
  "./node",
  "./validation",
  "./skills",
  "./skills/node",
  "./redis",
  "./auth",
  "./auth/node",
  "./apps",
  "./gateway",
  "./otel",
];

/** Entries that run on Node only and may import its built-ins. */
const NODE_ONLY_ENTRIES = new Set([
  "./stdio",
  "./node",
  "./skills/node",
  "./redis",
  "./auth/node",
  "./gateway",
]);

/** The commands the package installs (`bin`): Node-only programs built like the entries. */
const BINS = Object.values(pkg.bin ?? {}).map((target) => join(repoRoot, target));

function builtEntry(entry: string): string {
  const target = pkg.exports[entry];
  if (target === undefined || typeof target === "string")
    throw new Error(`${entry} has no conditional export`);
  return join(repoRoot, target.default);
}

/**
 * Every import of a built file must be static, so that a walk of the static imports sees the whole graph; the
 * one exception is the raw JSON Schema validator's chunk, which the server and client load on first use.
 */
function expectOnlyTheValidatorLoadedDynamically(file: string): void {
  const text = readFileSync(file, "utf8");
  const dynamic = [...text.matchAll(/\bimport\s*\(\s*"([^"]*)"|\bimport\s*\(|\brequire\s*\(/g)].map(
    (m) => m[1] ?? "(computed)",
  );
  for (const spec of dynamic) {
    const target = relative(join(repoRoot, "dist"), resolve(dirname(file), spec));
    // The command's `--login` loads mcpkit/auth (and oauth4webapi with it) on demand, like the validator; its
    // `--trace` loads mcpkit/otel's recorder and client instrumentation (and @opentelemetry/api with them).
    const from = relative(repoRoot, file);
    const command =
      from === join("dist", "cli", "main.js") || /^dist\/chunks\/command-[A-Z0-9]+\.js$/.test(from);
    const login =
      from === join("dist", "cli", "main.js") &&
      (target === join("auth", "index.js") || target === join("auth-node", "index.js"));
    const trace =
      from === join("dist", "cli", "main.js") && /^chunks\/(recorder|client)-[A-Z0-9]+\.js$/.test(target);
    // `mcpkit gateway` loads mcpkit/redis (and the optional `redis` peer with it) for a config naming a Redis,
    // and mcpkit/otel (with @opentelemetry/api) for `--otel`.
    const gatewayRedis =
      from === join("dist", "cli", "main.js") &&
      (target === join("redis", "index.js") || target === join("otel", "index.js"));
    // `mcpkit inspect` loads its server on demand (the command- chunk), and that loads mcpkit/skills on first use.
    const inspect =
      (from === join("dist", "cli", "main.js") && /^chunks\/command-[A-Z0-9]+\.js$/.test(target)) ||
      (command && target === join("skills", "index.js"));
    expect(
      login || trace || inspect || gatewayRedis || /^chunks\/json-schema-[A-Z0-9]+\.js$/.test(target),
      `${relative(repoRoot, file)} loads ${spec}`,
    ).toBe(true);
  }
}

/**
 * Walks the static import graph of a built file: every file exists, loads nothing dynamically but the
 * validator's chunk (and, from the command, mcpkit/auth for `--login`), and imports only relative files or the outside specifiers `external` allows. Returns the
 * files reached.
 */
function walkBuilt(start: string, external: (spec: string) => boolean): Set<string> {
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    expect(existsSync(file), file).toBe(true);
    expectOnlyTheValidatorLoadedDynamically(file);
    for (const spec of builtImportsOf(file)) {
      if (external(spec)) continue;
      expect(spec.startsWith("."), `${relative(repoRoot, file)} imports ${spec}`).toBe(true);
      queue.push(resolve(dirname(file), spec));
    }
  }
  return seen;
}

describe("package shape", () => {
  it("has three runtime dependencies: the raw JSON Schema validator, imported by one file of its own layer, oauth4webapi, imported under src/auth only, and yaml, imported under src/skills only", () => {
    expect(Object.keys(pkg.dependencies ?? {}).sort()).toEqual(
      [RUNTIME_DEPENDENCY, AUTH_DEPENDENCY, SKILLS_DEPENDENCY].sort(),
    );
    const skillsImporters = sources
      .filter((file) => importsOf(file).includes(SKILLS_DEPENDENCY))
      .map((file) => relative(repoRoot, file));
    expect(skillsImporters.length).toBeGreaterThan(0);
    expect(skillsImporters.filter((file) => !file.startsWith(`${SKILLS_LAYER}/`))).toEqual([]);
    const authImporters = sources
      .filter((file) => importsOf(file).includes(AUTH_DEPENDENCY))
      .map((file) => relative(repoRoot, file));
    expect(authImporters.length).toBeGreaterThan(0);
    expect(authImporters.filter((file) => !file.startsWith(`${AUTH_LAYER}/`))).toEqual([]);
    const importers = sources
      .filter((file) => importsOf(file).includes(RUNTIME_DEPENDENCY))
      .map((file) => relative(repoRoot, file));
    expect(importers).toEqual([DEPENDENCY_IMPORTER]);
  });

  it("keeps the Redis client a peer dependency of mcpkit/redis alone: optional, imported by src/redis only", () => {
    const full = pkg as typeof pkg & {
      peerDependencies?: { [name: string]: string };
      peerDependenciesMeta?: { [name: string]: { optional?: boolean } };
      devDependencies?: { [name: string]: string };
    };
    expect(Object.keys(full.peerDependencies ?? {}).sort()).toEqual([OTEL_PEER, REDIS_PEER].sort());
    expect(full.peerDependenciesMeta?.[REDIS_PEER]?.optional).toBe(true);
    expect(full.devDependencies?.[REDIS_PEER]).toBeDefined();
    const importers = sources
      .filter((file) => importsOf(file).includes(REDIS_PEER))
      .map((file) => relative(repoRoot, file).split("/").slice(0, 2).join("/"));
    expect(new Set(importers)).toEqual(new Set(["src/redis"]));
  });

  it("keeps the OpenTelemetry API a peer dependency of mcpkit/otel alone: optional, imported by src/otel only", () => {
    const full = pkg as typeof pkg & {
      peerDependencies?: { [name: string]: string };
      peerDependenciesMeta?: { [name: string]: { optional?: boolean } };
      devDependencies?: { [name: string]: string };
    };
    expect(full.peerDependencies?.[OTEL_PEER]).toBeDefined();
    expect(full.peerDependenciesMeta?.[OTEL_PEER]?.optional).toBe(true);
    expect(full.devDependencies?.[OTEL_PEER]).toBeDefined();
    const importers = sources
      .filter((file) => importsOf(file).some((spec) => spec.startsWith("@opentelemetry/")))
      .map((file) => relative(repoRoot, file).split("/").slice(0, 2).join("/"));
    expect(new Set(importers)).toEqual(new Set(["src/otel"]));
    // Only the API: the SDK packages are the application's choice (devDependencies here, for the tests).
    const specs = sources.flatMap((file) =>
      importsOf(file).filter((spec) => spec.startsWith("@opentelemetry/")),
    );
    expect(new Set(specs)).toEqual(new Set([OTEL_PEER]));
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

  it("imports only downward: jsonrpc <- protocol <- transports | validation <- client | server <- skills <- http | stdio <- node | skills-node <- cli", () => {
    const rank: { [layer: string]: number } = {
      jsonrpc: 0,
      protocol: 1,
      transports: 1.5,
      validation: 1.5,
      server: 2,
      client: 2,
      // Extensions built on the public API of the server and the client.
      skills: 2.5,
      apps: 2.5,
      otel: 2.5,
      http: 3,
      stdio: 3,
      // mcpkit/auth: the OAuth client on the HTTP client transport's seam, the resource-server helpers on
      // src/http's authenticate hook.
      auth: 3.5,
      node: 4,
      "skills-node": 4,
      redis: 4,
      "auth-node": 4,
      // The gateway: the engine, the transports and node:http, behind one server.
      gateway: 4.5,
      cli: 5,
    };
    const problems: string[] = [];
    for (const file of sources) {
      const layer = relative(join(repoRoot, "src"), file).split("/")[0] ?? "";
      if (!(layer in rank)) continue;
      for (const spec of importsOf(file)) {
        if (!spec.startsWith(".")) {
          if (spec === RUNTIME_DEPENDENCY && relative(repoRoot, file) === DEPENDENCY_IMPORTER) continue;
          if (spec === REDIS_PEER && layer === "redis") continue;
          if (spec === OTEL_PEER && layer === "otel") continue;
          if (spec === AUTH_DEPENDENCY && layer === "auth") continue;
          if (spec === SKILLS_DEPENDENCY && layer === "skills") continue;
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

  it("builds the skills and apps extensions on the public API: src/skills and src/apps reach the server and the client through their index only", () => {
    const problems: string[] = [];
    for (const file of sources) {
      const layer = relative(join(repoRoot, "src"), file).split("/")[0];
      if (layer !== "skills" && layer !== "skills-node" && layer !== "apps") continue;
      for (const spec of importsOf(file)) {
        if (!spec.startsWith(".")) continue;
        const target = relative(join(repoRoot, "src"), resolve(dirname(file), spec));
        const [targetLayer] = target.split("/");
        if (
          (targetLayer === "server" || targetLayer === "client") &&
          !/^(server|client)\/index\.js$/.test(target)
        ) {
          problems.push(`${relative(repoRoot, file)} imports ${spec}`);
        }
        if (layer === "skills-node" && targetLayer === "skills" && target !== "skills/index.js") {
          problems.push(`${relative(repoRoot, file)} imports ${spec}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("keeps the HTTP server and the HTTP client apart: src/http/server and src/http/client never import each other", () => {
    const problems: string[] = [];
    for (const file of sources) {
      const [layer, side] = relative(join(repoRoot, "src"), file).split("/");
      if (layer !== "http" || (side !== "server" && side !== "client")) continue;
      const other = side === "server" ? "client" : "server";
      for (const spec of importsOf(file)) {
        if (!spec.startsWith(".")) continue;
        const target = relative(join(repoRoot, "src", "http"), resolve(dirname(file), spec)).split("/")[0];
        if (target === other) problems.push(`${relative(repoRoot, file)} imports ${spec}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("builds entry points whose import graphs stay inside the package (plus node: built-ins for Node-only entries)", () => {
    const dist = join(repoRoot, "dist");
    expect(existsSync(dist), "run `npm run build` first (npm test does)").toBe(true);
    for (const entry of ENTRIES) {
      const target = pkg.exports[entry];
      expect(target, entry).toBeDefined();
      if (target === undefined || typeof target === "string") continue;
      expect(existsSync(join(repoRoot, target.types)), target.types).toBe(true);
      // Node-only entries may use Node's built-ins, and nothing else from outside.
      const seen = walkBuilt(
        builtEntry(entry),
        (spec) =>
          (NODE_ONLY_ENTRIES.has(entry) && spec.startsWith("node:")) ||
          (entry === "./validation" && spec === RUNTIME_DEPENDENCY) ||
          (entry === "./redis" && spec === REDIS_PEER) ||
          (entry === "./otel" && spec === OTEL_PEER) ||
          (AUTH_ENTRIES.has(entry) && spec === AUTH_DEPENDENCY) ||
          (SKILLS_ENTRIES.has(entry) && spec === SKILLS_DEPENDENCY),
      );
      // Only mcpkit/redis reaches the Redis client and only mcpkit/auth(/node) the OAuth library; the core stays free of both.
      const reachesRedis = [...seen].some((file) => builtImportsOf(file).includes(REDIS_PEER));
      expect(reachesRedis, entry).toBe(entry === "./redis");
      // Only mcpkit/otel reaches the OpenTelemetry API: without it installed, every other entry loads.
      const reachesOtel = [...seen].some((file) => builtImportsOf(file).includes(OTEL_PEER));
      expect(reachesOtel, entry).toBe(entry === "./otel");
      // Only mcpkit/validation reaches the dependency statically; the core entries never do.
      const reachesDependency = [...seen].some((file) => builtImportsOf(file).includes(RUNTIME_DEPENDENCY));
      expect(reachesDependency, entry).toBe(entry === "./validation");
      // Only mcpkit/auth (and mcpkit/auth/node) reach oauth4webapi: the core's import graph stays free of it.
      const reachesAuth = [...seen].some((file) => builtImportsOf(file).includes(AUTH_DEPENDENCY));
      expect(reachesAuth, entry).toBe(AUTH_ENTRIES.has(entry));
      // Only mcpkit/skills (and mcpkit/skills/node) reach the YAML parser.
      const reachesYaml = [...seen].some((file) => builtImportsOf(file).includes(SKILLS_DEPENDENCY));
      expect(reachesYaml, entry).toBe(SKILLS_ENTRIES.has(entry));
      // The core entries share code with the others through chunks; the walk must have gone into them.
      if (entry === "." || entry === "./server" || entry === "./client") {
        expect(
          [...seen].some((file) => file.includes(`${join("dist", "chunks")}`)),
          entry,
        ).toBe(true);
      }
    }
  });

  it("installs the mcpkit command: an executable Node script whose imports stay inside the package", () => {
    expect(Object.keys(pkg.bin ?? {})).toEqual(["mcpkit"]);
    for (const bin of BINS) {
      expect(existsSync(bin), `${bin}: run \`npm run build\` first`).toBe(true);
      expect(readFileSync(bin, "utf8").startsWith("#!/usr/bin/env node\n"), bin).toBe(true);
      expect(statSync(bin).mode & 0o111, `${bin} is executable`).not.toBe(0);
      // Static imports only: `--login` loads mcpkit/auth (and so oauth4webapi) with a dynamic import.
      walkBuilt(bin, (spec) => spec.startsWith("node:"));
      // The inspector's server, loaded by `mcpkit inspect` only: its static imports stay inside the package too.
      const loads = [
        ...readFileSync(bin, "utf8").matchAll(/\bimport\(\s*"(\.\.\/chunks\/command-[A-Z0-9]+\.js)"/g),
      ];
      expect(loads.length, "the inspector is loaded on demand").toBe(1);
      walkBuilt(resolve(dirname(bin), loads[0]?.[1] ?? ""), (spec) => spec.startsWith("node:"));
    }
  });

  it("keeps the command out of the library: no entry reaches src/cli code", () => {
    const entryImports = ENTRIES.map(builtEntry).flatMap((file) =>
      builtImportsOf(file).map((spec) => resolve(dirname(file), spec)),
    );
    expect(entryImports.filter((file) => file.includes(join("dist", "cli")))).toEqual([]);
    const importers = sources.filter(
      (file) =>
        !file.includes(`${join("src", "cli")}/`) &&
        importsOf(file).some((spec) => /(?:^|\/)cli\//.test(spec)),
    );
    expect(importers.map((file) => relative(repoRoot, file))).toEqual([]);
  });

  it("publishes one bundle per entry plus shared chunks, each chunk reached from an entry", () => {
    const built = walk(join(repoRoot, "dist")).filter((file) => file.endsWith(".js"));
    const entries = new Set([...ENTRIES.map(builtEntry), ...BINS]);
    const chunkDir = join(repoRoot, "dist", "chunks");
    // The page of `mcpkit inspect` is a browser bundle the command serves as a file, not a module it imports.
    const page = join(repoRoot, "dist", "cli", "inspect", "page.js");
    const stray = built.filter((file) => !entries.has(file) && dirname(file) !== chunkDir && file !== page);
    expect(stray.map((file) => relative(repoRoot, file))).toEqual([]);
    const reached = new Set(
      [...entries].flatMap((file) => builtImportsOf(file).map((spec) => resolve(dirname(file), spec))),
    );
    // The validator's chunk is reached by the dynamic import that loads it on first use.
    for (const file of built) {
      for (const m of readFileSync(file, "utf8").matchAll(/\bimport\s*\(\s*"([^"]+)"/g)) {
        reached.add(resolve(dirname(file), m[1] ?? ""));
      }
    }
    const chunks = built.filter((file) => dirname(file) === chunkDir);
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.filter((file) => !reached.has(file)).map((file) => relative(repoRoot, file))).toEqual([]);
  });

  it("shares one copy of every export across entries of the built package, names intact", () => {
    // A fresh Node process resolves `mcpkit/...` through the exports map to dist/, as a user's code does.
    const script = `
      const entries = ${JSON.stringify(ENTRIES.map((entry) => (entry === "." ? "mcpkit" : `mcpkit/${entry.slice(2)}`)))};
      const first = new Map();
      const shared = new Set();
      const split = [];
      const renamed = [];
      const mods = {};
      for (const entry of entries) {
        mods[entry] = await import(entry);
        for (const [name, value] of Object.entries(mods[entry])) {
          if (typeof value === "function" && value.name !== name) renamed.push(entry + ": " + name + " is " + value.name);
          const seen = first.get(name);
          if (seen === undefined) first.set(name, { entry, value });
          else {
            shared.add(name);
            if (seen.value !== value) split.push(name + ": " + seen.entry + " vs " + entry);
          }
        }
      }
      let thrown;
      try { new mods["mcpkit/client"].Client({}); } catch (error) { thrown = error; }
      console.log(JSON.stringify({
        shared: [...shared].sort(),
        split,
        renamed,
        code: thrown?.code,
        coreInstance: thrown instanceof mods.mcpkit.McpkitError,
        sameClass: Object.getPrototypeOf(thrown) === mods.mcpkit.McpkitError.prototype,
      }));
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    const report = JSON.parse(out) as {
      shared: string[];
      split: string[];
      renamed: string[];
      code: string;
      coreInstance: boolean;
      sameClass: boolean;
    };
    expect(report.shared).toEqual(expect.arrayContaining(["JsonRpcError", "McpkitError"]));
    expect(report.split).toEqual([]);
    expect(report.renamed).toEqual([]);
    expect(report.code).toBe("INVALID_CONFIG");
    expect(report.coreInstance).toBe(true);
    // Not only the Symbol.hasInstance brand check: the error's class is the very class `mcpkit` exports.
    expect(report.sameClass).toBe(true);
  });
});
