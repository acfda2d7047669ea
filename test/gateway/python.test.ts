/**
 * The official Python SDK on both sides of the gateway (in the venv the test set-up makes; skipped with the other
 * Python tests where python3 is missing). Upstream: its server (test/python/peer_server.py) over stdio speaks
 * both eras, so the gateway reaches it in 2026-07-28, and its elicitation and sampling cross the bridge to
 * clients of both eras. Downstream: its client (test/python/gateway_client.py) on the BUILT `mcpkit gateway`,
 * over Streamable HTTP on 127.0.0.1 and over `--stdio`, in both eras, in front of a 2025-11-25 upstream (the
 * official v1 server) and a 2026-07-28 one (the mcpkit fixture): lists, calls, and answers the upstream's
 * sampling and elicitation with its own callbacks.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { GatewayPlugin } from "../../src/gateway/index.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { CLI_MAIN } from "../cli/built-cli.js";
import { PYTHON_PROGRAMS, pythonPeer } from "../support/python-peer.js";
import { runPythonClient } from "./downstreams.js";
import { fixtureUpstream, gatewayWithClient, startGatewayCli } from "./support.js";

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

const ERAS: readonly Era[] = [LEGACY_VERSION, MODERN_VERSION];
const V1_SERVER = new URL("../fixtures/gateway-v1-server.mjs", import.meta.url).pathname;
const UPSTREAMS: { [era in Era]: { [key: string]: unknown } } = {
  [LEGACY_VERSION]: { command: process.execPath, args: [V1_SERVER], start: "boot" },
  [MODERN_VERSION]: fixtureUpstream("up", { start: "boot" }),
};

let dir = "";
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mcpkit-gateway-python-"));
  return () => rmSync(dir, { recursive: true, force: true });
});

/** A config file for `mcpkit gateway` with the upstream `up` of `era`. */
function config(era: Era): string {
  const file = join(dir, `${era}.json`);
  writeFileSync(file, JSON.stringify({ mcpServers: { up: UPSTREAMS[era] } }));
  return file;
}

/** `mcpkit gateway` over HTTP: its URL (the first line it prints). */
async function httpGateway(file: string): Promise<string> {
  return (await startGatewayCli(["--config", file, "--no-watch"], closers)).url;
}

const cases = ERAS.flatMap((upstream) =>
  ERAS.flatMap((client) =>
    (["http", "stdio"] as const).map((transport) => ({ upstream, client, transport })),
  ),
);

describe.skipIf(python === undefined).each(cases)(
  "the official Python SDK client on mcpkit gateway ($transport): upstream $upstream, client $client",
  ({ upstream, client, transport }) => {
    it("lists, calls, and answers the upstream's sampling and elicitation with its own callbacks", async () => {
      const file = config(upstream);
      const target =
        transport === "http"
          ? ["http", await httpGateway(file)]
          : ["stdio", process.execPath, CLI_MAIN, "gateway", "--stdio", "--config", file, "--no-watch"];
      const who = `python-${transport}`;
      const outcome = await runPythonClient(python, client, who, target);
      expect(outcome).toEqual({
        tools: expect.arrayContaining(["up__echo", "up__sample", "up__elicit"]),
        sampled: `sampled: ${who} heard say hi`,
        elicited: `hello ${who}`,
      });
    });
  },
);
