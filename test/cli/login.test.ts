/**
 * `mcpkit <url> --login`: runCli in this process against the loopback OAuth world (test/support/oauth-fixture.ts).
 * The first run prints the authorization URL, the test plays the browser (follows it, then delivers the redirect
 * to the CLI's 127.0.0.1 listener), and the call goes through; the second run reuses the tokens kept in the
 * credentials file without a login; without --login the 401 is a connection failure.
 */
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCommandLine } from "../../src/cli/args.js";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { runCli } from "../../src/cli/run.js";
import { followRedirect, type OAuthWorld, startOAuthWorld } from "../support/oauth-fixture.js";
import { until } from "../support/until.js";
import { fakeIo } from "./fake-io.js";

let world: OAuthWorld;
let dir: string;

beforeAll(async () => {
  world = await startOAuthWorld();
  dir = await mkdtemp(join(tmpdir(), "mcpkit-cli-login-"));
});

afterAll(async () => {
  await world?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The person at the browser: opens the URL the CLI printed and lets the redirect reach the CLI's listener. */
async function actAsBrowser(stderr: { text: string }): Promise<void> {
  await until(() => /https?:\/\/\S+\/authorize\S*/.test(stderr.text));
  const url = new URL(/(https?:\/\/\S+\/authorize\S*)/.exec(stderr.text)?.[1] ?? "");
  const redirect = await followRedirect(url);
  expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  const delivered = await fetch(redirect ?? "");
  await delivered.body?.cancel();
}

describe("mcpkit --login", () => {
  it("logs in through the printed URL and the loopback redirect, then reuses the stored tokens", async () => {
    const credentials = join(dir, "credentials.json");
    const first = fakeIo();
    const running = runCli([world.mcpUrl, "--login", "--credentials", credentials, "call", "read"], first.io);
    await actAsBrowser(first.stderr);
    expect(await running).toBe(ExitCode.OK);
    expect(first.stdout.text).toContain("read");
    expect(first.stderr.text).toContain("log in by opening this URL");
    expect(world.log.authorizations).toHaveLength(1);
    expect(world.log.registrations[0]?.body).toMatchObject({
      client_name: "mcpkit-cli",
      application_type: "native",
    });
    // The file holds the tokens, readable by the user only.
    expect((await stat(credentials)).mode & 0o777).toBe(0o600);
    expect(await readFile(credentials, "utf8")).toContain("access_token");

    const second = fakeIo();
    expect(await runCli([world.mcpUrl, "--credentials", credentials, "call", "read"], second.io)).toBe(
      ExitCode.OK,
    );
    expect(second.stderr.text).not.toContain("log in");
    expect(world.log.authorizations).toHaveLength(1); // no second login
  });

  it("without --login a protected server is a connection failure, and --login needs an HTTP target", async () => {
    const plain = fakeIo();
    expect(await runCli([world.mcpUrl, "tools"], plain.io)).toBe(ExitCode.CONNECTION);
    expect(() => parseCommandLine(["--login", "--", "node", "server.js", "tools"])).toThrow(
      /HTTP target only/,
    );
    expect(() => parseCommandLine(["http://127.0.0.1:1/mcp", "--credentials", "", "tools"])).toThrow(
      /file path/,
    );
  });
});
