import { describe, expect, it } from "vitest";
import { MetaKey } from "../protocol/meta.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../protocol/versions.js";
import { paramsForEra } from "./request-params.js";

const source = { clientInfo: { name: "c", version: "1" }, capabilities: {}, logLevel: undefined };

describe("paramsForEra", () => {
  it("2026-07-28: merges the caller's _meta and extra keys, the client's reserved keys win", () => {
    const params = { name: "add", _meta: { trace: "t", [MetaKey.protocolVersion]: "forged" } };
    const shaped = paramsForEra(MODERN_VERSION, source, params, { extra: 1 });
    expect(shaped).toEqual({
      name: "add",
      _meta: {
        trace: "t",
        [MetaKey.protocolVersion]: MODERN_VERSION,
        extra: 1,
        [MetaKey.clientCapabilities]: {},
        [MetaKey.clientInfo]: source.clientInfo,
      },
    });
    expect(params._meta[MetaKey.protocolVersion]).toBe("forged");
    const again = paramsForEra(MODERN_VERSION, source, { name: "add" }, undefined);
    expect(again._meta).not.toBe(shaped._meta);
    expect(Object.isFrozen(shaped._meta)).toBe(false);
    expect(again._meta).toEqual({
      [MetaKey.protocolVersion]: MODERN_VERSION,
      [MetaKey.clientCapabilities]: {},
      [MetaKey.clientInfo]: source.clientInfo,
    });
  });

  it("2026-07-28: a request with no _meta of its own sends the client's one immutable _meta", () => {
    const first = paramsForEra(MODERN_VERSION, source, { name: "a" }, undefined);
    const second = paramsForEra(MODERN_VERSION, source, { name: "b" }, {});
    expect(second._meta).toBe(first._meta);
    expect(Object.isFrozen(first._meta)).toBe(true);
    // The client's own clientInfo object is copied, never frozen in place.
    expect(Object.isFrozen(source.clientInfo)).toBe(false);
    expect((first._meta as { [key: string]: unknown })[MetaKey.clientInfo]).not.toBe(source.clientInfo);
  });

  it("2025-11-25: strips 2026 keys, puts a remaining _meta last, and leaves out an empty one", () => {
    const shaped = paramsForEra(
      LEGACY_VERSION,
      source,
      { _meta: { [MetaKey.clientInfo]: {}, keep: 1 }, name: "add" },
      { [MetaKey.logLevel]: "info" },
    );
    expect(Object.keys(shaped)).toEqual(["name", "_meta"]);
    expect(shaped._meta).toEqual({ keep: 1 });
    const bare = paramsForEra(
      LEGACY_VERSION,
      source,
      { name: "add", _meta: { [MetaKey.clientInfo]: {} } },
      undefined,
    );
    expect(bare).toEqual({ name: "add" });
    expect("_meta" in bare).toBe(false);
  });
});
