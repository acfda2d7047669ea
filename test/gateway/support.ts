import type { Client } from "../../src/client/index.js";
import { createGateway, type GatewayOptions } from "../../src/gateway/index.js";
import type { Server } from "../../src/server/index.js";
import { type CliProcess, startCli, waitUntil } from "../cli/built-cli.js";
import { builtFixture } from "../support/fixture-build.js";
import { connectInProcess, type InProcessClientOptions } from "../support/in-process-client.js";

/**
 * Starts the built `mcpkit gateway ...args` over HTTP (stdin kept open, SIGTERM when `closers` run) and waits for
 * the URL it prints first.
 */
export async function startGatewayCli(
  args: readonly string[],
  closers: Array<() => Promise<unknown>>,
  env?: { [name: string]: string | undefined },
): Promise<{ cli: CliProcess; url: string }> {
  const cli = startCli(["gateway", ...args], { keepStdin: true, ...(env === undefined ? {} : { env }) });
  closers.push(async () => {
    cli.child.kill("SIGTERM");
    return cli.exited;
  });
  await waitUntil(
    () => cli.stdout().includes("\n"),
    () => `no URL printed; stderr: ${cli.stderr()}`,
  );
  return { cli, url: cli.stdout().split("\n")[0] ?? "" };
}

/** A stdio upstream entry running the gateway fixture under `name`. */
export function fixtureUpstream(
  name: string,
  extra: { [key: string]: unknown } = {},
): { [key: string]: unknown } {
  return {
    command: process.execPath,
    args: [builtFixture("gateway-upstream")],
    env: { GATEWAY_FIXTURE_NAME: name },
    ...extra,
  };
}

/** A gateway over `mcpServers`, and a downstream mcpkit client on it in process; `closers` closes both. */
export async function gatewayWithClient(
  mcpServers: { [name: string]: unknown },
  client: InProcessClientOptions,
  closers: Array<() => Promise<unknown>>,
  options: Omit<GatewayOptions, "config"> & { gateway?: { [key: string]: unknown } } = {},
): Promise<{ server: Server; client: Client }> {
  const { gateway, ...rest } = options;
  const server = createGateway({ ...rest, config: { mcpServers, ...(gateway ? { gateway } : {}) } });
  closers.push(() => server.close());
  await server.ready;
  const downstream = await connectInProcess(server, client);
  closers.push(() => downstream.close());
  return { server, client: downstream };
}

/** Waits until `condition` holds, checking every 10 ms, up to `timeoutMs` (an event's wait, not a budget). */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error("condition never held");
    await new Promise((r) => setTimeout(r, 10));
  }
}
