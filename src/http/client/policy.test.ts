import { describe, expect, it } from "vitest";
import { checkEndpointUrl, httpClientPolicy, isLoopbackHost, redactUrl } from "./policy.js";

describe("client policy helpers", () => {
  it("knows the loopback hosts", () => {
    for (const host of [
      "localhost",
      "LOCALHOST",
      "a.b.localhost",
      "127.0.0.1",
      "127.255.0.9",
      "[::1]",
      "localhost.",
    ]) {
      expect(isLoopbackHost(host)).toBe(true);
    }
    for (const host of [
      "localhost.example.com",
      "128.0.0.1",
      "127.0.0",
      "127.0.0.256",
      "[::2]",
      "example.com",
      "0.0.0.0",
    ]) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });

  it("shows a URL without userinfo or query", () => {
    const url = checkEndpointUrl("https://mcp.example.com:8443/mcp?token=abc", httpClientPolicy());
    expect(redactUrl(url)).toBe("https://mcp.example.com:8443/mcp");
  });

  it("refuses an empty fragment marker too", () => {
    expect(() => checkEndpointUrl("http://127.0.0.1/mcp#", httpClientPolicy())).toThrow(
      expect.objectContaining({ details: { key: "url", reason: "fragment" } }),
    );
  });
});
