/**
 * The built `mcpkit` command in real subprocesses against real servers, in every era each speaks:
 * - an mcpkit server over stdio (test/fixtures/stdio-server) and over HTTP on 127.0.0.1;
 * - the official v2 server (`@modelcontextprotocol/server` on `@modelcontextprotocol/node`) over HTTP;
 * - `@modelcontextprotocol/server-everything` over stdio (2025-11-25 only: pinning 2026-07-28 fails cleanly).
 * Also: exit statuses for connection failures, non-TTY elicitation refused, listen ended by SIGINT.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { join } from "node:path";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { builtFixture } from "../support/fixture-build.js";
import { listenOnLoopback, useCleanups } from "../support/interop-helpers.js";
import { repoRoot } from "../support/wire-schema.js";
import { requireBuiltCli, runCliProcess, startCli, waitUntil } from "./built-cli.js";
import { serveCliServer } from "./cli-server.js";

const ERAS = ["2026-07-28", "2025-11-25"] as const;
const FIXTURE = builtFixture("fixture-server");
const EVERYTHING = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-everything/dist/index.js",
);
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }
).version;
const cleanup = useCleanups();

beforeAll(() => requireBuiltCli());

describe("the built command", () => {
  it("prints usage with --help and its version with --version", async () => {
    const help = await runCliProcess(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("npx mcpkit -- npx @modelcontextprotocol/server-everything stdio tools");
    expect(help.stdout).toContain("Exit status:");
    expect((await runCliProcess(["--version"])).stdout).toBe(`${PACKAGE_VERSION}\n`);
  });

  it("exits 2 on a usage error, saying what is wrong", async () => {
    const { status, stderr } = await runCliProcess(["http://127.0.0.1:1/mcp", "frobnicate"]);
    expect(status).toBe(2);
    expect(stderr).toContain('unknown command "frobnicate"');
  });

  it("exits 4 when nothing listens, and 4 with the server's stderr when the program dies", async () => {
    const refused = await runCliProcess(["http://127.0.0.1:1/mcp", "tools"]);
    expect(refused.status).toBe(4);
    expect(refused.stderr).toContain("ECONNREFUSED");
    const died = await runCliProcess([
      "--",
      process.execPath,
      "-e",
      "console.error('no config'); process.exit(3)",
      "tools",
    ]);
    expect(died.status).toBe(4);
    expect(died.stderr).toContain("the server process exited with code 3");
    expect(died.stderr).toContain("  no config");
  });
});

describe.each(ERAS)("an mcpkit server over stdio, %s", (era) => {
  const cli = (...words: string[]) =>
    runCliProcess(["--era", era, "--", process.execPath, FIXTURE, ...words]);

  it("info, tools, call, a tool error, read and complete", async () => {
    // Independent runs, side by side: each launches its own server.
    const [info, tools, add, fail, read, complete] = await Promise.all([
      cli("info"),
      cli("tools"),
      cli("call", "add", "a=20", "b=22"),
      cli("call", "fail"),
      cli("read", "test://static-text", "--json"),
      cli("complete", "--prompt", "greet", "tone=f"),
    ]);
    expect(info.status).toBe(0);
    expect(info.stdout).toMatch(new RegExp(`^server\\s+fixture 1.2.3\\nera\\s+${era}\\n`));
    expect(tools.stdout).toMatch(/^add\s+a: number, b: number\s+Adds two numbers$/m);
    expect([add.status, add.stdout]).toEqual([0, "42\n"]);
    expect([fail.status, fail.stdout]).toEqual([1, "tool exploded\n"]);
    expect(JSON.parse(read.stdout)).toMatchObject({
      contents: [{ uri: "test://static-text", text: "hello" }],
    });
    expect(complete.stdout).toBe("formally\n");
  });
});

describe.each(ERAS)("an mcpkit server over HTTP, %s", (era) => {
  let served: Awaited<ReturnType<typeof serveCliServer>>;
  beforeAll(async () => {
    served = await serveCliServer();
  });
  afterAll(() => served.close());

  it("shows progress on stderr and declines elicitation when stdin is not a terminal", async () => {
    const steps = await runCliProcess([served.url, "--era", era, "call", "steps", "n=2"]);
    expect(steps.status).toBe(0);
    expect(steps.stdout).toBe("did 2 steps\n");
    expect(steps.stderr).toContain("progress steps: 2/2 100% step 2\n");
    const ask = await runCliProcess([served.url, "--era", era, "call", "ask"]);
    expect(ask.status).toBe(0);
    expect(ask.stdout).toBe("no answer (decline)\n");
    expect(ask.stderr).toContain("declined: stdin is not a terminal");
  });

  it("listen prints notifications until SIGINT, then exits 0", async () => {
    const listening = startCli([served.url, "--era", era, "listen", "--uri", "test://note"]);
    cleanup(async () => listening.child.kill("SIGKILL"));
    const say = () => `stdout: ${listening.stdout()} stderr: ${listening.stderr()}`;
    await waitUntil(() => listening.stderr().includes("(Ctrl-C to stop)"), say);
    await waitUntil(() => {
      void served.server.notifyResourceUpdated("test://note");
      return listening.stdout().includes("notifications/resources/updated uri=test://note");
    }, say);
    listening.child.kill("SIGINT");
    expect(await listening.exited).toBe(0);
    expect(listening.stderr()).not.toContain("mcpkit:");
  });
});

describe.each(ERAS)("the official v2 server over HTTP, %s", (era) => {
  it("info, tools, call, a tool's validation error, and no prompts", async () => {
    const handler = createMcpHandler(() => {
      const server = new McpServer({ name: "official-v2", version: "2.4.0" });
      server.registerTool(
        "add",
        { description: "Adds", inputSchema: z.object({ a: z.number(), b: z.number() }) },
        async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
      );
      return server;
    });
    cleanup(async () => handler.close());
    const port = await listenOnLoopback(
      createServer(toNodeHandler(handler) as Parameters<typeof createServer>[1] & {}),
      cleanup,
    );
    const url = `http://127.0.0.1:${port}/mcp`;
    const [info, tools, add, bad, prompts] = await Promise.all([
      runCliProcess([url, "--era", era, "info"]),
      runCliProcess([url, "--era", era, "tools"]),
      runCliProcess([url, "--era", era, "call", "add", "a=1.5", "b=2"]),
      runCliProcess([url, "--era", era, "call", "add", "--args", '{"a":"x"}']),
      runCliProcess([url, "--era", era, "prompts"]),
    ]);
    expect(info.status).toBe(0);
    expect(info.stdout).toMatch(new RegExp(`^server\\s+official-v2 2.4.0\\nera\\s+${era}\\n`));
    expect(tools.stdout).toMatch(/^add\s+a: number, b: number\s+Adds$/m);
    expect([add.status, add.stdout]).toEqual([0, "3.5\n"]);
    // Its argument validation fails the tool (isError), which is exit status 1.
    expect([bad.status, bad.stderr]).toEqual([1, 'mcpkit: the tool "add" reported an error\n']);
    // A family the server does not offer is listed as empty, not asked for.
    expect([prompts.status, prompts.stdout]).toEqual([0, "no prompts\n"]);
  });
});

describe("@modelcontextprotocol/server-everything over stdio", () => {
  const everything = (...words: string[]) => ["--", process.execPath, EVERYTHING, "stdio", ...words];

  it("falls back to 2025-11-25: tools, call with converted pairs, progress", async () => {
    const [tools, sum, slow] = await Promise.all([
      runCliProcess(everything("tools")),
      runCliProcess(everything("call", "get-sum", "a=1", "b=2.5")),
      runCliProcess(everything("call", "trigger-long-running-operation", "duration=0.2", "steps=2")),
    ]);
    expect(tools.status).toBe(0);
    expect(tools.stdout).toMatch(/^get-sum\s+a: number, b: number\s+Returns the sum of two numbers$/m);
    expect([sum.status, sum.stdout]).toEqual([0, "The sum of 1 and 2.5 is 3.5.\n"]);
    expect(slow.status).toBe(0);
    expect(slow.stderr).toContain("progress trigger-long-running-operation: 2/2 100%");
  });

  it("declines its elicitation without a terminal, and exits 3 when pinned to 2026-07-28", async () => {
    const [ask, pinned] = await Promise.all([
      runCliProcess(everything("call", "trigger-elicitation-request")),
      runCliProcess(["--era", "2026-07-28", ...everything("info")]),
    ]);
    expect(ask.status).toBe(0);
    expect(ask.stdout).toContain("declined");
    expect(ask.stderr).toContain("declined: stdin is not a terminal");
    expect(pinned.status).toBe(3);
    expect(pinned.stderr).toContain("VERSION_NEGOTIATION");
  });

  it("listen runs until SIGINT and exits 0", async () => {
    const listening = startCli(everything("listen", "--uri", "demo://resource/dynamic/text/1"));
    cleanup(async () => listening.child.kill("SIGKILL"));
    await waitUntil(
      () => listening.stderr().includes("(Ctrl-C to stop)"),
      () => listening.stderr(),
    );
    listening.child.kill("SIGINT");
    expect(await listening.exited).toBe(0);
  });
});
