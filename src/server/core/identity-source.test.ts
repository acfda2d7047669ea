/**
 * The once-per-server warning about public cache defaults when requests get an identity: identity-dependent
 * cacheable output must be `"private"`. Here through `warnPublicCacheWithIdentity` itself and an in-process
 * transport's `serverIdentity`; the HTTP and stdio sources are tested with their transports.
 */
import { describe, expect, it } from "vitest";
import { fixtureServer } from "../../../test/support/fixture-server.js";
import { McpkitError } from "../../jsonrpc/errors.js";
import type { CacheHints } from "../../protocol/types/common.js";
import { createInProcessPair } from "../../transports/in-process.js";
import { checkStaticIdentity, warnPublicCacheWithIdentity } from "./identity-source.js";

const WARNING = 'must use cacheScope "private"';

function serverWith(cache: Partial<CacheHints> | undefined) {
  const warnings: { message: string; details: unknown }[] = [];
  const server = fixtureServer({
    ...(cache === undefined ? {} : { cache }),
    logger: { warn: (message, details) => warnings.push({ message, details }), error: () => {} },
  });
  return { server, warnings: () => warnings.filter(({ message }) => message.includes(WARNING)) };
}

describe("warnPublicCacheWithIdentity", () => {
  it("warns once per server configuration, with the defaults and the source", () => {
    const { server, warnings } = serverWith({ ttlMs: 5_000 });
    for (let i = 0; i < 5; i++) warnPublicCacheWithIdentity(server.config, "a test source");
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]?.details).toEqual({ ttlMs: 5_000, cacheScope: "public", source: "a test source" });
    const other = serverWith({ ttlMs: 5_000 });
    warnPublicCacheWithIdentity(other.server.config, "a test source");
    expect(other.warnings()).toHaveLength(1);
  });

  it("stays quiet when results are not kept (ttlMs 0, the default) or are private", () => {
    for (const cache of [undefined, { ttlMs: 0 }, { ttlMs: 5_000, cacheScope: "private" as const }]) {
      const { server, warnings } = serverWith(cache);
      warnPublicCacheWithIdentity(server.config, "a test source");
      expect(warnings(), JSON.stringify(cache)).toEqual([]);
    }
  });

  it("fires when an in-process transport with a serverIdentity is connected, not without one", async () => {
    const loud = serverWith({ ttlMs: 5_000 });
    for (let i = 0; i < 2; i++) await loud.server.connect(createInProcessPair({ serverIdentity: "ada" })[1]);
    expect(loud.warnings()).toHaveLength(1);
    const quiet = serverWith({ ttlMs: 5_000 });
    await quiet.server.connect(createInProcessPair()[1]);
    expect(quiet.warnings()).toEqual([]);
    await Promise.all([loud.server.close(), quiet.server.close()]);
  });
});

describe("checkStaticIdentity", () => {
  it("passes no identity and identities that name a principal; refuses the rest as INVALID_CONFIG", () => {
    for (const ok of [undefined, "ada", { principal: "ada" }, { sub: "ada" }]) {
      expect(() => checkStaticIdentity(ok, "identity")).not.toThrow();
    }
    for (const bad of [{}, new Map(), { principal: "ada", authorizationContext: () => {} }]) {
      expect(() => checkStaticIdentity(bad, "identity")).toThrow(McpkitError);
    }
  });
});
