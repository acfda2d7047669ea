/**
 * `mcpkit gateway` as a real process (the BUILT command): HTTP by default with the URL as its first line,
 * `--stdio` for a desktop client, and the config reloaded on SIGHUP and on a change of the file without
 * touching the upstreams whose entry did not change.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../src/http/index.js";
import { launchStdio } from "../../src/stdio/index.js";
import { startCli } from "../cli/built-cli.js";
import { eventually, fixtureUpstream, startGatewayCli } from "./support.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

let dir = "";
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mcpkit-gateway-cli-"));
  return () => rmSync(dir, { recursive: true, force: true });
});

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

function writeConfig(name: string, mcpServers: { [name: string]: unknown }): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ mcpServers }));
  return file;
}

async function httpGateway(args: string[]) {
  const { cli, url } = await startGatewayCli(args, closers);
  const client = new Client({
    transport: new StreamableHttpClientTransport({ url }),
    clientInfo: { name: "t", version: "1" },
  });
  await client.connect();
  closers.push(() => client.close());
  return { cli, url, client };
}

describe("mcpkit gateway", () => {
  it("serves over HTTP, printing the URL as its first line, and stops its upstreams on SIGTERM", async () => {
    const file = writeConfig("http.json", { alpha: fixtureUpstream("alpha", { start: "boot" }) });
    const { cli, url, client } = await httpGateway(["--config", file, "--no-watch"]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(text(await client.callTool("alpha__echo", { text: "over http" }))).toBe("alpha: over http");
    const upstreamPid = Number(text(await client.callTool("alpha__pid", {})));
    cli.child.kill("SIGTERM");
    expect(await cli.exited).toBe(0);
    expect(() => process.kill(upstreamPid, 0)).toThrow();
  });

  it("serves a desktop client over --stdio", async () => {
    const file = writeConfig("stdio.json", { alpha: fixtureUpstream("alpha") });
    const { CLI_MAIN } = await import("../cli/built-cli.js");
    const client = new Client({
      transport: launchStdio({
        command: process.execPath,
        args: [CLI_MAIN, "gateway", "--config", file, "--stdio"],
      }),
      clientInfo: { name: "desktop", version: "1" },
    });
    await client.connect();
    closers.push(() => client.close());
    expect(text(await client.callTool("alpha__echo", { text: "over stdio" }))).toBe("alpha: over stdio");
  });

  it("reloads on SIGHUP and on a change of the file, keeping the upstreams whose entry did not change", async () => {
    const file = writeConfig("reload.json", { alpha: fixtureUpstream("alpha", { start: "boot" }) });
    const { cli, client } = await httpGateway(["--config", file]);
    const pid = text(await client.callTool("alpha__pid", {}));

    writeConfig("reload.json", {
      alpha: fixtureUpstream("alpha", { start: "boot" }),
      beta: fixtureUpstream("beta", { start: "boot" }),
    });
    cli.child.kill("SIGHUP");
    await eventually(async () => (await client.listAllTools()).some((t) => t.name === "beta__echo"));
    expect(text(await client.callTool("alpha__pid", {}))).toBe(pid);

    // A broken file keeps the running config, and says so.
    writeFileSync(file, "{ not json");
    cli.child.kill("SIGHUP");
    await eventually(() => cli.stderr().includes("kept the running config"));
    expect(text(await client.callTool("beta__echo", { text: "still" }))).toBe("beta: still");

    // The file watch: beta removed, alpha untouched.
    writeConfig("reload.json", { alpha: fixtureUpstream("alpha", { start: "boot" }) });
    await eventually(async () => !(await client.listAllTools()).some((t) => t.name.startsWith("beta__")));
    expect(text(await client.callTool("alpha__pid", {}))).toBe(pid);

    // A file replaced as editors do (written aside, renamed over it) is seen too, and again after that.
    for (const name of ["gamma", "delta"]) {
      const aside = writeConfig(`reload.${name}.tmp`, {
        alpha: fixtureUpstream("alpha", { start: "boot" }),
        [name]: fixtureUpstream(name, { start: "boot" }),
      });
      renameSync(aside, file);
      await eventually(async () => (await client.listAllTools()).some((t) => t.name === `${name}__echo`));
    }
    expect(text(await client.callTool("alpha__pid", {}))).toBe(pid);
  });

  it("refuses a bad config naming the key, with exit status 2", async () => {
    const file = writeConfig("bad.json", { alpha: { command: "x", bogus: true } });
    const cli = startCli(["gateway", "--config", file]);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain("mcpServers.alpha.bogus is not an option");
  });
});
