import { readFileSync } from "node:fs";
import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { runCli } from "./run.js";
import { CLI_INFO } from "./session.js";
import { VERSION } from "./version.js";

const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

describe("the CLI version", () => {
  it("is package.json's, printed by --version and sent as the client version", async () => {
    expect(VERSION).toBe(version);
    expect(CLI_INFO.version).toBe(version);
    let out = "";
    const stdout = new Writable({
      write(chunk, _encoding, callback) {
        out += String(chunk);
        callback();
      },
    });
    const io = {
      stdout,
      stderr: new PassThrough(),
      stdin: new PassThrough(),
      interrupt: new AbortController().signal,
    };
    expect(await runCli(["--version"], io)).toBe(0);
    expect(out).toBe(`${version}\n`);
  });
});
