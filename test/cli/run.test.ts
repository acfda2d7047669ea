/**
 * `runCli` in this process with injected stdout, stderr and stdin, against an mcpkit server on 127.0.0.1 in both
 * eras: every command's human and JSON output, argument conversion over the wire, exit statuses, progress,
 * logging, interactive elicitation (a stdin marked as a terminal) and its refusal without one, and listen.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { runCli } from "../../src/cli/run.js";
import { until } from "../support/until.js";
import { longTaskSignals, serveCliServer } from "./cli-server.js";
import { fakeIo } from "./fake-io.js";

let served: Awaited<ReturnType<typeof serveCliServer>>;
beforeAll(async () => {
  served = await serveCliServer();
});
afterAll(() => served.close());

async function run(words: string[], options: Parameters<typeof fakeIo>[0] = {}) {
  const fake = fakeIo(options);
  const status = await runCli([served.url, ...words], fake.io);
  return { status, stdout: fake.stdout.text, stderr: fake.stderr.text };
}

describe.each(["2026-07-28", "2025-11-25"])("runCli against an mcpkit HTTP server, %s", (era) => {
  const pinned = (words: string[], options?: Parameters<typeof fakeIo>[0]) =>
    run(["--era", era, ...words], options);

  it("info shows the server, the era, capabilities and instructions", async () => {
    const { status, stdout } = await pinned(["info"]);
    expect(status).toBe(ExitCode.OK);
    expect(stdout).toContain("cli-fixture 3.2.1");
    expect(stdout).toMatch(new RegExp(`^era\\s+${era}$`, "m"));
    expect(stdout).toMatch(/^capabilities\s+tools.*resources.*prompts/m);
    expect(stdout).toContain("instructions\n  A server for the CLI tests.\n  Second line.\n");
    const json = await pinned(["info", "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ era, serverInfo: { name: "cli-fixture" } });
  });

  it("tools is a table with arguments; --json gives the tools as listed", async () => {
    const { status, stdout } = await pinned(["tools"]);
    expect(status).toBe(ExitCode.OK);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^TOOL\s+ARGUMENTS\s+DESCRIPTION$/);
    expect(lines).toContainEqual(expect.stringMatching(/^add\s+a: number, b: number\s+Adds two numbers$/));
    expect(lines).toContainEqual(expect.stringMatching(/^steps\s+n: integer\s+Reports progress n times$/));
    const json = JSON.parse((await pinned(["tools", "--json"])).stdout) as { tools: { name: string }[] };
    expect(json.tools.map((t) => t.name)).toEqual([
      "add",
      "types",
      "fail",
      "steps",
      "sleep",
      "ask",
      "ask-two",
      "task-job",
      "long-task",
    ]);
  });

  it("call converts key=value pairs with the schema and sends them", async () => {
    const { status, stdout } = await pinned([
      "call",
      "types",
      "n=7",
      "on=false",
      'tags=["x","y"]',
      'opts={"k":1}',
      "mode=slow",
      "note=null",
    ]);
    expect(status).toBe(ExitCode.OK);
    expect(JSON.parse(stdout)).toEqual({
      n: 7,
      on: false,
      tags: ["x", "y"],
      opts: { k: 1 },
      mode: "slow",
      note: null,
    });
    const add = await pinned(["call", "add", "--args", '{"a":20,"b":22}']);
    expect(add.stdout).toBe("42\n");
  });

  it("refuses bad pairs before calling anything, exit 2", async () => {
    const bad = await pinned(["call", "types", "n=1.5"]);
    expect(bad.status).toBe(ExitCode.USAGE);
    expect(bad.stderr).toContain('tool "types": n: "1.5" is not an integer');
    const unknown = await pinned(["call", "add", "a=1", "b=2", "c=3"]);
    expect(unknown.status).toBe(ExitCode.USAGE);
    expect(unknown.stderr).toContain('has no argument "c" (arguments: a, b)');
    const missing = await pinned(["call", "add", "a=1"]);
    expect(missing.stderr).toContain('tool "add" needs b=...');
    const enumBad = await pinned(["call", "types", "mode=medium"]);
    expect(enumBad.stderr).toContain('"medium" is not one of "fast", "slow"');
    expect((await pinned(["call", "nope"])).stderr).toContain('the server has no tool "nope"');
  });

  it("a tool error exits 1 and prints the tool's text", async () => {
    const { status, stdout, stderr } = await pinned(["call", "fail"]);
    expect(status).toBe(ExitCode.TOOL_ERROR);
    expect(stdout).toBe("the tool failed on purpose\n");
    expect(stderr).toContain('the tool "fail" reported an error');
    const json = await pinned(["call", "fail", "--json"]);
    expect(json.status).toBe(ExitCode.TOOL_ERROR);
    expect(JSON.parse(json.stdout)).toMatchObject({ isError: true });
  });

  it("a JSON-RPC error from the server exits 3 (protocol error)", async () => {
    const { status, stderr } = await pinned(["call", "nope", "--args", "{}"]);
    expect(status).toBe(ExitCode.PROTOCOL);
    expect(stderr).toMatch(/the server answered -326\d\d/);
    const json = await pinned(["read", "test://missing", "--json"]);
    expect(json.status).toBe(ExitCode.PROTOCOL);
    expect(JSON.parse(json.stderr)).toMatchObject({
      error: { kind: "protocol", status: 3, code: expect.any(Number) },
    });
  });

  it("shows progress on stderr while a call runs, and log messages with --log-level", async () => {
    const { status, stdout, stderr } = await pinned(["call", "steps", "n=3", "--log-level", "info"]);
    expect(status).toBe(ExitCode.OK);
    expect(stdout).toBe("did 3 steps\n");
    expect(stderr).toContain("progress steps: 1/3 33% step 1\n");
    expect(stderr).toContain("progress steps: 3/3 100% step 3\n");
    expect(stderr).toContain("[info] steps: steps done\n");
  });

  it("runs a task-capable tool as a task, showing its status", async () => {
    const { status, stdout, stderr } = await pinned(["call", "task-job"]);
    expect(status).toBe(ExitCode.OK);
    expect(stdout).toBe("task done\n");
    expect(stderr).toContain("progress task-job: working");
  });

  it("Ctrl-C during a task cancels the task on the server and exits 130", async () => {
    const fake = fakeIo();
    const before = longTaskSignals.length;
    const running = runCli([served.url, "--era", era, "call", "long-task"], fake.io);
    await until(() => fake.stderr.text.includes("waiting for ever"));
    fake.interrupt.abort(new Error("interrupted"));
    expect(await running).toBe(ExitCode.INTERRUPTED);
    await until(() => longTaskSignals[before]?.aborted === true);
  });

  it("redraws progress in place on a terminal and clears it at the end", async () => {
    const { stdout, stderr } = await pinned(["call", "steps", "n=2"], { tty: true });
    expect(stdout).toBe("did 2 steps\n");
    const drawn = "\r\x1b[Ksteps: 1/2 50% step 1\r\x1b[Ksteps: 2/2 100% step 2\r\x1b[K";
    // A 2025-11-25 session gets the tool's log message without asking: it is written after clearing the line.
    expect(stderr).toBe(era === "2025-11-25" ? `${drawn}[info] steps: steps done\n` : drawn);
  });

  it("resources, read, prompts, prompt and complete", async () => {
    const resources = await pinned(["resources"]);
    expect(resources.stdout).toMatch(
      /^URI\s+NAME\s+MIME TYPE\s+DESCRIPTION\ntest:\/\/note\s+note\s+text\/plain\s+A note\n/,
    );
    expect(resources.stdout).toMatch(
      /URI TEMPLATE\s+NAME\s+MIME TYPE\s+DESCRIPTION\ntest:\/\/items\/\{id\}\s+item\n/,
    );
    expect((await pinned(["read", "test://note"])).stdout).toBe("a note\nwith two lines\n");
    expect((await pinned(["read", "test://items/7"])).stdout).toBe("item 7\n");
    const prompts = await pinned(["prompts"]);
    expect(prompts.stdout).toMatch(/^greet\s+name, tone\?\s+Greets someone$/m);
    expect((await pinned(["prompt", "greet", "name=Ada", "tone=wryly"])).stdout).toBe(
      "[user] Greet Ada wryly\n",
    );
    const missing = await pinned(["prompt", "greet", "tone=wryly"]);
    expect(missing.status).toBe(ExitCode.USAGE);
    expect(missing.stderr).toContain('prompt "greet" needs name=...');
    expect((await pinned(["complete", "--prompt", "greet", "tone=w"])).stdout).toBe("warmly\nwryly\n");
    expect((await pinned(["complete", "--resource", "test://items/{id}", "id=b"])).stdout).toBe("beta\n");
    const json = await pinned(["complete", "--prompt", "greet", "tone=f", "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ completion: { values: ["formally"] } });
  });

  it("answers an elicitation from a terminal: fields asked one by one, defaults left to the schema", async () => {
    const { status, stdout, stderr } = await pinned(["call", "ask"], { tty: true, input: "\nAda\n\ny\n" });
    expect(status).toBe(ExitCode.OK);
    expect(stderr).toContain("The server asks: Who are you?");
    expect(stderr).toContain("this field is required");
    expect(stdout).toBe('hello {"name":"Ada","age":30}\n');
  });

  it("asks two forms the server sends at once one after the other, on the one terminal", async () => {
    const { status, stdout, stderr } = await pinned(["call", "ask-two"], {
      tty: true,
      input: "Paris\ny\nblue\ny\n",
    });
    expect(status).toBe(ExitCode.OK);
    expect(stderr.match(/The server asks: /g)).toHaveLength(2);
    // Either order is fine, as long as each form got its own lines.
    expect(["Paris in blue\n", "blue in Paris\n"]).toContain(stdout);
  });

  it("declines an elicitation when stdin is not a terminal, saying so", async () => {
    const { status, stdout, stderr } = await pinned(["call", "ask"]);
    expect(status).toBe(ExitCode.OK);
    expect(stdout).toBe("no answer (decline)\n");
    expect(stderr).toContain(
      'the server asked for input ("Who are you?"); declined: stdin is not a terminal',
    );
  });

  it("listen prints list changes and resource updates until interrupted, then exits 0", async () => {
    const fake = fakeIo();
    const running = runCli([served.url, "--era", era, "listen", "--uri", "test://note"], fake.io);
    await until(() => fake.stderr.text.includes("(Ctrl-C to stop)"));
    // 2025 over HTTP: notifications travel on the session's GET stream, which may open just after the note.
    for (let i = 0; i < 50 && !fake.stdout.text.includes("notifications/resources/updated"); i++) {
      await served.server.notifyListChanged("tools");
      await served.server.notifyResourceUpdated("test://note");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    fake.interrupt.abort(new Error("interrupted"));
    expect(await running).toBe(ExitCode.OK);
    const lines = fake.stdout.text.trimEnd().split("\n");
    const changed = /^\d\d:\d\d:\d\d\.\d{3} notifications\/tools\/list_changed$/;
    const updated = /^\d\d:\d\d:\d\d\.\d{3} notifications\/resources\/updated uri=test:\/\/note$/;
    expect(lines.filter((line) => !changed.test(line) && !updated.test(line))).toEqual([]);
    expect(lines.some((line) => changed.test(line))).toBe(true);
  });
});

describe("runCli failures", () => {
  it("never prints header values, even in a connection failure", async () => {
    const fake = fakeIo();
    const status = await runCli(
      ["http://127.0.0.1:9/mcp", "-H", "Authorization: Bearer s3cr3t-value", "tools"],
      fake.io,
    );
    expect(status).toBe(ExitCode.CONNECTION);
    expect(fake.stderr.text).toContain("connection failed: TRANSPORT");
    expect(fake.stderr.text + fake.stdout.text).not.toContain("s3cr3t-value");
  });

  it("a header the transport owns is a usage error naming the header, not its value", async () => {
    const fake = fakeIo();
    const status = await runCli([served.url, "-H", "Mcp-Session-Id: s3cr3t-value", "tools"], fake.io);
    expect(status).toBe(ExitCode.USAGE);
    expect(fake.stderr.text).toMatch(/mcp-session-id/i);
    expect(fake.stderr.text).not.toContain("s3cr3t-value");
  });

  it("an interrupted call exits 130", async () => {
    const fake = fakeIo({ tty: true });
    const running = runCli([served.url, "call", "ask"], fake.io);
    await until(() => fake.stderr.text.includes("Name"));
    fake.interrupt.abort(new Error("interrupted"));
    expect(await running).toBe(ExitCode.INTERRUPTED);
    expect(fake.stderr.text).toContain("mcpkit: interrupted");
  });

  it("a call past --timeout exits 4 (connection: timed out)", async () => {
    const fake = fakeIo();
    const status = await runCli([served.url, "--timeout", "100", "call", "sleep", "ms=60000"], fake.io);
    expect(status).toBe(ExitCode.CONNECTION);
    expect(fake.stderr.text).toContain("connection failed: TIMEOUT");
  });

  it("plain http to a host that is not loopback needs --allow-http", async () => {
    const fake = fakeIo();
    expect(await runCli(["http://192.0.2.1/mcp", "tools"], fake.io)).toBe(ExitCode.USAGE);
    expect(fake.stderr.text).toContain("non_loopback_http");
  });
});
