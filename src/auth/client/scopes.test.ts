import type { AuthorizationServer } from "oauth4webapi";
import { describe, expect, it } from "vitest";
import { initialScopes, splitScopes, unionScopes, withOfflineAccess } from "./scopes.js";

const as = (scopes?: string[]): AuthorizationServer => ({
  issuer: "https://as.example",
  ...(scopes === undefined ? {} : { scopes_supported: scopes }),
});

describe("scope selection", () => {
  it("prefers the challenge, then the resource's scopes_supported, else none", () => {
    expect(initialScopes("mcp:basic", ["a", "b"])).toEqual(["mcp:basic"]);
    expect(initialScopes(undefined, ["a", "b"])).toEqual(["a", "b"]);
    expect(initialScopes("", ["a"])).toEqual(["a"]);
    expect(initialScopes(undefined, undefined)).toEqual([]);
  });

  it("unions in order without duplicates", () => {
    expect(unionScopes(["mcp:basic"], splitScopes("mcp:write  mcp:basic"))).toEqual([
      "mcp:basic",
      "mcp:write",
    ]);
  });

  it("adds offline_access only when the authorization server lists it, something else is asked, and it is wanted", () => {
    expect(withOfflineAccess(["a"], as(["a", "offline_access"]), true)).toEqual(["a", "offline_access"]);
    expect(withOfflineAccess(["a"], as(["a", "b"]), true)).toEqual(["a"]);
    expect(withOfflineAccess(["a"], as(), true)).toEqual(["a"]);
    expect(withOfflineAccess([], as(["offline_access"]), true)).toEqual([]);
    expect(withOfflineAccess(["a"], as(["offline_access"]), false)).toEqual(["a"]);
  });
});
