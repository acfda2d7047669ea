import { afterEach, describe, expect, it } from "vitest";
import { MODERN_VERSION } from "../../src/protocol/versions.js";
import { fixtureUpstream, gatewayWithClient } from "./support.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

describe("gateway policy", () => {
  it("serves only the tools allow and deny let through, and under readOnly only readOnlyHint ones", async () => {
    const { client } = await gatewayWithClient(
      {
        ro: fixtureUpstream("ro", { readOnly: true }),
        some: fixtureUpstream("some", { tools: { allow: ["e*", "w*", "hang"], deny: ["write"] } }),
      },
      { protocolVersion: MODERN_VERSION },
      closers,
    );
    const names = (await client.listAllTools()).map((t) => t.name);
    expect(names.filter((n) => n.startsWith("ro__"))).toEqual(["ro__echo", "ro__pid"]);
    expect(names.filter((n) => n.startsWith("some__")).sort()).toEqual([
      "some__echo",
      "some__elicit",
      "some__hang",
    ]);
    // Hidden tools are unknown to a call, not only unlisted.
    await expect(client.callTool("ro__write", { text: "x" })).rejects.toMatchObject({ code: -32602 });
    await expect(client.callTool("some__write", { text: "x" })).rejects.toMatchObject({ code: -32602 });
    await expect(client.callTool("some__crash", {})).rejects.toMatchObject({ code: -32602 });
  });

  it("refuses arguments past maxArgumentBytes before the upstream sees them, and results past maxResultBytes", async () => {
    const { client } = await gatewayWithClient(
      { a: fixtureUpstream("a", { maxArgumentBytes: 100, maxResultBytes: 1_000 }) },
      { protocolVersion: MODERN_VERSION },
      closers,
    );
    await expect(client.callTool("a__echo", { text: "x".repeat(80) })).resolves.toBeDefined();
    await expect(client.callTool("a__echo", { text: "x".repeat(100) })).rejects.toMatchObject({
      code: -32602,
      data: { upstream: "a", reason: "arguments_too_large", limit: 100 },
    });
    await expect(client.callTool("a__big", { bytes: 800 })).resolves.toBeDefined();
    await expect(client.callTool("a__big", { bytes: 1_000 })).rejects.toMatchObject({
      code: -32603,
      data: { upstream: "a", reason: "result_too_large", limit: 1_000 },
    });
  });
});
