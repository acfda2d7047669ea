// `mcpkit inspect --login`: the OAuth client of the CLI, whose authorization URL is printed, shown to the page
// and opened only when it is https (or loopback http), with an argv. In-process against the loopback OAuth world.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizationUrlPresenter } from "../../src/cli/inspect/command.js";
import { EventHub } from "../../src/cli/inspect/events.js";
import { Output } from "../../src/cli/io.js";
import { runCli } from "../../src/cli/run.js";
import { fakeIo } from "../cli/fake-io.js";
import { followRedirect, type OAuthWorld, startOAuthWorld } from "../support/oauth-fixture.js";
import { until } from "../support/until.js";

describe("the authorization URL", () => {
  function presenter(open: boolean) {
    const fake = fakeIo();
    const hub = new EventHub();
    const published: unknown[] = [];
    hub.publish = (type, data) => void published.push({ type, data });
    const opened: string[] = [];
    const present = authorizationUrlPresenter({ open }, new Output(fake.io, false), hub, (url) =>
      opened.push(url),
    );
    return { present, stderr: fake.stderr, published, opened };
  }

  it("is printed, shown and opened when it is https or loopback http", () => {
    const p = presenter(true);
    p.present(new URL("https://auth.example.com/authorize?client_id=a&state=b"));
    expect(p.stderr.text).toContain("https://auth.example.com/authorize?client_id=a&state=b");
    expect(p.published).toEqual([
      { type: "auth", data: { url: "https://auth.example.com/authorize?client_id=a&state=b" } },
    ]);
    expect(p.opened).toEqual(["https://auth.example.com/authorize?client_id=a&state=b"]);
    const quiet = presenter(false);
    quiet.present(new URL("http://127.0.0.1:9000/authorize"));
    expect(quiet.opened).toEqual([]);
  });

  it("is refused otherwise: not shown, not opened, and the login fails", () => {
    for (const bad of [
      "http://auth.example.com/authorize",
      "javascript:alert(1)",
      "file:///etc/passwd",
      "https://u:p@auth.example.com/",
    ]) {
      const p = presenter(true);
      expect(() => p.present(new URL(bad)), bad).toThrow(/not https/);
      expect(p.opened).toEqual([]);
      expect(p.published).toEqual([{ type: "auth", data: { refused: true } }]);
      expect(p.stderr.text).toContain("refused an authorization URL");
    }
  });
});

describe("mcpkit inspect --login", () => {
  let world: OAuthWorld;
  let dir: string;

  beforeAll(async () => {
    world = await startOAuthWorld();
    dir = await mkdtemp(join(tmpdir(), "mcpkit-inspect-login-"));
  });
  afterAll(async () => {
    await world?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("logs in through the loopback redirect, then the page's operations reach the server", async () => {
    const fake = fakeIo();
    const credentials = join(dir, "credentials.json");
    const running = runCli(
      ["inspect", "--no-open", world.mcpUrl, "--login", "--credentials", credentials],
      fake.io,
    );
    await until(() => /https?:\/\/\S+\/authorize\S*/.test(fake.stderr.text));
    const url = new URL(fake.stdout.text.split("\n")[0] ?? "");
    const authorize = new URL(/(https?:\/\/\S+\/authorize\S*)/.exec(fake.stderr.text)?.[1] ?? "");
    const redirect = await followRedirect(authorize);
    await (await fetch(redirect ?? "")).body?.cancel();
    const op = async (name: string) => {
      const response = await fetch(`${url.origin}/api`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-mcpkit-token": url.searchParams.get("token") ?? "",
          origin: url.origin,
        },
        body: JSON.stringify({ op: name }),
      });
      return (await response.json()) as { result?: { [key: string]: unknown } };
    };
    await until(async () => (await op("state")).result?.info !== undefined);
    const tools = (await op("tools/list")).result?.tools as { name: string }[];
    expect(tools.length).toBeGreaterThan(0);
    expect(world.log.registrations[0]?.body).toMatchObject({ client_name: "mcpkit-inspect" });
    fake.interrupt.abort();
    expect(await running).toBe(0);
  }, 30_000);
});
