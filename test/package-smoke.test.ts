// The package as a user gets it: the source tree (tracked and new files, no dist/) is copied to a temporary
// directory, `npm pack` runs there (its `prepack` builds), the tarball is installed into a fresh project, and
// that project runs a server and a client from it in-process, over stdio and over HTTP on 127.0.0.1, loads every
// entry with `import` and with `require`, and type-checks against the shipped declarations. The tarball's file
// list is checked too: every export and bin target, every relative import of a shipped file, and every source a
// shipped source map names must be in it.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "./support/wire-schema.js";

interface PackageJson {
  name: string;
  version: string;
  exports: { [subpath: string]: string | { types: string; default: string } };
  bin?: string | { [name: string]: string };
}

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as PackageJson;
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

let work = "";
let app = "";
/** Paths inside the tarball, without the leading `package/`. */
let shipped = new Set<string>();

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** Runs a script of the consumer project; fails with its stderr when it exits non-zero. */
function node(args: string[]): { stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, args, { cwd: app, encoding: "utf8", timeout: 30_000 });
  if (result.status !== 0) {
    throw new Error(`node ${args.join(" ")} exited ${result.status}:\n${result.stderr}\n${result.stdout}`);
  }
  return { stdout: result.stdout, stderr: result.stderr };
}

/** The import names of every entry, as users write them (`mcpkit`, `mcpkit/server`, ...). */
const entryNames = Object.entries(pkg.exports)
  .filter(([, target]) => typeof target !== "string")
  .map(([subpath]) => (subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`));

function bins(): { [name: string]: string } {
  if (pkg.bin === undefined) return {};
  return typeof pkg.bin === "string" ? { [pkg.name]: pkg.bin } : pkg.bin;
}

const normalize = (path: string) => posix.normalize(path).replace(/^\.\//, "");

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "mcpkit-smoke-"));
  // A clean tree: what git would check out (plus files not yet committed), never the local dist/.
  const tree = join(work, "tree");
  const files = run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], repoRoot)
    .split("\0")
    .filter((file) => file !== "");
  for (const file of files) {
    try {
      mkdirSync(dirname(join(tree, file)), { recursive: true });
      cpSync(join(repoRoot, file), join(tree, file));
    } catch (error) {
      // A file deleted in the work tree but still in the index is not part of the tree.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  symlinkSync(join(repoRoot, "node_modules"), join(tree, "node_modules"), "dir");
  // `npm pack` runs `prepack` (the build) in the clean tree and writes the tarball beside it.
  run(npm, ["pack", "--pack-destination", work, "--no-audit", "--no-fund"], tree);
  const tarball = join(work, `${pkg.name}-${pkg.version}.tgz`);
  shipped = new Set(
    run("tar", ["-tzf", tarball], work)
      .split("\n")
      .filter((line) => line !== "" && !line.endsWith("/"))
      .map((line) => line.replace(/^package\//, "")),
  );

  app = join(work, "app");
  mkdirSync(app);
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({ name: "mcpkit-smoke-app", version: "0.0.0", private: true, type: "module" }),
  );
  // Offline when the package has no runtime dependencies; a dependency comes from npm's cache when it can.
  // mcpkit/redis and mcpkit/otel need their optional peers (the Redis client, the OpenTelemetry API), as a
  // user of those entries installs them.
  const peers = (pkg as { peerDependencies?: { [name: string]: string } }).peerDependencies ?? {};
  const redisPeer = `redis@${peers.redis ?? "latest"}`;
  const otelPeer = `@opentelemetry/api@${peers["@opentelemetry/api"] ?? "latest"}`;
  run(
    npm,
    [
      "install",
      tarball,
      redisPeer,
      otelPeer,
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
    ],
    app,
  );
  for (const [name, text] of Object.entries(APP_FILES)) writeFileSync(join(app, name), text);
}, 300_000);

afterAll(() => {
  if (work !== "") rmSync(work, { recursive: true, force: true });
});

describe("package.json", () => {
  const meta = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
    [key: string]: unknown;
    scripts: { [name: string]: string };
  };

  it("names the license, the repository, the homepage and the issue tracker, and the LICENSE file matches", () => {
    expect(meta.license).toBe("MIT");
    expect(readFileSync(join(repoRoot, "LICENSE"), "utf8")).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
    expect(meta.repository).toEqual({ type: "git", url: expect.stringMatching(/^git\+https:\/\/.+\.git$/) });
    expect(meta.homepage).toEqual(expect.stringMatching(/^https:\/\//));
    expect(meta.bugs).toEqual({ url: expect.stringMatching(/^https:\/\/.+\/issues$/) });
  });

  it("builds before packing and is ESM only", () => {
    expect(meta.scripts.prepack).toContain("build");
    expect(meta.type).toBe("module");
    for (const target of Object.values(pkg.exports)) {
      if (typeof target !== "string") expect(Object.keys(target)).toEqual(["types", "default"]);
    }
  });
});

describe("the packed tarball", () => {
  it("holds the build (from prepack), the license and readme, and no tests", () => {
    expect([...shipped].filter((file) => file.startsWith("dist/")).length).toBeGreaterThan(0);
    for (const file of ["package.json", "LICENSE", "README.md", "CHANGELOG.md"]) {
      expect(shipped.has(file), file).toBe(true);
    }
    expect([...shipped].filter((file) => /\.test\.ts$/.test(file))).toEqual([]);
  });

  it("holds every export and bin target", () => {
    const targets = Object.values(pkg.exports).flatMap((target) =>
      typeof target === "string" ? [target] : [target.types, target.default],
    );
    const missing = [...targets, ...Object.values(bins())]
      .map(normalize)
      .filter((file) => !shipped.has(file));
    expect(missing).toEqual([]);
  });

  it("holds every file a shipped module or declaration imports", () => {
    const installed = join(app, "node_modules", pkg.name);
    const missing: string[] = [];
    for (const file of shipped) {
      if (!/\.(js|d\.ts)$/.test(file)) continue;
      const text = readFileSync(join(installed, file), "utf8");
      for (const match of text.matchAll(/(?:from\s*|import\s*\(?\s*)"(\.[^"]+)"/g)) {
        let target = normalize(posix.join(posix.dirname(file), match[1] ?? ""));
        // A declaration's `./x.js` is the declaration `./x.d.ts`.
        if (file.endsWith(".d.ts")) target = target.replace(/\.js$/, ".d.ts");
        if (!shipped.has(target)) missing.push(`${file} -> ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("resolves every source map: each map is shipped and names only shipped sources", () => {
    const installed = join(app, "node_modules", pkg.name);
    const maps = [...shipped].filter((file) => file.endsWith(".map"));
    expect(maps.length).toBeGreaterThan(0);
    const missing: string[] = [];
    for (const file of shipped) {
      if (!/\.(js|d\.ts)$/.test(file)) continue;
      const link = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(installed, file), "utf8"))?.[1];
      if (link === undefined) continue;
      const map = normalize(posix.join(posix.dirname(file), link));
      if (!shipped.has(map)) missing.push(`${file} -> ${map}`);
    }
    for (const map of maps) {
      const { sources, sourceRoot = "" } = JSON.parse(readFileSync(join(installed, map), "utf8")) as {
        sources: string[];
        sourceRoot?: string;
      };
      for (const source of sources) {
        const target = normalize(posix.join(posix.dirname(map), sourceRoot, source));
        if (!shipped.has(target)) missing.push(`${map} -> ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe("the installed package", () => {
  it("imports every entry point by name", () => {
    const { stdout } = node(["import-all.mjs", JSON.stringify(entryNames)]);
    const counts = JSON.parse(stdout) as { [entry: string]: number };
    expect(Object.keys(counts)).toEqual(entryNames);
    for (const entry of entryNames) expect(counts[entry], entry).toBeGreaterThan(0);
  });

  it("runs a server and a client in one process, in both eras", () => {
    const { stdout } = node(["in-process.mjs"]);
    expect(JSON.parse(stdout)).toEqual(["2026-07-28: add -> 42", "2025-11-25: add -> 42"]);
  });

  it("runs a client that launches the server over stdio", () => {
    const { stdout } = node(["stdio-client.mjs"]);
    expect(JSON.parse(stdout)).toEqual(["2026-07-28: add -> 42", "2025-11-25: add -> 42"]);
  });

  it("runs a client against the server over Streamable HTTP on 127.0.0.1", () => {
    const { stdout } = node(["http.mjs"]);
    const result = JSON.parse(stdout) as { url: string; answers: string[] };
    expect(new URL(result.url).hostname).toBe("127.0.0.1");
    expect(result.answers).toEqual(["2026-07-28: add -> 42", "2025-11-25: add -> 42"]);
  });

  it("loads with require() where Node has require(esm) (>= 20.19, 22.12), and refuses it clearly elsewhere", () => {
    const requireModule = (process.features as { require_module?: boolean }).require_module === true;
    const result = spawnSync(process.execPath, ["require.cjs", JSON.stringify(entryNames)], {
      cwd: app,
      encoding: "utf8",
      timeout: 30_000,
    });
    if (requireModule) {
      expect(result.status, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        entries: entryNames.length,
        answer: "2026-07-28: add -> 42",
      });
    } else {
      expect(result.status).not.toBe(0);
      expect(result.stderr).toContain("ERR_REQUIRE_ESM");
    }
  });

  it("links every bin with a node shebang", () => {
    const missing: string[] = [];
    for (const [name, target] of Object.entries(bins())) {
      const text = readFileSync(join(app, "node_modules", pkg.name, target), "utf8");
      if (!text.startsWith("#!/usr/bin/env node")) missing.push(`${target}: no shebang`);
      try {
        readFileSync(join(app, "node_modules", ".bin", name));
      } catch {
        missing.push(`node_modules/.bin/${name}: not linked`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("serves the page of mcpkit inspect from the installed package", async () => {
    expect(shipped.has("dist/cli/inspect/page.js") && shipped.has("dist/cli/inspect/page.css")).toBe(true);
    const child = spawn(
      process.execPath,
      [
        join(app, "node_modules", ".bin", "mcpkit"),
        "inspect",
        "--no-open",
        "--",
        process.execPath,
        "stdio-server.mjs",
      ],
      { cwd: app, stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      const first = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes("\n")) resolve(out.split("\n")[0] as string);
        });
        child.on("exit", (code) => reject(new Error(`mcpkit inspect exited ${code}`)));
      });
      const url = new URL(first);
      const token = url.searchParams.get("token") ?? "";
      for (const file of ["page.js", "page.css"]) {
        const response = await fetch(`${url.origin}/${file}?token=${token}`);
        expect(response.status, file).toBe(200);
        expect((await response.text()).length, file).toBeGreaterThan(1_000);
      }
    } finally {
      child.kill("SIGINT");
    }
  }, 30_000);

  it("type-checks a consumer against the shipped declarations (NodeNext, strict, no skipLibCheck)", () => {
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          lib: ["ES2022"],
          strict: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
          typeRoots: [join(repoRoot, "node_modules", "@types")],
        },
        files: ["consumer.ts"],
      }),
    );
    writeFileSync(
      join(app, "consumer.ts"),
      [
        ...entryNames.map((entry, i) => `import * as entry${i} from "${entry}";`),
        `export const loaded: readonly object[] = [${entryNames.map((_, i) => `entry${i}`).join(", ")}];`,
        CONSUMER_TS,
      ].join("\n"),
    );
    const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
    const result = spawnSync(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: app, encoding: "utf8" });
    expect(result.stdout + result.stderr).toBe("");
    expect(result.status).toBe(0);
    // A full type-check of the declarations and @types/node: seconds alone, much longer on a loaded 2-core host.
  }, 120_000);
});

/** A typed use of the public API, compiled against the installed package. */
const CONSUMER_TS = `
import { createInProcessPair, McpkitError } from "mcpkit";
import { Client } from "mcpkit/client";
import { ServerBuilder } from "mcpkit/server";

export async function answer(): Promise<string> {
  const server = new ServerBuilder({ serverInfo: { name: "typed", version: "1.0.0" } })
    .tool({ name: "echo", inputSchema: { type: "object" } }, ({ text }) => ({
      content: [{ type: "text", text: String(text) }],
    }))
    .build();
  const [clientSide, serverSide] = createInProcessPair();
  await server.connect(serverSide);
  const client = new Client({ transport: clientSide, clientInfo: { name: "typed", version: "1.0.0" } });
  try {
    await client.connect();
    const result = await client.callTool("echo", { text: "hi" });
    return result.content[0]?.type === "text" ? result.content[0].text : "";
  } catch (error) {
    return error instanceof McpkitError ? error.code : "unknown";
  } finally {
    await client.close();
  }
}
`;

const SERVER_MJS = `
import { ServerBuilder } from "mcpkit/server";

export function makeServer() {
  return new ServerBuilder({ serverInfo: { name: "smoke", version: "1.0.0" } })
    .tool(
      {
        name: "add",
        inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
      },
      ({ a, b }) => ({ content: [{ type: "text", text: String(Number(a) + Number(b)) }] }),
    )
    .build();
}

/** Connects, lists, calls add(20, 22), closes; returns "<era>: <tools> -> <answer>". */
export async function ask(client) {
  const info = await client.connect();
  const { tools } = await client.listTools();
  const result = await client.callTool("add", { a: 20, b: 22 });
  await client.close();
  return info.protocolVersion + ": " + tools.map((t) => t.name).join(", ") + " -> " + result.content[0].text;
}
`;

const APP_FILES: { [name: string]: string } = {
  "server.mjs": SERVER_MJS,
  "import-all.mjs": `
const counts = {};
for (const entry of JSON.parse(process.argv[2])) counts[entry] = Object.keys(await import(entry)).length;
console.log(JSON.stringify(counts));
`,
  "in-process.mjs": `
import { createInProcessPair } from "mcpkit";
import { Client } from "mcpkit/client";
import { ask, makeServer } from "./server.mjs";

const server = makeServer();
const answers = [];
for (const protocolVersion of [undefined, "2025-11-25"]) {
  const [clientSide, serverSide] = createInProcessPair();
  await server.connect(serverSide);
  const options = { transport: clientSide, clientInfo: { name: "smoke", version: "1.0.0" } };
  answers.push(await ask(new Client(protocolVersion ? { ...options, protocolVersion } : options)));
}
console.log(JSON.stringify(answers));
`,
  "stdio-server.mjs": `
import { serveStdio } from "mcpkit/stdio";
import { makeServer } from "./server.mjs";

await serveStdio(makeServer());
`,
  "stdio-client.mjs": `
import { Client } from "mcpkit/client";
import { launchStdio } from "mcpkit/stdio";
import { ask } from "./server.mjs";

const answers = [];
for (const protocolVersion of [undefined, "2025-11-25"]) {
  const transport = launchStdio({ command: process.execPath, args: ["stdio-server.mjs"] });
  const options = { transport, clientInfo: { name: "smoke", version: "1.0.0" } };
  answers.push(await ask(new Client(protocolVersion ? { ...options, protocolVersion } : options)));
}
console.log(JSON.stringify(answers));
`,
  "http.mjs": `
import { Client } from "mcpkit/client";
import { StreamableHttpClientTransport } from "mcpkit/http";
import { nodeHttp, serve } from "mcpkit/node";
import { ask, makeServer } from "./server.mjs";

const { url, close } = await serve(makeServer(), { host: "127.0.0.1", port: 0 });
const answers = [];
try {
  for (const protocolVersion of [undefined, "2025-11-25"]) {
    const transport = new StreamableHttpClientTransport({ url, http: nodeHttp() });
    const options = { transport, clientInfo: { name: "smoke", version: "1.0.0" } };
    answers.push(await ask(new Client(protocolVersion ? { ...options, protocolVersion } : options)));
  }
} finally {
  await close();
}
console.log(JSON.stringify({ url, answers }));
`,
  "require.cjs": `
const entries = JSON.parse(process.argv[2]);
for (const entry of entries) require(entry);
const { createInProcessPair } = require("mcpkit");
const { Client } = require("mcpkit/client");
const { ServerBuilder } = require("mcpkit/server");

const server = new ServerBuilder({ serverInfo: { name: "cjs", version: "1.0.0" } })
  .tool({ name: "add", inputSchema: { type: "object" } }, ({ a, b }) => ({
    content: [{ type: "text", text: String(Number(a) + Number(b)) }],
  }))
  .build();
(async () => {
  const [clientSide, serverSide] = createInProcessPair();
  await server.connect(serverSide);
  const client = new Client({ transport: clientSide, clientInfo: { name: "cjs", version: "1.0.0" } });
  const info = await client.connect();
  const result = await client.callTool("add", { a: 20, b: 22 });
  await client.close();
  console.log(JSON.stringify({ entries: entries.length, answer: info.protocolVersion + ": add -> " + result.content[0].text }));
})();
`,
};
