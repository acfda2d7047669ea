import { describe, expect, it } from "vitest";
import { challengeOf, parseWwwAuthenticate } from "./www-authenticate.js";

describe("parseWwwAuthenticate", () => {
  it("reads several challenges, non-Bearer ones included, with quoted and token values", () => {
    const header =
      'Negotiate, Basic realm="a, b", Bearer error="invalid_token", scope="mcp:read mcp:write", resource_metadata="https://x.example/.well-known/oauth-protected-resource/mcp"';
    const challenges = parseWwwAuthenticate(header);
    expect(challenges.map((c) => c.scheme)).toEqual(["negotiate", "basic", "bearer"]);
    expect(challenges[1]?.params).toEqual({ realm: "a, b" });
    expect(challengeOf(challenges, "Bearer")?.params).toEqual({
      error: "invalid_token",
      scope: "mcp:read mcp:write",
      resource_metadata: "https://x.example/.well-known/oauth-protected-resource/mcp",
    });
  });

  it("undoes quoted-pair escapes and lowercases scheme and parameter names, not values", () => {
    const [challenge] = parseWwwAuthenticate(
      'BEARER Error=invalid_token, Error_Description="say \\"hi\\" \\\\ bye"',
    );
    expect(challenge).toEqual({
      scheme: "bearer",
      params: { error: "invalid_token", error_description: 'say "hi" \\ bye' },
    });
  });

  it("reads a token68 challenge and a bare scheme", () => {
    expect(parseWwwAuthenticate("Negotiate YIIabc==, Bearer")).toEqual([
      { scheme: "negotiate", params: {}, token68: "YIIabc==" },
      { scheme: "bearer", params: {} },
    ]);
  });

  it("allows spaces around = and keeps the first of a repeated parameter", () => {
    expect(parseWwwAuthenticate('Bearer scope = "a" , scope="b"')[0]?.params).toEqual({ scope: "a" });
  });

  it("stops at malformed input without throwing, keeping the complete challenges before it", () => {
    expect(parseWwwAuthenticate('Basic realm="x", Bearer error="unterminated')).toEqual([
      { scheme: "basic", params: { realm: "x" } },
    ]);
    expect(parseWwwAuthenticate('Bearer a="x", b=')).toEqual([]);
    // `error=` alone is a token68, not a parameter.
    expect(parseWwwAuthenticate("Bearer error=")).toEqual([
      { scheme: "bearer", params: {}, token68: "error=" },
    ]);
    expect(parseWwwAuthenticate('Bearer error="a" junk')).toEqual([]);
    expect(parseWwwAuthenticate("")).toEqual([]);
    expect(parseWwwAuthenticate(undefined)).toEqual([]);
    expect(parseWwwAuthenticate("=== ,,,")).toEqual([]);
  });

  it("bounds what it keeps from a hostile header: 16 challenges, 32 parameters each", () => {
    const many = Array.from({ length: 40 }, (_, i) => `S${i} a=b`).join(", ");
    expect(parseWwwAuthenticate(many)).toHaveLength(16);
    const params = Array.from({ length: 50 }, (_, i) => `p${i}=v`).join(", ");
    expect(Object.keys(parseWwwAuthenticate(`Bearer ${params}`)[0]?.params ?? {})).toHaveLength(32);
  });
});
