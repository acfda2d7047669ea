/**
 * Cold start and install footprint: the time a fresh process takes to import a package's client and server
 * entry points, and the installed size and runtime dependency count of its dependency closure in node_modules.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export const ENTRIES = {
  mcpkit: ["mcpkit/client", "mcpkit/server"],
  v1: ["@modelcontextprotocol/sdk/client/index.js", "@modelcontextprotocol/sdk/server/mcp.js"],
  v2: ["@modelcontextprotocol/client", "@modelcontextprotocol/server"],
};

/**
 * Milliseconds to import `ENTRIES[impl]` in a fresh `node` (measured inside it, from the first import), started
 * in `cwd` (for mcpkit, a package directory of another build imports that build: the package's self-reference).
 */
export function coldImport(impl, cwd = ROOT) {
  const code = `const t = performance.now(); ${ENTRIES[impl].map((e) => `await import(${JSON.stringify(e)});`).join(" ")} process.stdout.write(String(performance.now() - t));`;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
      cwd,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.on("exit", (status) =>
      status === 0
        ? resolvePromise(Number(out))
        : reject(new Error(`cold import of ${impl} exited ${status}`)),
    );
  });
}

/** Bytes under `dir`, not descending into nested node_modules (those count as their own packages). */
function bytesUnder(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** Where Node would find package `name` from directory `from`. */
function locate(name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) throw new Error(`cannot find ${name} from ${from}`);
  }
}

/** What installing mcpkit puts on disk: the files `npm pack` publishes (the `files` list, negations included). */
function mcpkitBytes() {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8" }),
  );
  return { pkg, total: packed[0].unpackedSize };
}

const ROOTS = {
  mcpkit: ["mcpkit"],
  v1: ["@modelcontextprotocol/sdk"],
  v2: ["@modelcontextprotocol/client", "@modelcontextprotocol/server"],
};

/**
 * The installed size (bytes) and runtime dependency count of an implementation: its packages plus the closure
 * of their `dependencies` and required `peerDependencies` (a peer the user must install counts).
 */
export function installFootprint(impl) {
  const seen = new Map();
  const queue = [];
  let bytes = 0;
  const visit = (dir, pkg) => {
    const peersOptional = pkg.peerDependenciesMeta ?? {};
    const names = [
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}).filter((n) => peersOptional[n]?.optional !== true),
    ];
    for (const name of names) queue.push([name, dir]);
  };
  for (const name of ROOTS[impl]) {
    if (name === "mcpkit") {
      const { pkg, total } = mcpkitBytes();
      bytes += total;
      visit(ROOT, pkg);
    } else {
      const dir = locate(name, ROOT);
      seen.set(dir, name);
      bytes += bytesUnder(dir);
      visit(dir, JSON.parse(readFileSync(join(dir, "package.json"), "utf8")));
    }
  }
  const roots = seen.size;
  while (queue.length > 0) {
    const [name, from] = queue.shift();
    const dir = locate(name, from);
    if (seen.has(dir)) continue;
    seen.set(dir, name);
    bytes += bytesUnder(dir);
    visit(dir, JSON.parse(readFileSync(join(dir, "package.json"), "utf8")));
  }
  const dependencies = [...new Set([...seen.values()].slice(roots))];
  return { bytes, dependencies: dependencies.filter((n) => !ROOTS[impl].includes(n)).length };
}
