import { describe, expect, it, vi } from "vitest";
import { toBase64url } from "../../jsonrpc/base64.js";
import { ServerBuilder } from "../authoring/builder.js";
import { canonicalJson, NoPrincipalError, principalText } from "./fingerprint.js";
import { RequestStateSealer, stateSecret } from "./request-state.js";

const KEY = new TextEncoder().encode("k".repeat(32));
const binding = {
  principal: "anonymous",
  method: "tools/call",
  params: { name: "greet", arguments: { a: 1 } },
};

function sealer(now = () => 1_000, ttlMs = 60_000, key = KEY) {
  return new RequestStateSealer(key, ttlMs, now);
}

describe("requestState sealing", () => {
  it("opens what it sealed, under the same binding, with the state as JSON", async () => {
    const s = sealer();
    const token = await s.seal({ step: 2, names: ["a", "b"] }, binding);
    expect(token).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(await s.open(token, binding)).toEqual({
      ok: true,
      state: { step: 2, names: ["a", "b"] },
      nonce: expect.any(String),
    });
  });

  it("gives two seals of the same state different tokens (a nonce), both valid", async () => {
    const s = sealer();
    const [a, b] = [await s.seal("x", binding), await s.seal("x", binding)];
    expect(a).not.toBe(b);
    expect((await s.open(a, binding)).ok).toBe(true);
    expect((await s.open(b, binding)).ok).toBe(true);
  });

  it("ignores inputResponses, requestState and _meta in the bound params (they change on a retry)", async () => {
    const s = sealer();
    const token = await s.seal(null, binding);
    const retry = {
      ...binding,
      params: { ...binding.params, inputResponses: { x: {} }, requestState: token, _meta: { any: 1 } },
    };
    expect(await s.open(token, retry)).toEqual({ ok: true, state: null, nonce: expect.any(String) });
  });

  it("refuses a token with anything appended, removed or changed", async () => {
    const s = sealer();
    const token = await s.seal({ admin: false }, binding);
    const [version, payload, mac] = token.split(".") as [string, string, string];
    const forged = toBase64url(
      new TextEncoder().encode(JSON.stringify({ e: 9e15, n: "x", s: { admin: true } })),
    );
    const flipped = `${mac.slice(0, -2)}${mac.at(-2) === "A" ? "B" : "A"}${mac.at(-1)}`;
    expect(await s.open(`${token}-TAMPERED`, binding)).toMatchObject({ ok: false });
    expect(await s.open(`${token}.`, binding)).toEqual({ ok: false, reason: "malformed" });
    expect(await s.open(`${token}=`, binding)).toEqual({ ok: false, reason: "malformed" });
    expect(await s.open(`${version}.${forged}.${mac}`, binding)).toEqual({ ok: false, reason: "invalid" });
    expect(await s.open(`${version}.${payload}.${flipped}`, binding)).toEqual({
      ok: false,
      reason: "invalid",
    });
    expect(await s.open(`${version}.${payload}`, binding)).toEqual({ ok: false, reason: "malformed" });
    expect(await s.open(`v2.${payload}.${mac}`, binding)).toEqual({ ok: false, reason: "malformed" });
    expect(await s.open("", binding)).toEqual({ ok: false, reason: "malformed" });
  });

  it("refuses state presented by another principal, on another method or with other params", async () => {
    const s = sealer();
    const token = await s.seal("mine", binding);
    for (const other of [
      { ...binding, principal: "f00" },
      { ...binding, method: "prompts/get" },
      { ...binding, params: { name: "greet", arguments: { a: 2 } } },
      { ...binding, params: { name: "other", arguments: { a: 1 } } },
    ]) {
      expect(await s.open(token, other)).toEqual({ ok: false, reason: "invalid" });
    }
  });

  it("refuses state sealed with another key (another server)", async () => {
    const token = await sealer().seal("x", binding);
    const other = sealer(undefined, undefined, new TextEncoder().encode("z".repeat(32)));
    expect(await other.open(token, binding)).toEqual({ ok: false, reason: "invalid" });
  });

  it("refuses state once its lifetime is over", async () => {
    let now = 1_000;
    const s = sealer(() => now, 500);
    const token = await s.seal("x", binding);
    now = 1_499;
    expect((await s.open(token, binding)).ok).toBe(true);
    now = 1_500;
    expect(await s.open(token, binding)).toEqual({ ok: false, reason: "expired" });
  });

  it("draws a random key per sealer on first use unless one is given", async () => {
    const draws = vi.spyOn(crypto, "getRandomValues");
    const [a, b] = [new RequestStateSealer(undefined, 60_000), new RequestStateSealer(undefined, 60_000)];
    expect(draws).not.toHaveBeenCalled();
    const token = await a.seal("x", binding);
    expect((await a.open(token, binding)).ok).toBe(true);
    expect(await b.open(token, binding)).toEqual({ ok: false, reason: "invalid" });
    draws.mockRestore();
    expect(stateSecret("abc")).toEqual(new TextEncoder().encode("abc"));
  });

  it("builds a server where random values are refused (a Workers module scope): the key comes later", async () => {
    const refuse = vi.spyOn(crypto, "getRandomValues").mockImplementation(() => {
      throw new Error("Disallowed operation called within global scope");
    });
    let server: ReturnType<ServerBuilder["build"]>;
    try {
      server = new ServerBuilder({ serverInfo: { name: "s", version: "1" } }).build();
    } finally {
      refuse.mockRestore();
    }
    const sealed = await server.runtime.sealer.seal({ step: 1 }, binding);
    expect((await server.runtime.sealer.open(sealed, binding)).ok).toBe(true);
  });
});

describe("canonical forms and their depth", () => {
  const nested = (levels: number): unknown => (levels === 0 ? 1 : { a: nested(levels - 1) });

  it("gives a value of at most maxDepth levels ({} is one) a form, and throws past it", () => {
    expect(canonicalJson({ b: [1, { c: 2 }], a: null })).toBe('{"a":null,"b":[1,{"c":2}]}');
    expect(() => canonicalJson(nested(32))).not.toThrow();
    expect(() => canonicalJson(nested(33))).toThrow("value nests too deep");
    expect(() => canonicalJson(nested(33), 33)).not.toThrow();
    expect(() => canonicalJson([[]], 1)).toThrow("value nests too deep");
  });

  it("names the principal of a plain identity of at most 32 levels, and refuses a deeper one", () => {
    expect(principalText(nested(32))).toMatch(/^j:/);
    expect(() => principalText(nested(33))).toThrow(NoPrincipalError);
    expect(() => principalText({ a: nested(32) })).toThrow("it nests too deep");
  });
});
