/**
 * The official Python SDK's server (test/python/peer_server.py, in the venv the test set-up makes) as an upstream
 * over stdio: it speaks both eras, so the gateway reaches it in 2026-07-28, and its elicitation and sampling
 * cross the bridge to clients of both eras. Skipped with the other Python tests where python3 is missing.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { GatewayPlugin } from "../../src/gateway/index.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { PYTHON_PROGRAMS, pythonPeer } from "../support/python-peer.js";
import { gatewayWithClient } from "./support.js";

const python = pythonPeer();
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

describe.skipIf(python === undefined).each([MODERN_VERSION, LEGACY_VERSION] as const)(
  "the official Python SDK server behind the gateway (%s client)",
  (era) => {
    it("serves its tools, and carries its elicitation and sampling to the client", async () => {
      const asked: string[] = [];
      const { server, client } = await gatewayWithClient(
        {
          py: {
            command: python ?? "python3",
            args: [`${PYTHON_PROGRAMS}/peer_server.py`, "stdio"],
            start: "boot",
            startTimeoutMs: 30_000,
          },
        },
        {
          protocolVersion: era,
          capabilities: { elicitation: { form: {} }, sampling: {} },
          onElicitation: (params) => {
            asked.push(`elicitation: ${params.message}`);
            return { action: "accept", content: { name: "Ada" } };
          },
          onSampling: () => {
            asked.push("sampling");
            return { role: "assistant", content: { type: "text", text: "waves" }, model: "m" };
          },
        },
        closers,
      );
      const status = (server.plugin("gateway") as GatewayPlugin).status();
      expect(status[0]?.state).toBe("up");
      expect(text(await client.callTool("py__add", { a: 2, b: 3 }))).toBe("5");
      expect(text(await client.callTool("py__greet", {}))).toBe("Hello, Ada!");
      expect(text(await client.callTool("py__haiku", { topic: "the sea" }))).toBe("m: waves");
      expect(asked).toEqual(["elicitation: Your name?", "sampling"]);
    });
  },
);
