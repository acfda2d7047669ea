import { afterEach, describe, expect, it } from "vitest";
import type { GatewayPlugin } from "../../src/gateway/index.js";
import type { LoggingMessageParams } from "../../src/protocol/types/lifecycle.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { eventually, fixtureUpstream, gatewayWithClient } from "./support.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

describe.each([MODERN_VERSION, LEGACY_VERSION] as const)("forwarding to a %s client", (era) => {
  it("passes the client's cancellation on to the upstream", async () => {
    const { server, client } = await gatewayWithClient(
      { up: fixtureUpstream("up", { start: "boot" }) },
      { protocolVersion: era },
      closers,
    );
    const gateway = server.plugin("gateway") as GatewayPlugin;
    const controller = new AbortController();
    // Cancelled once the upstream runs it: its first progress says so.
    const hung = client.callTool(
      "up__hang",
      {},
      { signal: controller.signal, onProgress: () => controller.abort() },
    );
    await expect(hung).rejects.toMatchObject({ code: "ABORTED" });
    await eventually(async () => text(await client.callTool("up__cancelled", {})) === "1");
    expect(gateway.status()[0]?.running).toBe(0);
  });

  it("passes an upstream's log messages of a call on to the client, the logger named after the upstream", async () => {
    const logs: LoggingMessageParams[] = [];
    const { client } = await gatewayWithClient(
      { up: fixtureUpstream("up", { start: "boot" }) },
      { protocolVersion: era, logLevel: "info", onLog: (m) => logs.push(m) },
      closers,
    );
    if (era === LEGACY_VERSION) await client.setLoggingLevel("info");
    expect(text(await client.callTool("up__log", {}))).toBe("logged");
    await eventually(() => logs.length > 0);
    expect(logs[0]).toMatchObject({ level: "warning", logger: "up", data: { from: "up" } });
  });
});
