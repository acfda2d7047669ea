import { describe, expect, it } from "vitest";
import { compileOriginPolicy, DEFAULT_ALLOWED_HOSTS, DEFAULT_ALLOWED_ORIGINS } from "./origin.js";

describe("Host and Origin policy", () => {
  const defaults = compileOriginPolicy(DEFAULT_ALLOWED_HOSTS, DEFAULT_ALLOWED_ORIGINS);

  it("accepts loopback hosts on any port by default, and nothing else", () => {
    for (const host of [
      "localhost",
      "localhost:3000",
      "127.0.0.1:1",
      "LOCALHOST:80",
      "[::1]:8080",
      "[::1]",
    ]) {
      expect(defaults.hostAllowed(host, "http"), host).toBe(true);
    }
    for (const host of [
      "evil.example.com",
      "localhost.evil.com",
      "127.0.0.2",
      "evil:80",
      "",
      "a b",
      "[::2]",
    ]) {
      expect(defaults.hostAllowed(host, "http"), host).toBe(false);
    }
    expect(defaults.hostAllowed(null, "http")).toBe(false);
  });

  it("accepts a missing Origin and loopback origins on any port by default", () => {
    expect(defaults.originAllowed(null)).toBe(true);
    for (const origin of [
      "http://localhost:5173",
      "https://127.0.0.1",
      "http://[::1]:9",
      "http://LOCALHOST",
    ]) {
      expect(defaults.originAllowed(origin), origin).toBe(true);
    }
    for (const origin of [
      "http://evil.example.com",
      "null",
      "file://",
      "ftp://localhost",
      "http://localhost/x",
    ]) {
      expect(defaults.originAllowed(origin), origin).toBe(false);
    }
  });

  it("lets a port-specific entry authorize only that port", () => {
    const policy = compileOriginPolicy(
      ["mcp.example.com", "api.example.com:8443"],
      ["https://app.example.com", "http://localhost:3000"],
    );
    expect(policy.hostAllowed("mcp.example.com:1234", "https")).toBe(true);
    expect(policy.hostAllowed("api.example.com:8443", "https")).toBe(true);
    expect(policy.hostAllowed("api.example.com", "https")).toBe(false);
    expect(policy.hostAllowed("localhost", "http")).toBe(false);
    expect(policy.originAllowed("https://app.example.com")).toBe(true);
    expect(policy.originAllowed("https://app.example.com:443")).toBe(true);
    expect(policy.originAllowed("https://app.example.com:8443")).toBe(false);
    expect(policy.originAllowed("http://app.example.com")).toBe(false);
    expect(policy.originAllowed("http://localhost:3000")).toBe(true);
    expect(policy.originAllowed("http://localhost:3001")).toBe(false);
  });

  it("takes the scheme's default port for a Host without one", () => {
    const policy = compileOriginPolicy(["example.com:443"], []);
    expect(policy.hostAllowed("example.com", "https")).toBe(true);
    expect(policy.hostAllowed("example.com", "http")).toBe(false);
  });

  it("allows everything with a * entry", () => {
    const open = compileOriginPolicy(["*"], ["*"]);
    expect(open.hostAllowed("anything", "http")).toBe(true);
    expect(open.originAllowed("http://evil.example.com")).toBe(true);
  });

  it.each([
    [["host/path"], []],
    [["host:99999"], []],
    [["host:*"], []],
    [[], ["localhost"]],
    [[], ["ftp://localhost"]],
    [[], ["http://localhost:70000"]],
  ])("refuses malformed entries %j %j", (hosts, origins) => {
    expect(() => compileOriginPolicy(hosts, origins)).toThrow(TypeError);
  });
});
