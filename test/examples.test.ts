import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { describe, expect, it, vi } from "vitest";
import { main as appsServer } from "../examples/apps-server.js";
import { main as clientCallbacks } from "../examples/client-callbacks.js";
import { main as expressServer } from "../examples/express-server.js";
import { main as gateway } from "../examples/gateway.js";
import { main as lowLevelHandler } from "../examples/low-level-handler.js";
import { main as observability } from "../examples/observability.js";
import { main } from "../examples/quickstart.js";
import { main as skillsServer } from "../examples/skills-server.js";
import { main as typedValibot } from "../examples/typed-tools-valibot.js";
import { main as typedZod } from "../examples/typed-tools-zod.js";
import { repoRoot } from "./support/wire-schema.js";

describe("examples", () => {
  it("runs the quickstart: the client prefers 2026-07-28, calls the tool and sees its progress", async () => {
    expect(await main()).toBe("2026-07-28: add -> 42 (progress: 1/2 adding, 2/2 done)");
  });

  it("runs the observability example: the app's span, the client's call under it, the server's under that", async () => {
    expect(await observability()).toEqual(["CLIENT tools/call forecast", "  SERVER tools/call forecast"]);
  });

  it("runs the zod example: typed arguments and output, bad arguments answered with isError", async () => {
    expect(await typedZod()).toEqual([
      'inputSchema: {"a":{"type":"number","description":"first addend"},"b":{"type":"number","description":"second addend"}}',
      'add(20, 22) = 42, structuredContent {"sum":42}',
      'add("20") -> isError true: Invalid arguments for tool "add":\n/a: Invalid input: expected number, received string\n/b: Invalid input: expected number, received undefined',
    ]);
  });

  it("runs the valibot example: defaults applied, every failing path named", async () => {
    const lines = await typedValibot();
    expect(lines[0]).toBe('search("al") = alpha, alphabet, alpine');
    expect(lines[1]).toMatch(
      /^search\("", 0\) -> isError true: Invalid arguments for tool "search":\n\/query: .*\n\/limit: /,
    );
  });

  it("shows the quickstart in the README exactly as it is compiled and run, after an install line", () => {
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
    const quickstart = readFileSync(join(repoRoot, "examples/quickstart.ts"), "utf8");
    expect(readme).toContain(`\`\`\`ts\n${quickstart}\`\`\``);
    expect(quickstart).toContain("ctx.progress(");
    expect(quickstart).toContain("onProgress");
    // The section starts with how to install the package, the tarball named as npm pack names it.
    const { name, version } = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
      name: string;
      version: string;
    };
    const section = readme.slice(readme.indexOf("## Quickstart"), readme.indexOf(`\`\`\`ts\n${quickstart}`));
    expect(section).toMatch(/```sh\nnpm ci && npm pack\b/);
    expect(section).toContain(`npm install /path/to/${name}-${version}.tgz`);
    expect(section).toContain(`npm install ${name}\``);
    expect(readme).toContain("`main()` returns `2026-07-28: add -> 42 (progress: 1/2 adding, 2/2 done)`");
  });

  it("runs the demo: both eras, discover and initialize, a call and an error", async () => {
    const lines: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((line: unknown) => {
      lines.push(String(line));
    });
    try {
      await import("../examples/demo.js");
    } finally {
      log.mockRestore();
    }
    const transcript = lines.join("\n");
    expect(transcript).toContain("-> request server/discover");
    expect(transcript).toContain("connected: 2026-07-28, server demo-server 1.0.0");
    expect(transcript).toContain("-> request initialize");
    expect(transcript).toContain("-> notification notifications/initialized");
    expect(transcript).toContain("connected: 2025-11-25, server demo-server 1.0.0");
    expect(transcript.match(/add\(20, 22\) = 42/g)).toHaveLength(2);
    expect(transcript).toContain("failed as expected: -32602 Resource not found");
    expect(transcript).toContain("failed as expected: -32002 Resource not found");
  });

  it("runs the client callbacks: elicitation and sampling answered in both eras", async () => {
    expect(await clientCallbacks()).toEqual([
      '2026-07-28: Lisbon: asked "One thing to do on a city trip": ride tram 28 (2 callbacks)',
      '2025-11-25: Lisbon: asked "One thing to do on a city trip": ride tram 28 (2 callbacks)',
    ]);
  });

  it("runs the low-level handler: its own pages and cursors, a refused cursor", async () => {
    expect(await lowLevelHandler()).toEqual([
      "page 1: to-mm, to-cm, to-m (next: true)",
      "all: 6 tools",
      "42195 m = 42.195 km",
      "bad cursor: -32602 Invalid params: Invalid cursor",
    ]);
  });

  it("runs the gateway: two servers from npm behind one HTTP endpoint, namespaced, with a tool policy", async () => {
    expect(await gateway()).toEqual([
      "memory tools: memory__create_entities, memory__create_relations, memory__read_graph",
      "echo: Echo: through the gateway",
      "graph has gateway: true",
      "upstreams: everything up, memory up",
    ]);
  });

  it("runs the apps server: two app tools resolved to their ui:// views and called over HTTP", async () => {
    expect(await appsServer()).toEqual([
      "roll: ui://dice/roll (model+app, text/html;profile=mcp-app) -> rolled 1",
      "reroll: ui://dice/reroll (app, text/html;profile=mcp-app) -> rolled 2",
    ]);
  });

  it("runs the skills server: a folder of skills over HTTP, listed, loaded and read with verification", async () => {
    expect(await skillsServer()).toEqual([
      "resources: skill://pdf-processing/SKILL.md, docs://readme",
      "pdf-processing: 2 files, forms: # Forms",
    ]);
  });

  it("runs the Express 5 server: MCP in both eras over real HTTP beside a JSON route", async () => {
    expect(await expressServer()).toEqual([
      "add: 5 (2026-07-28)",
      "add: 5 (2025-11-25)",
      'api: {"echoed":{"hello":"express"}}',
    ]);
  });

  it("runs the stdio server as real subprocesses, launched by its own client side (built package)", async () => {
    // Compiled to plain JS next to the demo's build, where `mcpkit/...` resolves to dist/ (npm run build first),
    // then run with node: `--client` launches the same file again as the stdio server, once per era.
    const source = readFileSync(join(repoRoot, "examples/stdio-server.ts"), "utf8");
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    const outDir = join(repoRoot, ".examples-out");
    mkdirSync(outDir, { recursive: true });
    const script = join(outDir, "stdio-server.js");
    writeFileSync(script, outputText);
    const { stdout } = await promisify(execFile)(process.execPath, [script, "--client"], { cwd: repoRoot });
    expect(stdout.trim().split("\n")).toEqual([
      "2026-07-28 stdio-notes: HELLO OVER STDIO",
      "server stderr: shout called (2026-07-28)",
      "2025-11-25 stdio-notes: HELLO OVER STDIO",
      "server stderr: shout called (2025-11-25)",
    ]);
  });
});
