/**
 * Both mcpkit ends over a real subprocess: an mcpkit Client launches the mcpkit stdio fixture server
 * (test/fixtures/stdio-server) through the stdio launcher, in both eras (2026-07-28 by `server/discover`, the
 * client's preference; 2025-11-25 pinned). Messages are validated twice: by a validating wrapper around the
 * launcher's transport, and from the fixture's wire log.
 */
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { JsonRpcError, McpkitError } from "../../src/jsonrpc/errors.js";
import { launchStdio } from "../../src/stdio/index.js";
import { FIXTURE, FIXTURE_TOOLS, fixtureEnv, useWireLogs } from "../fixtures/stdio-server/harness.js";
import {
  type Era,
  useWireValidation,
  WireValidator,
  wrapTransport,
} from "../support/validating-transport.js";

useWireValidation();
const logs = useWireLogs();

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";

async function connect(era: Era, options: { serverPolicy?: object; clientPolicy?: object } = {}) {
  let stderr = "";
  const launched = launchStdio({
    command: process.execPath,
    args: [FIXTURE],
    env: fixtureEnv(logs.dir(), {
      pageSize: 2,
      ...(options.serverPolicy ? { policy: options.serverPolicy } : {}),
    }),
    policy: { stderr: "capture", shutdownTimeoutMs: 2_000, ...options.clientPolicy },
    onStderr: (text) => {
      stderr += text;
    },
  });
  const validator = WireValidator.auto();
  const client = new Client({
    transport: wrapTransport(launched, "client", validator),
    clientInfo: { name: "mcpkit-stdio-client", version: "0.1.0" },
    ...(era === LEGACY ? { protocolVersion: LEGACY } : {}),
  });
  logs.track(() => client.close());
  const info = await client.connect();
  return { client, launched, info, validator, stderr: () => stderr };
}

describe.each([MODERN as Era, LEGACY as Era])(
  "mcpkit Client -> mcpkit stdio server subprocess, %s",
  (era) => {
    it("connects and serves tools, resources, prompts and completion", async () => {
      const { client, info, validator } = await connect(era);
      expect(info.era).toBe(era);
      expect(info.serverInfo).toEqual({ name: "fixture", version: "1.2.3" });
      expect((await client.listAllTools()).map((t) => t.name)).toEqual(FIXTURE_TOOLS);
      expect((await client.callTool("echo", { text: "über stdio ✓" })).content).toEqual([
        { type: "text", text: "über stdio ✓" },
      ]);
      const read = await client.readResource("test://items/7/data");
      expect(read.contents).toEqual([
        { uri: "test://items/7/data", mimeType: "application/json", text: JSON.stringify({ id: "7" }) },
      ]);
      const prompt = await client.getPrompt("greet", { name: "Cy", tone: "wryly" });
      expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: "Greet Cy wryly" } }]);
      const completion = await client.complete({
        ref: { type: "ref/prompt", name: "greet" },
        argument: { name: "tone", value: "fo" },
      });
      expect(completion.completion.values).toEqual(["formally"]);
      expect(validator.era).toBe(era);
      const [log] = logs.read();
      expect(log?.era).toBe(era);
      expect(log?.sequence()[0]).toBe(era === MODERN ? "server/discover" : "initialize");
    });

    it("errors: a JSON-RPC error, a failing tool, a response over the server's outbound limit", async () => {
      const { client } = await connect(era, { serverPolicy: { maxOutboundFrameBytes: 4_096 } });
      await expect(client.callTool("nope", {})).rejects.toBeInstanceOf(JsonRpcError);
      expect(await client.callTool("fail", {})).toMatchObject({ isError: true });
      const tooBig = await client.callTool("big", { bytes: 10_000 }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(tooBig).toBeInstanceOf(JsonRpcError);
      // The error names the option to raise, its value and the size seen.
      expect(tooBig).toMatchObject({
        code: -32603,
        message: expect.stringMatching(/: \d+ bytes, over maxOutboundFrameBytes \(4096\)$/),
        data: { reason: "response_too_large", option: "maxOutboundFrameBytes", limit: 4_096 },
      });
      expect((tooBig as JsonRpcError).data).toMatchObject({ size: expect.any(Number) });
      expect(((tooBig as JsonRpcError).data as { size: number }).size).toBeGreaterThan(10_000);
      // The connection goes on.
      const small = await client.callTool("big", { bytes: 100 });
      expect(small.isError).toBeUndefined();
      expect(small.content).toEqual([{ type: "text", text: "x".repeat(100) }]);
    });
  },
);

describe("mcpkit Client -> mcpkit stdio server subprocess: limits", () => {
  it("an oversized request ends the server with the limit on stderr; the pending call fails fast", async () => {
    const { client, launched, stderr } = await connect(LEGACY, { serverPolicy: { maxFrameBytes: 2_048 } });
    const began = Date.now();
    const error = await client.callTool("echo", { text: "e".repeat(4_096) }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpkitError);
    expect((error as McpkitError).code).toBe("CLOSED");
    expect(Date.now() - began).toBeLessThan(2_000);
    await launched.closed;
    expect(launched.exit).toEqual({ code: 1, signal: null });
    expect(stderr()).toContain("over maxFrameBytes (2048)");
  });
});
