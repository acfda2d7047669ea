import { describe, expect, it } from "vitest";
import { DEFAULT_TIMEOUT_MS, parseCommandLine } from "./args.js";
import { UsageError } from "./exit-codes.js";

function run(argv: string[]) {
  const parsed = parseCommandLine(argv);
  if (parsed.kind !== "run") throw new Error(`expected a run, got ${parsed.kind}`);
  return parsed.args;
}

function usage(argv: string[]): string {
  try {
    parseCommandLine(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error("no usage error");
}

describe("parseCommandLine", () => {
  it("reads inspect before or after a URL, and before or after a program, with --port and --no-open", () => {
    const url = "http://127.0.0.1:3000/mcp";
    for (const argv of [
      ["inspect", url],
      [url, "inspect"],
    ]) {
      expect(run(argv)).toMatchObject({
        target: { kind: "http", url },
        command: "inspect",
        port: 0,
        open: true,
      });
    }
    expect(run(["inspect", "--port", "8123", "--no-open", "--", "node", "s.js"])).toMatchObject({
      target: { kind: "stdio", command: "node", args: ["s.js"] },
      command: "inspect",
      port: 8123,
      open: false,
    });
    expect(run(["--", "node", "s.js", "inspect"]).command).toBe("inspect");
    expect(usage(["inspect", url, "--port", "65536"])).toMatch(/--port/);
    expect(usage(["inspect", url, "--port", "-1"])).toMatch(/--port/);
    expect(usage([url, "tools", "--port", "80"])).toBe("--port applies to inspect");
    expect(usage([url, "tools", "--no-open"])).toBe("--no-open applies to inspect");
    expect(run(["inspect", url, "--sampling-reply", "reply.json"]).samplingReply).toBe("reply.json");
    expect(run(["inspect", url]).samplingReply).toBeUndefined();
    expect(usage([url, "tools", "--sampling-reply", "r.json"])).toBe("--sampling-reply applies to inspect");
    expect(usage(["inspect", url, "--sampling-reply="])).toBe("--sampling-reply needs a file path");
    expect(usage(["inspect", url, "extra"])).toMatch(/takes no operands/);
  });

  it("reads a URL target, the command after it, and defaults", () => {
    const args = run(["http://127.0.0.1:3000/mcp", "tools"]);
    expect(args).toMatchObject({
      target: { kind: "http", url: "http://127.0.0.1:3000/mcp" },
      command: "tools",
      operands: [],
      era: undefined,
      json: false,
      timeoutMs: DEFAULT_TIMEOUT_MS,
    });
    expect(run(["https://mcp.example.com/mcp"]).command).toBe("info");
  });

  it("splits -- program args command: the first command word after the program starts mcpkit's part", () => {
    const args = run(["--", "npx", "@modelcontextprotocol/server-everything", "stdio", "tools", "--json"]);
    expect(args.target).toEqual({
      kind: "stdio",
      command: "npx",
      args: ["@modelcontextprotocol/server-everything", "stdio"],
    });
    expect(args.command).toBe("tools");
    expect(args.json).toBe(true);
    // Flags of the program before the command stay the program's.
    const flagged = run(["--era", "2025-11-25", "--", "node", "s.js", "--port", "3", "call", "add", "a=1"]);
    expect(flagged.target).toEqual({ kind: "stdio", command: "node", args: ["s.js", "--port", "3"] });
    expect(flagged).toMatchObject({ command: "call", operands: ["add", "a=1"], era: "2025-11-25" });
    expect(flagged).toMatchObject({ fallback: "lenient" });
    expect(run(["https://h/mcp", "--fallback", "strict", "tools"])).toMatchObject({ fallback: "strict" });
  });

  it("takes the command before -- whole, so program arguments may be command names", () => {
    const args = run(["call", "add", "a=1", "--", "server", "tools", "info"]);
    expect(args.target).toEqual({ kind: "stdio", command: "server", args: ["tools", "info"] });
    expect(args).toMatchObject({ command: "call", operands: ["add", "a=1"] });
    expect(run(["--", "server"]).command).toBe("info");
    // The program itself is never taken for a command.
    expect(run(["--", "tools"]).target).toEqual({ kind: "stdio", command: "tools", args: [] });
  });

  it("reads every flag", () => {
    const args = run([
      "https://h/mcp",
      "-H",
      "Authorization: Bearer x:y",
      "--header",
      "X-Team:  blue ",
      "--timeout",
      "5000",
      "--log-level",
      "debug",
      "--era",
      "2026-07-28",
      "--allow-http",
      "-v",
      "listen",
      "--uri",
      "file:///a",
      "--uri",
      "file:///b",
    ]);
    expect(args).toMatchObject({
      headers: { Authorization: "Bearer x:y", "X-Team": "blue" },
      timeoutMs: 5000,
      logLevel: "debug",
      era: "2026-07-28",
      allowHttp: true,
      verbose: true,
      uris: ["file:///a", "file:///b"],
    });
    const complete = run(["https://h/mcp", "complete", "--resource", "t://{id}", "id=a", "--context", "k=v"]);
    expect(complete).toMatchObject({
      ref: { type: "ref/resource", uri: "t://{id}" },
      operands: ["id=a"],
      context: ["k=v"],
    });
    expect(run(["https://h/mcp", "call", "t", "--args", '{"a":[1]}']).argsJson).toEqual({ a: [1] });
  });

  it("answers --help and --version", () => {
    expect(parseCommandLine(["--help"])).toEqual({ kind: "help" });
    expect(parseCommandLine(["-h", "https://h/mcp", "tools"])).toEqual({ kind: "help" });
    expect(parseCommandLine(["--version"])).toEqual({ kind: "version" });
  });

  it("refuses bad command lines with a message that says what is wrong", () => {
    expect(usage([])).toContain("no server given");
    expect(usage(["tools"])).toContain("not a URL");
    expect(usage(["ftp://h/x"])).toContain("must be http or https");
    expect(usage(["https://h/mcp", "frobnicate"])).toContain('unknown command "frobnicate"');
    expect(usage(["https://h/mcp", "--nope"])).toContain("--nope");
    expect(usage(["https://h/mcp", "--fallback", "never"])).toContain(
      "--fallback must be one of lenient, strict",
    );
    expect(usage(["https://h/mcp", "--era", "2024-11-05"])).toContain(
      "--era must be one of 2025-11-25, 2026-07-28",
    );
    expect(usage(["https://h/mcp", "--timeout", "0"])).toContain("--timeout");
    expect(usage(["https://h/mcp", "--timeout", "1e3"])).toContain("--timeout");
    expect(usage(["https://h/mcp", "--log-level", "loud"])).toContain("--log-level");
    expect(usage(["https://h/mcp", "call"])).toBe("call needs a tool name");
    expect(usage(["https://h/mcp", "read"])).toBe("read needs a URI");
    expect(usage(["https://h/mcp", "read", "a", "b"])).toBe("read takes one URI");
    expect(usage(["https://h/mcp", "tools", "x"])).toContain("tools takes no operands");
    expect(usage(["https://h/mcp", "call", "t", "--args", "{"])).toContain("--args is not JSON");
    expect(usage(["https://h/mcp", "call", "t", "--args", "[1]"])).toBe("--args must be a JSON object");
    expect(usage(["https://h/mcp", "call", "t", "a=1", "--args", "{}"])).toContain("not both");
    expect(usage(["https://h/mcp", "tools", "--args", "{}"])).toBe("--args applies to call and prompt");
    expect(usage(["https://h/mcp", "complete", "a=1"])).toContain(
      "exactly one of --prompt NAME or --resource",
    );
    expect(usage(["https://h/mcp", "complete", "--prompt", "p"])).toContain("one ARGUMENT=VALUE");
    expect(usage(["https://h/mcp", "tools", "--prompt", "p"])).toContain("apply to complete");
    expect(usage(["https://h/mcp", "tools", "--uri", "x"])).toBe("--uri applies to listen");
    expect(usage(["--"])).toContain("-- must be followed by a program");
    expect(usage(["https://h/mcp", "--", "server"])).toContain("either a URL or -- <program>");
    expect(usage(["--header", "A: b", "--", "server"])).toBe("--header applies to an HTTP target only");
  });

  it("never echoes a header value in an error", () => {
    expect(usage(["https://h/mcp", "-H", "no-colon-secret"])).toBe("--header needs NAME: VALUE");
    const bad = usage(["https://h/mcp", "-H", "Bad Name: s3cr3t"]);
    expect(bad).toContain('"Bad Name" is not a header name');
    expect(bad).not.toContain("s3cr3t");
  });
});
