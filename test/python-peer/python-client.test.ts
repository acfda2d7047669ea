/**
 * Interop: the official Python SDK's client (`mcp` 2.3.0, test/python/peer_client.py) against an mcpkit server
 * (test/support/python-peer-server.ts), over stdio (mcpkit's server as the subprocess the Python client
 * launches) and Streamable HTTP on 127.0.0.1, in both eras: 2026-07-28 negotiated by `server/discover` (the
 * Python client's "auto" mode) and 2025-11-25 by `initialize` ("legacy"). One client run per era and transport
 * goes through tools, structured output, resources, prompts, progress, elicitation and sampling (inputRequired()
 * on mcpkit's side: input rounds in 2026, real server requests in 2025) and a cancelled call, and reports what
 * it saw; the tests below check the report. Every message either way is checked against the era's schema (the stdio
 * fixture's wire log; a validating wrapper around the HTTP handler).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/message.js";
import { type ServeHandle, serve } from "../../src/node/serve.js";
import { readWireLogs } from "../fixtures/stdio-server/harness.js";
import { builtFixture } from "../support/fixture-build.js";
import { LEGACY, MODERN } from "../support/interop-helpers.js";
import { PYTHON_PROGRAMS, pythonPeer } from "../support/python-peer.js";
import { pythonPeerServer } from "../support/python-peer-server.js";
import { validatingFetch } from "../support/validating-fetch.js";
import { WireValidator } from "../support/wire-schema.js";

const python = pythonPeer();
const run = promisify(execFile);

/** What peer_client.py printed: each step's outcome, or `{ error, trace }` when it raised. */
type Report = { [step: string]: unknown };

/** Runs peer_client.py to its end; `running` lets afterAll end a run that never finished. */
async function pythonClient(
  args: string[],
  running: AbortController,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Report> {
  const { stdout } = await run(python as string, [`${PYTHON_PROGRAMS}/peer_client.py`, ...args], {
    env,
    maxBuffer: 4_000_000,
    signal: running.signal,
  });
  return JSON.parse(stdout) as Report;
}

const methodsOf = (messages: JsonRpcMessage[]) =>
  messages.map((message) => ("method" in message ? message.method : "response"));

const cases = [MODERN, LEGACY].flatMap((era) =>
  (["stdio", "http"] as const).map((transport) => ({ era, transport })),
);

describe.skipIf(python === undefined).each(cases)(
  "official Python SDK client -> mcpkit server, $era, $transport",
  ({ era, transport }) => {
    let report: Report = {};
    let wire: { era: string | undefined; checked: number; errors: unknown[]; methods: string[] } | undefined;
    let http: ServeHandle | undefined;
    let logDir = "";
    const running = new AbortController();

    beforeAll(async () => {
      if (transport === "http") {
        const handler = createHttpHandler(pythonPeerServer());
        const checked = validatingFetch(WireValidator.auto(), (input, init) =>
          handler(new Request(input, init)),
        );
        http = await serve(
          async (request) =>
            checked.fetch(request.url, {
              method: request.method,
              headers: request.headers,
              signal: request.signal,
              ...(request.method === "POST" ? { body: await request.text() } : {}),
            }),
          { host: "127.0.0.1" },
        );
        report = await pythonClient([era, "http", http.url], running);
        wire = {
          era: checked.validator.era,
          checked: checked.validator.count,
          errors: checked.errors,
          methods: methodsOf(checked.messages()),
        };
      } else {
        logDir = mkdtempSync(join(tmpdir(), "mcpkit-python-peer-"));
        report = await pythonClient(
          [era, "stdio", process.execPath, builtFixture("python-peer-server")],
          running,
          {
            ...process.env,
            MCPKIT_FIXTURE_WIRE_LOG: logDir,
          },
        );
        const log = readWireLogs(logDir)[0];
        wire = log && { era: log.era, checked: log.checked, errors: log.errors, methods: log.sequence() };
      }
    }, 60_000);

    afterAll(async () => {
      running.abort();
      await http?.close();
      if (logDir !== "") rmSync(logDir, { recursive: true, force: true });
    });

    it("negotiates the era", () => {
      expect(report.protocolVersion).toBe(era);
      expect(report.serverInfo).toEqual({ name: "mcpkit-python-peer", version: "1.0.0" });
    });

    it("lists and calls tools", () => {
      expect(report.tools).toEqual({
        names: ["add", "ask_llm", "cancelled", "count", "greet", "slow", "weather"],
        add: ["42"],
      });
    });

    it("receives structured output", () => {
      expect(report.structured).toEqual({
        structured: { city: "Lyon", celsius: 21.5 },
        text: ['{"city":"Lyon","celsius":21.5}'],
        isError: false,
      });
    });

    it("lists and reads resources and templates", () => {
      expect(report.resources).toEqual({
        uris: ["test://motd"],
        motd: [{ uri: "test://motd", mimeType: "text/plain", text: "hello from mcpkit" }],
        templates: ["test://items/{id}"],
        item: [{ uri: "test://items/42", mimeType: "application/json", text: '{"id":"42"}' }],
      });
    });

    it("lists and gets prompts", () => {
      expect(report.prompts).toEqual({
        names: ["review"],
        messages: [{ role: "user", content: { type: "text", text: "Please review: x = 1" } }],
      });
    });

    it("receives progress for its call", () => {
      expect(report.progress).toEqual({
        progress: [
          [1, 3, "step 1"],
          [2, 3, "step 2"],
          [3, 3, "step 3"],
        ],
        text: ["counted to 3"],
      });
    });

    it("answers an elicitation", () => {
      expect(report.elicitation).toEqual(["Hello, Ada (Your name?)!"]);
    });

    it("answers a sampling request", () => {
      expect(report.sampling).toEqual(["The model says: Paris (Capital of France?)"]);
    });

    it("cancels a running call, and the server's handler sees it", () => {
      expect(report.cancel).toEqual([expect.stringMatching(/^slow was cancelled \(.+\)$/)]);
    });

    it("sends and receives only messages valid in the era's schema", () => {
      expect(wire?.era).toBe(era);
      // Every step's requests and answers crossed (more with the 2026 input rounds).
      expect(wire?.checked).toBeGreaterThan(30);
      expect(wire?.errors).toEqual([]);
      expect(wire?.methods[0]).toBe(era === MODERN ? "server/discover" : "initialize");
      // The cancel: a notification, except on a 2026 HTTP request, which the Python client ends by closing it.
      expect(wire?.methods.includes("notifications/cancelled")).toBe(era === LEGACY || transport === "stdio");
    });
  },
);
