import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { STDIO_MARKER_ENV } from "./process-tree.js";
import { checkDirectory, childEnvironment, resolveCommand } from "./spawn-config.js";

const root = mkdtempSync(join(tmpdir(), "mcpkit-spawn-"));
const bin = join(root, "bin");
const other = join(root, "other");
mkdirSync(bin);
mkdirSync(other);
mkdirSync(join(bin, "a-directory"));
for (const [dir, name, mode] of [
  [bin, "tool", 0o755],
  [other, "tool", 0o755],
  [bin, "not-executable", 0o644],
  [other, "only-here", 0o755],
] as const) {
  writeFileSync(join(dir, name), "#!/bin/sh\n");
  chmodSync(join(dir, name), mode);
}
afterAll(() => rmSync(root, { recursive: true, force: true }));

const MARKER = "0b5e2a4c-1111-4222-8333-944445555666";

describe("resolveCommand", () => {
  it("finds a bare name on PATH, first directory first, as an absolute path", () => {
    expect(resolveCommand("tool", "/", `${bin}:${other}`)).toBe(join(bin, "tool"));
    expect(resolveCommand("only-here", "/", `${bin}:${other}`)).toBe(join(other, "only-here"));
    expect(resolveCommand("sh", "/", process.env.PATH)).toMatch(/^\/.*\/sh$/);
  });

  it("skips empty and relative PATH entries instead of searching the working directory", () => {
    const attempt = () => resolveCommand("tool", bin, `:.:bin:${other}`);
    expect(attempt()).toBe(join(other, "tool"));
    expect(() => resolveCommand("tool", bin, ":.")).toThrow(/not found on PATH/);
  });

  it("takes a command holding a slash relative to cwd, never from PATH", () => {
    expect(resolveCommand("./bin/tool", root, "")).toBe(join(bin, "tool"));
    expect(resolveCommand(join(other, "tool"), "/", "")).toBe(join(other, "tool"));
  });

  it("fails before spawning with INVALID_CONFIG naming what was searched", () => {
    let caught: unknown;
    try {
      resolveCommand("no-such-program-xyz", "/", `${bin}:relative`);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      code: "INVALID_CONFIG",
      message: 'stdio launch command "no-such-program-xyz" was not found on PATH',
      details: { key: "command", command: "no-such-program-xyz", searched: [bin] },
    });
    expect(() => resolveCommand("not-executable", "/", bin)).toThrow(/not found on PATH/);
    expect(() => resolveCommand("a-directory", "/", bin)).toThrow(/not found on PATH/);
    expect(() => resolveCommand("./bin/not-executable", root, "")).toThrow(/is not an executable file/);
    expect(() => resolveCommand("", "/", bin)).toThrow(/non-empty string/);
    expect(() => resolveCommand("to\0ol", "/", bin)).toThrow(/NUL/);
    expect(() => resolveCommand("tool", "/", undefined)).toThrow(/not found on PATH/);
  });
});

describe("checkDirectory", () => {
  it("accepts a directory and refuses anything else", () => {
    expect(checkDirectory(root)).toBe(root);
    expect(() => checkDirectory(join(bin, "tool"))).toThrow(/cwd is not an existing directory/);
    expect(() => checkDirectory(join(root, "missing"))).toThrow(/cwd is not an existing directory/);
  });
});

describe("childEnvironment", () => {
  const parent = { HOME: "/home/me", SECRET_TOKEN: "s3cret", PATH: "/usr/bin" };

  it("inherit: the parent's variables, the caller's additions and removals, and the marker", () => {
    const env = childEnvironment("inherit", { EXTRA: "1", SECRET_TOKEN: undefined }, MARKER, parent);
    expect(env).toEqual({ HOME: "/home/me", PATH: "/usr/bin", EXTRA: "1", [STDIO_MARKER_ENV]: MARKER });
  });

  it("replace: only the listed variables and the marker", () => {
    expect(childEnvironment("replace", { ONLY: "this" }, MARKER, parent)).toEqual({
      ONLY: "this",
      [STDIO_MARKER_ENV]: MARKER,
    });
    expect(childEnvironment("replace", undefined, MARKER, parent)).toEqual({ [STDIO_MARKER_ENV]: MARKER });
  });

  it("keeps the markers this process inherited, so an outer launcher can still sweep, and drops junk", () => {
    const outer = "aaaaaaaa-0000-4000-8000-000000000001";
    const nested = { ...parent, [STDIO_MARKER_ENV]: `${outer}:not a token:` };
    expect(childEnvironment("replace", {}, MARKER, nested)[STDIO_MARKER_ENV]).toBe(`${outer}:${MARKER}`);
    const deep = { [STDIO_MARKER_ENV]: Array.from({ length: 40 }, (_, i) => `marker-${1000 + i}`).join(":") };
    expect(childEnvironment("inherit", {}, MARKER, deep)[STDIO_MARKER_ENV]?.split(":")).toHaveLength(16);
  });

  it("refuses the reserved marker name and malformed entries", () => {
    expect(() => childEnvironment("inherit", { [STDIO_MARKER_ENV]: "x" }, MARKER, parent)).toThrow(
      /reserved/,
    );
    expect(() => childEnvironment("inherit", { "A=B": "x" }, MARKER, parent)).toThrow(/names must/);
    expect(() => childEnvironment("inherit", { "": "x" }, MARKER, parent)).toThrow(/names must/);
    expect(() => childEnvironment("inherit", { A: "x\0y" }, MARKER, parent)).toThrow(/values must/);
    expect(() => childEnvironment("inherit", { A: 1 as unknown as string }, MARKER, parent)).toThrow(
      /values must/,
    );
  });
});
