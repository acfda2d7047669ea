/**
 * The official clients (v1 and v2, see {@link V1} and {@link V2}) launching the mcpkit stdio fixture server
 * (test/fixtures/stdio-server/fixture-server.ts) as a real subprocess. The cases shared with the in-process
 * setup come from {@link sharedOfficialClientCases}; what only a subprocess shows (the v2 client's probe sibling,
 * stderr, the process exiting) is here. Every frame of every process is validated against the official schema of
 * its era from the fixture's wire log (see test/fixtures/stdio-server/harness.ts).
 *
 * @example
 * const harness = useStdioOfficialClient(V1, (params) => new StdioClientTransport(params));
 * describe("official v1 Client -> mcpkit stdio server subprocess", () => stdioOfficialClientCases(harness, LEGACY));
 */
import { expect, it } from "vitest";
import type { JsonRpcRequest } from "../../src/jsonrpc/message.js";
import {
  FIXTURE,
  FIXTURE_TOOLS,
  fixtureEnv,
  type ProcessLog,
  useWireLogs,
  type WireLogs,
} from "../fixtures/stdio-server/harness.js";
import { LEGACY, MODERN, rejection, textOf } from "./interop-helpers.js";
import {
  expectError,
  expectServer,
  type FixtureExpectation,
  FIXTURE as IN_PROCESS_FIXTURE,
  type OfficialClient,
  type OfficialClientFlavour,
  type OfficialConnection,
  sharedOfficialClientCases,
} from "./interop-official-client-cases.js";
import { until } from "./until.js";
import type { Era } from "./wire-schema.js";

/** The stdio fixture server, as the shared cases see it: the in-process fixture with tools of its own. */
export const STDIO_FIXTURE: FixtureExpectation = { ...IN_PROCESS_FIXTURE, tools: FIXTURE_TOOLS };

/** What the cases use of an SDK's `StdioClientTransport` (v1's and v2's both fit). */
export interface StdioTransport {
  readonly pid: number | null;
  readonly stderr: { on(event: "data", listener: (chunk: Buffer) => void): unknown } | null;
}

/** The parameters both SDKs' `StdioClientTransport` take. */
export interface StdioParams {
  command: string;
  args: string[];
  env: { [name: string]: string };
  stderr: "pipe";
}

/** One official client connected to a fresh stdio fixture process (page size 2). */
export interface StdioOfficialClientSession<C extends OfficialClient> extends OfficialConnection<C> {
  transport: StdioTransport;
  /** What the server process wrote to stderr so far. */
  stderr(): string;
}

export interface StdioOfficialClientHarness<C extends OfficialClient> {
  flavour: OfficialClientFlavour<C>;
  logs: WireLogs;
  connect(era: Era): Promise<StdioOfficialClientSession<C>>;
}

/** The log of the process the client kept (not the v2 client's `server/discover` probe sibling). */
function kept(logs: WireLogs): ProcessLog {
  const processes = logs.read().filter((log) => log.sequence()[0] !== "server/discover");
  expect(processes).toHaveLength(1);
  return processes[0] as ProcessLog;
}

/**
 * Launches a fixture process per connection with the SDK's stdio transport (made by `transport`), and checks the
 * wire logs after each test. Call at the top of a test file.
 */
export function useStdioOfficialClient<C extends OfficialClient>(
  flavour: OfficialClientFlavour<C>,
  transport: (params: StdioParams) => StdioTransport,
): StdioOfficialClientHarness<C> {
  const logs = useWireLogs();
  return {
    flavour,
    logs,
    async connect(era) {
      const stdio = transport({
        command: process.execPath,
        args: [FIXTURE],
        env: fixtureEnv(logs.dir(), { pageSize: 2 }),
        stderr: "pipe",
      });
      let stderr = "";
      stdio.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      const client = flavour.create(era);
      logs.track(() => client.close());
      await client.connect(stdio);
      return {
        client,
        transport: stdio,
        stderr: () => stderr,
        callTool: (params, options) => flavour.callTool(client, params, options),
        sent: (method) => kept(logs).requests(method) as JsonRpcRequest[],
        answer: (request) => (request === undefined ? undefined : kept(logs).answer(request.id)),
      };
    },
  };
}

/** Registers, in the current `describe`, every stdio case of one official client, for one era. */
export function stdioOfficialClientCases<C extends OfficialClient>(
  { flavour, logs, connect }: StdioOfficialClientHarness<C>,
  era: Era,
): void {
  it("connects: era, server info, capabilities, instructions", async () => {
    const { client } = await connect(era);
    flavour.connected?.(client, era);
    expectServer(client, STDIO_FIXTURE);
    // 2025: a real ping; 2026: refused by the client locally.
    if (era === MODERN) expectError(await rejection(client.ping()), flavour.errors.pingRefused);
    else await expect(client.ping()).resolves.toEqual({});
    const processes = logs.read();
    if (era === MODERN) {
      // The probe ran on its own process; the kept process never saw initialize.
      const probe = processes.find((log) => log.sequence()[0] === "server/discover");
      expect(probe?.sequence()).toEqual(["server/discover", "response"]);
      expect(probe?.era).toBe(MODERN);
      expect(processes.every((log) => !log.sequence().includes("initialize"))).toBe(true);
    } else {
      expect(processes).toHaveLength(1);
      const log = kept(logs);
      expect(log.era).toBe(LEGACY);
      expect(log.sequence()).toEqual([
        "initialize",
        "response",
        "notifications/initialized",
        "ping",
        "response",
      ]);
      expect(log.frames[0]?.message).toMatchObject({ id: 0, params: { protocolVersion: LEGACY } });
      expect(log.frames[1]?.message).toMatchObject({ id: 0, result: { protocolVersion: LEGACY } });
    }
  });

  sharedOfficialClientCases(flavour, connect, era, STDIO_FIXTURE);

  it("keeps the server's stderr off the protocol channel; the server exits when the client closes", async () => {
    const { client, callTool, transport, stderr } = await connect(era);
    const result = await callTool({ name: "stderr", arguments: {} });
    expect(textOf(result)).toBe("logged to stderr");
    await until(() => stderr().includes("fixture: the stderr tool ran"));
    const pid = transport.pid;
    expect(pid).toEqual(expect.any(Number));
    await client.close();
    expect(() => process.kill(pid as number, 0)).toThrow();
  });
}
