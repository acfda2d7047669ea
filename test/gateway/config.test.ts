import { describe, expect, it } from "vitest";
import { parseGatewayConfig } from "../../src/gateway/config.js";
import { globMatcher } from "../../src/gateway/glob.js";
import { createGateway } from "../../src/gateway/index.js";
import { toolFilter } from "../../src/gateway/policy.js";
import { memoryCluster } from "../../src/server/index.js";
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
    [{ gateway: { redis: "redis://127.0.0.1" }, mcpServers: {} }, "gateway.redis"],
    [{ gateway: { tasks: "yes" }, mcpServers: {} }, "gateway.tasks"],
    [{ gateway: { auth: { resource: "https://g.example/mcp" } }, mcpServers: {} }, "gateway.auth.issuer"],
    [
      {
        gateway: { auth: { issuer: "http://as.example", resource: "https://g.example/mcp" } },
        mcpServers: {},
      },
      "gateway.auth.issuer",
    ],
    [{ gateway: { auth: { issuer: "https://as.example" } }, mcpServers: {} }, "gateway.auth.resource"],
    [
      {
        gateway: { auth: { issuer: "https://as.example", resource: "https://g/mcp", audience: "x" } },
        mcpServers: {},
      },
      "gateway.auth.audience",
    ],
    [
      {
        gateway: {
          auth: { issuer: "https://as.example", resource: "https://g/mcp", requiredScopes: ["a b"] },
        },
        mcpServers: {},
      },
      "gateway.auth.requiredScopes[0]",
    ],
    [{ gateway: { redis: {} }, mcpServers: {} }, "gateway.redis.url"],
    [{ gateway: { redis: { url: "http://127.0.0.1:6379" } }, mcpServers: {} }, "gateway.redis.url"],
    [{ gateway: { redis: { url: "redis://127.0.0.1", db: 2 } }, mcpServers: {} }, "gateway.redis.db"],
    [
      { gateway: { redis: { url: "redis://127.0.0.1", prefix: "" } }, mcpServers: {} },
      "gateway.redis.prefix",
    ],
  ])("refuses %j naming %s", (input, key) => {
    const error = configError(() => parseGatewayConfig(input));
    expect(error.details).toEqual({ key });
    expect(error.message.startsWith(key)).toBe(true);
  });

  it("takes gateway.redis, the Redis several instances share", () => {
    const config = parseGatewayConfig({
      gateway: { redis: { url: "rediss://cache.internal:6380", prefix: "gw:" } },
      mcpServers: {},
    });
    expect(config.redis).toEqual({ url: "rediss://cache.internal:6380", prefix: "gw:" });
    expect(parseGatewayConfig({ mcpServers: {} }).redis).toBeUndefined();
  });

  it("refuses gateway.redis in a program that passes no cluster: only mcpkit gateway connects to it", () => {
    const config = { gateway: { redis: { url: "redis://127.0.0.1:6379" } }, mcpServers: {} };
    const error = configError(() => createGateway({ config }));
    expect(error.details).toEqual({ key: "gateway.redis" });
    expect(createGateway({ config, cluster: memoryCluster() }).config.serverInfo.name).toBe("mcpkit-gateway");
  });

  it("takes gateway.auth for mcpkit gateway, and refuses it in a program, which puts its own authenticate in front", () => {
    const auth = { issuer: "http://127.0.0.1:9000", resource: "https://gateway.example/mcp" };
    const config = { gateway: { auth: { ...auth, requiredScopes: ["mcp"] } }, mcpServers: {} };
    expect(parseGatewayConfig(config).auth).toEqual({
      ...auth,
      jwksUri: undefined,
      requiredScopes: ["mcp"],
      scopesSupported: undefined,
    });
    expect(configError(() => createGateway({ config })).details).toEqual({ key: "gateway.auth" });
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

describe("OAuth of HTTP upstreams", () => {
  const url = "https://search.example.com/mcp";
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own "${NAME}" syntax
  const machine = { grant: "client_credentials", clientId: "gateway", clientSecret: "${SEARCH_SECRET}" };
  const oauthOf = (input: unknown) => parseGatewayConfig(input).upstreams[0]?.target;

  it("takes a machine grant whose secret is read from the environment, and a login, and a token directory", () => {
    const config = parseGatewayConfig({
      gateway: { tokenStore: { dir: "~/.config/mcpkit/gateway-tokens" } },
      mcpServers: {
        search: { url, oauth: { ...machine, scopes: ["mcp:read"] } },
        notes: { url, oauth: { grant: "authorization_code", redirectPort: 8765 } },
        env: { url, oauth: { grant: "client_credentials", clientId: "g", clientSecretEnv: "G_SECRET" } },
      },
    });
    expect(config.tokenDir).toBe("~/.config/mcpkit/gateway-tokens");
    expect(config.upstreams.map((u) => (u.target.kind === "http" ? u.target.oauth : undefined))).toEqual([
      {
        grant: "client_credentials",
        clientId: "gateway",
        clientSecretEnv: "SEARCH_SECRET",
        scopes: ["mcp:read"],
        redirectPort: 0,
      },
      {
        grant: "authorization_code",
        clientId: undefined,
        clientSecretEnv: undefined,
        scopes: undefined,
        redirectPort: 8765,
      },
      {
        grant: "client_credentials",
        clientId: "g",
        clientSecretEnv: "G_SECRET",
        scopes: undefined,
        redirectPort: 0,
      },
    ]);
    expect(oauthOf({ mcpServers: { a: { url } } })).not.toHaveProperty("oauth");
    expect(parseGatewayConfig({ mcpServers: {} }).tokenDir).toBeUndefined();
  });

  it.each([
    [{ url, oauth: "yes" }, "mcpServers.a.oauth", "must be an object"],
    [{ url, oauth: { ...machine, grant: "password" } }, "mcpServers.a.oauth.grant", "must be"],
    [{ url, oauth: { clientId: "g" } }, "mcpServers.a.oauth.grant", "must be"],
    [{ url, oauth: { ...machine, clientId: undefined } }, "mcpServers.a.oauth.clientId", "is required"],
    [{ url, oauth: { ...machine, clientId: "" } }, "mcpServers.a.oauth.clientId", "non-empty"],
    [
      { url, oauth: { ...machine, clientSecret: "hunter2" } },
      "mcpServers.a.oauth.clientSecret",
      "environment",
    ],
    [
      { url, oauth: { ...machine, clientSecret: undefined } },
      "mcpServers.a.oauth.clientSecretEnv",
      "required",
    ],
    [{ url, oauth: { ...machine, clientSecretEnv: "X" } }, "mcpServers.a.oauth.clientSecretEnv", "not both"],
    [
      { url, oauth: { ...machine, clientSecret: undefined, clientSecretEnv: "1X" } },
      "mcpServers.a.oauth.clientSecretEnv",
      "variable",
    ],
    [{ url, oauth: { ...machine, scopes: ["a b"] } }, "mcpServers.a.oauth.scopes[0]", "scope"],
    [{ url, oauth: { ...machine, scopes: "mcp:read" } }, "mcpServers.a.oauth.scopes", "array"],
    [
      { url, oauth: { ...machine, redirectPort: 8765 } },
      "mcpServers.a.oauth.redirectPort",
      "authorization_code",
    ],
    [
      { url, oauth: { grant: "authorization_code", redirectPort: 70_000 } },
      "mcpServers.a.oauth.redirectPort",
      "65535",
    ],
    [
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own "${NAME}" syntax
      { url, oauth: { grant: "authorization_code", clientSecret: "${S}" } },
      "mcpServers.a.oauth.clientId",
      "secret",
    ],
    [{ url, oauth: { ...machine, resourse: url } }, "mcpServers.a.oauth.resourse", "not an option"],
    [
      { url, headers: { Authorization: "Bearer x" }, oauth: machine },
      "mcpServers.a.headers.Authorization",
      "oauth",
    ],
    [{ command: "node", oauth: machine }, "mcpServers.a.oauth", "not an option"],
  ])("refuses %j naming %s", (entry, key, words) => {
    const error = configError(() => parseGatewayConfig({ mcpServers: { a: entry } }));
    expect(error.details).toEqual({ key });
    expect(error.message.startsWith(key)).toBe(true);
    expect(error.message).toContain(words);
    // A secret written inline is never repeated in the error.
    expect(error.message).not.toContain("hunter2");
  });

  it.each([
    [{ tokenStore: "dir" }, "gateway.tokenStore", "object"],
    [{ tokenStore: { dir: "" } }, "gateway.tokenStore.dir", "non-empty"],
    [{ tokenStore: { path: "x" } }, "gateway.tokenStore.path", "not an option"],
  ])("refuses gateway %j naming %s", (gateway, key, words) => {
    const error = configError(() => parseGatewayConfig({ gateway, mcpServers: {} }));
    expect(error.details).toEqual({ key });
    expect(error.message).toContain(words);
  });

  it("a program must pass an auth provider for an upstream whose entry has oauth", () => {
    const config = { mcpServers: { search: { url, oauth: machine } } };
    const error = configError(() => createGateway({ config }));
    expect(error.details).toEqual({ key: "authProviders.search" });
    expect(error.message).toContain("mcpkit gateway");
    const provider = { headers: () => undefined, onChallenge: () => false };
    expect(() => createGateway({ config, authProviders: { search: provider } })).not.toThrow();
    expect(() => createGateway({ config, authProviders: () => provider })).not.toThrow();
    expect(configError(() => createGateway({ config, authProviders: () => undefined })).details).toEqual({
      key: "authProviders.search",
    });
  });
});
