/**
 * `mcpkit --trace`: the run's spans printed as a tree with durations on stderr, and the trace carried to a traced
 * server (mcpkit/otel on 127.0.0.1), in both eras.
 */
import { SpanKind } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { runCli } from "../../src/cli/run.js";
import { serve } from "../../src/node/serve.js";
import { otelServerPlugin } from "../../src/otel/index.js";
import { otelHarness } from "../otel/harness.js";
import { tracedBuilder } from "../otel/traced-server.js";
import { fakeIo } from "./fake-io.js";

let closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

/** A traced mcpkit server on 127.0.0.1 (closed after the test), and the harness that records its spans. */
async function tracedServer() {
  const otel = otelHarness();
  const plugin = otelServerPlugin({
    tracerProvider: otel.tracerProvider,
    meterProvider: otel.meterProvider,
  });
  const handle = await serve(tracedBuilder(plugin).build(), { host: "127.0.0.1", port: 0 });
  closers.push(() => handle.close());
  return { otel, handle };
}

describe.each(["2026-07-28", "2025-11-25"])("mcpkit --trace, %s", (era) => {
  it("prints each request of the run with its duration, and the server continues the trace", async () => {
    const { otel, handle } = await tracedServer();
    const fake = fakeIo();
    const status = await runCli([handle.url, "--era", era, "--trace", "call", "echo"], fake.io);
    expect(status).toBe(ExitCode.OK);
    const lines = fake.stderr.text.trimEnd().split("\n");
    expect(lines).toContainEqual(expect.stringMatching(/^tools\/call echo {2}CLIENT {2}\d+ ms$/));
    expect(lines).toContainEqual(
      expect.stringMatching(
        era === "2025-11-25" ? /^initialize {2}CLIENT {2}\d+ ms$/ : /^server\/discover {2}CLIENT/,
      ),
    );
    const [served] = otel.named("tools/call echo").filter((span) => span.kind === SpanKind.SERVER);
    expect(served?.parentSpanContext?.isRemote).toBe(true);
  });

  it("prints nothing extra without --trace", async () => {
    const { otel, handle } = await tracedServer();
    const fake = fakeIo();
    expect(await runCli([handle.url, "--era", era, "call", "echo"], fake.io)).toBe(ExitCode.OK);
    expect(fake.stderr.text).not.toMatch(/CLIENT/);
    const [served] = otel.named("tools/call echo");
    expect(served?.parentSpanContext).toBeUndefined();
  });
});
