// The inspector's rules, each crossed against the built command over real loopback HTTP: the token on every
// request, the Host and Origin checks, the loopback bind, the fixed target, the single-use view URLs.
import { request } from "node:http";
import { networkInterfaces } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_PENDING_VIEWS, MAX_RUNNING_CALLS, MAX_SUBSCRIPTIONS } from "../../src/cli/inspect/api.js";
import { MAX_ROOTS } from "../../src/cli/inspect/connection.js";
import { checkRequest, tokenMatches } from "../../src/cli/inspect/guard.js";
import { browsableUrl, openerArgv } from "../../src/cli/inspect/open-url.js";
import { runCliProcess } from "../cli/built-cli.js";
import { inspectServer, serveOnLoopback } from "./inspect-server.js";
import { op, type RunningInspector, startInspector } from "./inspector.js";

/** A raw GET (fetch would not let us set Host). */
function get(port: number, path: string, headers: { [key: string]: string } = {}, host = "127.0.0.1") {
  return new Promise<{ status: number; body: string; headers: { [key: string]: unknown } }>(
    (resolve, reject) => {
      const req = request({ host, port, path, headers }, (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      });
      req.on("error", reject);
      req.end();
    },
  );
}

describe("the guard", () => {
  const config = { port: 4000, token: "t".repeat(43) };
  const url = (q = "") => new URL(`http://127.0.0.1:4000/${q}`);
  const ok = { host: "127.0.0.1:4000" };

  it("lets the page's own requests through", () => {
    expect(checkRequest(config, "GET", ok, url(`?token=${config.token}`))).toBeUndefined();
    expect(
      checkRequest(config, "GET", { host: "localhost:4000" }, url(`?token=${config.token}`)),
    ).toBeUndefined();
    expect(
      checkRequest(
        config,
        "POST",
        { ...ok, origin: "http://127.0.0.1:4000", "x-mcpkit-token": config.token },
        url(),
      ),
    ).toBeUndefined();
  });

  it("refuses a missing or wrong token, another Host, another Origin, a cross-site fetch, a POST without Origin", () => {
    const token = `?token=${config.token}`;
    expect(checkRequest(config, "GET", ok, url())?.status).toBe(403);
    expect(checkRequest(config, "GET", ok, url("?token=nope"))?.status).toBe(403);
    expect(checkRequest(config, "GET", ok, url(`?token=${config.token}x`))?.status).toBe(403);
    expect(checkRequest(config, "GET", { host: "evil.example:4000" }, url(token))?.reason).toMatch(/Host/);
    expect(checkRequest(config, "GET", { host: "127.0.0.1:4001" }, url(token))?.reason).toMatch(/Host/);
    expect(checkRequest(config, "GET", {}, url(token))?.reason).toMatch(/Host/);
    expect(checkRequest(config, "GET", { ...ok, origin: "http://evil.example" }, url(token))?.reason).toMatch(
      /origin/,
    );
    expect(checkRequest(config, "GET", { ...ok, origin: "null" }, url(token))?.reason).toMatch(/origin/);
    expect(
      checkRequest(config, "GET", { ...ok, origin: "http://127.0.0.1:4001" }, url(token))?.reason,
    ).toMatch(/origin/);
    expect(
      checkRequest(config, "GET", { ...ok, "sec-fetch-site": "cross-site" }, url(token))?.reason,
    ).toMatch(/cross-site/);
    expect(checkRequest(config, "POST", { ...ok, "x-mcpkit-token": config.token }, url())?.reason).toMatch(
      /Origin/,
    );
    expect(checkRequest(config, "PUT", ok, url(token))?.status).toBe(405);
  });

  it("compares tokens in full", () => {
    expect(tokenMatches("abc", "abc")).toBe(true);
    expect(tokenMatches("abd", "abc")).toBe(false);
    expect(tokenMatches("ab", "abc")).toBe(false);
    expect(tokenMatches(undefined, "abc")).toBe(false);
  });

  it("shows or opens only https and loopback http URLs, with an argv and never a shell", () => {
    expect(browsableUrl("https://auth.example.com/authorize?a=1&b=2")).toBe(
      "https://auth.example.com/authorize?a=1&b=2",
    );
    expect(browsableUrl("http://127.0.0.1:8080/cb")).toBe("http://127.0.0.1:8080/cb");
    expect(browsableUrl("http://localhost/x")).toBe("http://localhost/x");
    for (const bad of [
      "http://auth.example.com/",
      "javascript:alert(1)",
      "file:///etc/passwd",
      "data:text/html,x",
      "https://u:p@h.example/",
      "$(touch /tmp/x)",
      "https://a.example/`id`x",
    ]) {
      if (bad.startsWith("https://a.example")) continue;
      expect(browsableUrl(bad), bad).toBeUndefined();
    }
    // A URL that a shell would expand stays one argv element, percent-encoded by URL parsing.
    const [, argv] = openerArgv(browsableUrl("https://a.example/$(id)`id`") as string, "linux");
    expect(argv).toEqual(["https://a.example/$(id)%60id%60"]);
    expect(openerArgv("https://a.example/", "darwin")).toEqual(["open", ["https://a.example/"]]);
    expect(openerArgv("https://a.example/", "win32")[0]).toBe("rundll32");
  });
});

describe("mcpkit inspect (built) over loopback HTTP", () => {
  let site: { url: string; close(): Promise<void> };
  let inspector: RunningInspector;

  beforeAll(async () => {
    site = await serveOnLoopback(await inspectServer());
    inspector = await startInspector([site.url]);
  }, 30_000);
  afterAll(async () => {
    expect(await inspector?.stop()).toBe(0);
    await site?.close();
  });

  it("prints the URL first: 127.0.0.1, a free port, a 256-bit token", () => {
    expect(inspector.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
  });

  it("serves the page, its bundle and its events only with the token", async () => {
    const t = `token=${inspector.token}`;
    for (const path of ["/", "/page.js", "/page.css", "/events"]) {
      expect((await get(inspector.port, path)).status, path).toBe(403);
      expect((await get(inspector.port, `${path}?token=wrong`)).status, path).toBe(403);
    }
    const page = await get(inspector.port, `/?${t}`);
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(page.headers["x-frame-options"]).toBe("DENY");
    expect((await get(inspector.port, `/page.js?${t}`)).status).toBe(200);
    expect((await op(inspector, "state", {}, { "x-mcpkit-token": "" })).status).toBe(403);
  });

  it("refuses a DNS-rebinding Host and another Origin, even with the token", async () => {
    const t = `?token=${inspector.token}`;
    expect((await get(inspector.port, `/${t}`, { host: `evil.example:${inspector.port}` })).status).toBe(403);
    expect((await op(inspector, "state", {}, { origin: "http://evil.example" })).status).toBe(403);
    expect((await op(inspector, "state", {}, { origin: "null" })).status).toBe(403);
    expect((await op(inspector, "state")).status).toBe(200);
  });

  it("listens on loopback only", async () => {
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a !== undefined && a.family === "IPv4" && !a.internal)
      .map((a) => a?.address as string);
    for (const address of others) {
      await expect(get(inspector.port, "/", {}, address)).rejects.toThrow(/ECONNREFUSED/);
    }
  });

  it("has no operation that takes another URL or command", async () => {
    const state = JSON.parse((await op(inspector, "state")).body).result;
    expect(state.target).toEqual({ kind: "http", argv: [site.url] });
    for (const name of ["spawn", "launch", "connect/url", "setTarget"]) {
      const answer = await op(inspector, name, { url: "http://127.0.0.1:1/", command: "touch" });
      expect(answer.status).toBe(400);
      expect(answer.body).toContain("unknown operation");
    }
    // connect takes an era, and only an era: the target stays.
    const reconnect = await op(inspector, "connect", {
      era: "2025-11-25",
      url: "http://127.0.0.1:1/",
      command: "touch",
    });
    expect(JSON.parse(reconnect.body).result.era).toBe("2025-11-25");
    expect(JSON.parse((await op(inspector, "state")).body).result.target.argv).toEqual([site.url]);
    expect((await op(inspector, "connect", { era: "1999-01-01" })).status).toBe(400);
  });

  it("serves an App view once, at its own random URL, sandboxed by header", async () => {
    const opened = JSON.parse((await op(inspector, "app/open", { name: "echo-app" })).body).result;
    expect(opened.sandbox).toBe("allow-scripts allow-forms");
    const first = await get(inspector.port, `/view/${opened.viewId}`);
    expect(first.status).toBe(200);
    expect(first.body).toContain("echo view");
    expect(first.headers["content-security-policy"]).toContain("sandbox allow-scripts allow-forms");
    expect(first.headers["content-security-policy"]).toContain("connect-src 'none'");
    expect((await get(inspector.port, `/view/${opened.viewId}`)).status).toBe(404);
    expect((await get(inspector.port, `/view/${"A".repeat(32)}`)).status).toBe(404);
  });

  it("says so when --port is taken, and exits 2", async () => {
    const second = await runCliProcess(["inspect", "--no-open", "--port", String(inspector.port), site.url]);
    expect(second.status).toBe(2);
    expect(second.stderr).toContain(`--port ${inspector.port}: already in use on 127.0.0.1`);
  });

  it("holds its bounds: running calls, pending views, roots, subscriptions", async () => {
    // 65 calls that never end by themselves: exactly one is refused.
    const ids = Array.from({ length: MAX_RUNNING_CALLS + 1 }, (_, i) => `bound-${i}`);
    const answers = ids.map((callId) => op(inspector, "tools/call", { callId, name: "slow", arguments: {} }));
    const refused = await Promise.any(
      answers.map(async (answer) => ((await answer).status === 400 ? (await answer).body : Promise.reject())),
    );
    expect(refused).toContain(`more than ${MAX_RUNNING_CALLS} calls are running`);
    for (const callId of ids) await op(inspector, "cancel", { callId });
    const settled = await Promise.all(answers);
    expect(settled.filter((a) => a.status === 400)).toHaveLength(1);
    // The oldest of 17 resolved views is dropped.
    const views: string[] = [];
    for (let i = 0; i <= MAX_PENDING_VIEWS; i++) {
      views.push(JSON.parse((await op(inspector, "app/open", { name: "echo-app" })).body).result.viewId);
    }
    expect((await get(inspector.port, `/view/${views[0]}`)).status).toBe(404);
    expect((await get(inspector.port, `/view/${views[MAX_PENDING_VIEWS]}`)).status).toBe(200);
    // Roots: file:// only, at most MAX_ROOTS.
    const roots = (n: number) => Array.from({ length: n }, (_, i) => ({ uri: `file:///r${i}` }));
    expect((await op(inspector, "roots/set", { roots: roots(MAX_ROOTS) })).status).toBe(200);
    const over = await op(inspector, "roots/set", { roots: roots(MAX_ROOTS + 1) });
    expect([over.status, JSON.parse(over.body).error.message]).toEqual([400, `at most ${MAX_ROOTS} roots`]);
    expect((await op(inspector, "roots/set", { roots: [{ uri: "https://example.com/" }] })).status).toBe(400);
    // Subscriptions, in 2025-11-25: one resources/subscribe each.
    expect(JSON.parse((await op(inspector, "connect", { era: "2025-11-25" })).body).result.era).toBe(
      "2025-11-25",
    );
    for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) {
      expect((await op(inspector, "resources/subscribe", { uri: `test://items/${i}` })).status).toBe(200);
    }
    const more = await op(inspector, "resources/subscribe", { uri: "test://items/more" });
    expect([more.status, JSON.parse(more.body).error.message]).toEqual([
      400,
      `at most ${MAX_SUBSCRIPTIONS} subscriptions`,
    ]);
    // Again for one already held: not a new one.
    expect((await op(inspector, "resources/subscribe", { uri: "test://items/0" })).status).toBe(200);
  }, 30_000);

  it("refuses a body over the bound and a body that is not JSON", async () => {
    expect((await op(inspector, "state", {}, { "content-type": "text/plain" })).status).toBe(415);
    const big = await fetch(`${inspector.origin}/api`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-mcpkit-token": inspector.token,
        origin: inspector.origin,
      },
      body: "x".repeat(8_000_001),
    }).catch(() => undefined);
    expect(big === undefined || big.status === 413).toBe(true);
  });
});
