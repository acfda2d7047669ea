import { describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.js";
import { globMatcher } from "../../src/gateway/glob.js";
import { createGateway } from "../../src/gateway/index.js";
import { toolFilter } from "../../src/gateway/policy.js";
import { configError } from "../support/config-error.js";

const stdio = { command: "node", args: ["server.js"] };

describe("gateway config", () => {
  it("takes a desktop client's mcpServers file as it is, keys it does not use included", () => {
    const config = parseGatewayConfig({
      mcpServers: {
        fs: { command: "npx", args: ["-y", "server"], env: { ROOT: "/tmp" }, cwd: "/", autoApprove: [] },
        remote: { type: "http", url: "http://127.0.0.1:3000/mcp", headers: { authorization: "Bearer x" } },
        off: { command: "gone", disabled: true },
      },
    });
    expect(config.separator).toBe("__");
    expect(config.upstreams.map((u) => u.name)).toEqual(["fs", "remote"]);
    expect(config.upstreams[0]?.target).toEqual({
      kind: "stdio",
      command: "npx",
      args: ["-y", "server"],
      env: { ROOT: "/tmp" },
      cwd: "/",
      inheritEnv: ["PATH"],
    });
    expect(config.upstreams[1]?.target).toEqual({
      kind: "http",
      url: "http://127.0.0.1:3000/mcp",
      headers: { authorization: "Bearer x" },
      allowPrivateAddress: false,
    });
    expect(config.upstreams[0]?.start).toBe("lazy");
  });

  it("applies gateway.defaults under each upstream's own policy", () => {
    const config = parseGatewayConfig({
      gateway: { separator: ".", defaults: { readOnly: true, timeoutMs: 5_000 } },
      mcpServers: { a: stdio, b: { ...stdio, readOnly: false, tools: { deny: ["rm*"] } } },
    });
    expect(config.upstreams[0]?.policy).toMatchObject({ readOnly: true, timeoutMs: 5_000, deny: [] });
    expect(config.upstreams[1]?.policy).toMatchObject({ readOnly: false, timeoutMs: 5_000, deny: ["rm*"] });
  });

  it.each([
    [{}, "mcpServers"],
    [{ mcpServers: {}, extra: 1 }, "extra"],
    [{ mcpServers: { a: { command: "x", url: "http://127.0.0.1/" } } }, "mcpServers.a"],
    [{ mcpServers: { a: {} } }, "mcpServers.a"],
    [{ mcpServers: { a: { ...stdio, bogus: 1 } } }, "mcpServers.a.bogus"],
    [{ mcpServers: { a: { ...stdio, args: ["ok", 3] } } }, "mcpServers.a.args[1]"],
    [{ mcpServers: { a: { ...stdio, env: { X: 1 } } } }, "mcpServers.a.env.X"],
    [{ mcpServers: { a: { ...stdio, tools: { allow: ["ok", ""] } } } }, "mcpServers.a.tools.allow[1]"],
    [{ mcpServers: { a: { ...stdio, tools: { only: [] } } } }, "mcpServers.a.tools.only"],
    [{ mcpServers: { a: { ...stdio, readOnly: "yes" } } }, "mcpServers.a.readOnly"],
    [{ mcpServers: { a: { ...stdio, maxResultBytes: 0 } } }, "mcpServers.a.maxResultBytes"],
    [{ mcpServers: { a: { ...stdio, start: "now" } } }, "mcpServers.a.start"],
    [{ mcpServers: { a: { url: "ftp://x/" } } }, "mcpServers.a.url"],
    [{ mcpServers: { a: { type: "sse", url: "http://127.0.0.1/sse" } } }, "mcpServers.a.type"],
    [{ mcpServers: { "a b": stdio } }, "mcpServers.a b"],
    [{ mcpServers: { a__b: stdio } }, "mcpServers.a__b"],
    [{ gateway: { separator: "/" }, mcpServers: {} }, "gateway.separator"],
    [{ gateway: { uriScheme: "9x" }, mcpServers: {} }, "gateway.uriScheme"],
    [{ gateway: { restart: { initialDelayMs: -1 } }, mcpServers: {} }, "gateway.restart.initialDelayMs"],
    [{ gateway: { defaults: { maxConcurrent: 1.5 } }, mcpServers: {} }, "gateway.defaults.maxConcurrent"],
  ])("refuses %j naming %s", (input, key) => {
    const error = configError(() => parseGatewayConfig(input));
    expect(error.details).toEqual({ key });
    expect(error.message.startsWith(key)).toBe(true);
  });

  it("refuses two upstreams whose names differ only in case: their namespaced names would collide for clients that fold case", () => {
    const error = configError(() => parseGatewayConfig({ mcpServers: { fs: stdio, FS: stdio } }));
    expect(error.details).toEqual({ key: "mcpServers.FS" });
    expect(error.message).toContain('"fs"');
  });
});

describe("tool policy", () => {
  const base = parseGatewayConfig({ mcpServers: { a: stdio } }).upstreams[0]?.policy;
  const tool = (name: string, readOnlyHint?: boolean) => ({
    name,
    inputSchema: { type: "object" as const },
    ...(readOnlyHint === undefined ? {} : { annotations: { readOnlyHint } }),
  });

  it("matches globs with * and ? without backtracking blow-up", () => {
    expect(globMatcher("read_*")("read_file")).toBe(true);
    expect(globMatcher("read_*")("write_file")).toBe(false);
    expect(globMatcher("?et")("get")).toBe(true);
    expect(globMatcher("a*b*c")("axxbyyc")).toBe(true);
    expect(globMatcher("a*b*c")("axxbyy")).toBe(false);
    expect(globMatcher(`${"*a".repeat(60)}b`)("a".repeat(128))).toBe(false);
  });

  it("lets through what allow holds and deny does not, and under readOnly only readOnlyHint tools", () => {
    if (base === undefined) throw new Error("no policy");
    const filter = toolFilter({ ...base, allow: ["read_*", "list"], deny: ["read_secret*"] });
    expect(["read_file", "read_secret_key", "list", "write"].filter((n) => filter(tool(n)))).toEqual([
      "read_file",
      "list",
    ]);
    const readOnly = toolFilter({ ...base, readOnly: true });
    expect([tool("a", true), tool("b", false), tool("c")].filter(readOnly).map((t) => t.name)).toEqual(["a"]);
  });
});

describe("HTTP upstreams at private addresses", () => {
  it.each([
    "10.0.0.5",
    "172.16.1.1",
    "192.168.1.10",
    "169.254.169.254",
    "[fd00::1]",
    "[fe80::1]",
    "[::ffff:10.1.2.3]",
  ])("refuses %s unless allowPrivateAddress says so", (host) => {
    const url = `http://${host}:8080/mcp`;
    const error = configError(() => parseGatewayConfig({ mcpServers: { a: { url } } }));
    expect(error.details).toEqual({ key: "mcpServers.a.url" });
    expect(
      parseGatewayConfig({ mcpServers: { a: { url, allowPrivateAddress: true } } }).upstreams,
    ).toHaveLength(1);
  });

  it.each(["127.0.0.1", "[::1]", "localhost", "mcp.example.com", "8.8.8.8", "172.32.0.1"])(
    "takes %s",
    (host) => {
      expect(
        parseGatewayConfig({ mcpServers: { a: { url: `https://${host}/mcp` } } }).upstreams,
      ).toHaveLength(1);
    },
  );
});

describe("createGateway options", () => {
  it.each([
    [{ maxParkedCalls: 0 }, "maxParkedCalls"],
    [{ inputRoundTimeoutMs: 1.5 }, "inputRoundTimeoutMs"],
  ])("refuses %j naming %s", (options, key) => {
    const error = configError(() => createGateway({ config: { mcpServers: {} }, ...options }));
    expect(error.details).toEqual({ key });
    expect(error.message).toBe(`gateway option ${key} must be a positive integer`);
  });
});
