/**
 * The custom protocol surface over a real stdio subprocess, both eras: an mcpkit Client launches the custom
 * fixture server (test/fixtures/stdio-server/custom-server.ts, compiled by the global setup, on the built
 * package) and runs the shared cases. Messages are validated twice: by a validating wrapper around the launcher's transport, and from the
 * fixture's wire log (every frame of the process, custom ones included).
 */
import { describe } from "vitest";
import { Client } from "../../src/client/client.js";
import { launchStdio } from "../../src/stdio/index.js";
import { useWireLogs } from "../fixtures/stdio-server/harness.js";
import { type CustomHarness, customCases } from "../support/custom-cases.js";
import { builtFixture } from "../support/fixture-build.js";
import { LEGACY, MODERN } from "../support/interop-helpers.js";
import { useWireValidation, WireValidator, wrapTransport } from "../support/validating-transport.js";

useWireValidation();
const logs = useWireLogs();
const FIXTURE = builtFixture("custom-server");

const harness: CustomHarness = {
  async connect(era, options = {}) {
    const launched = launchStdio({
      command: process.execPath,
      args: [FIXTURE],
      env: {
        MCPKIT_FIXTURE_WIRE_LOG: logs.dir(),
        MCPKIT_FIXTURE_SERVER_OPTIONS: JSON.stringify(options.server ?? {}),
      },
      policy: { stderr: "inherit", shutdownTimeoutMs: 2_000 },
    });
    const client = new Client({
      transport: wrapTransport(launched, "client", new WireValidator(era)),
      clientInfo: { name: "custom-stdio-test", version: "1.0.0" },
      protocolVersion: era,
      logger: { warn: () => {} },
      ...options.client,
    });
    logs.track(() => client.close());
    await client.connect();
    return client;
  },
};

describe.each([MODERN, LEGACY] as const)("custom methods over stdio (subprocess), %s", (era) => {
  customCases(harness, era);
});
