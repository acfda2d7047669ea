/**
 * mcpkit/otel with no provider registered: idle, as if it were not installed (no span, no context carried, the
 * propagator not even asked), until a provider is registered, which the next request picks up.
 */
import { type Context, metrics, trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/message.js";
import { otelClientTransport, otelServerPlugin } from "../../src/otel/index.js";
import type { Propagator } from "../../src/otel/options.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { createInProcessPair } from "../../src/transports/in-process.js";
import { connectInProcess } from "../support/in-process-client.js";
import { histogram, otelHarness } from "./harness.js";
import { tracedBuilder } from "./traced-server.js";

const ERAS: readonly Era[] = [MODERN_VERSION, LEGACY_VERSION];
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const traceparent = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
let closers: Array<() => Promise<unknown>> = [];
const track = (...close: Array<() => Promise<unknown>>) => closers.push(...close);
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
  trace.disable();
  metrics.disable();
});

/** A propagator that counts what it is asked, and carries nothing. */
function countingPropagator() {
  const asked: string[] = [];
  const propagator: Propagator = {
    inject: () => void asked.push("inject"),
    extract: (at: Context) => {
      asked.push("extract");
      return at;
    },
  };
  return { asked, propagator };
}

describe("otelServerPlugin with no provider", () => {
  for (const era of ERAS) {
    it(`is idle: the handler sees no span, the propagator is not asked, nothing is kept (${era})`, async () => {
      const { asked, propagator } = countingPropagator();
      const plugin = otelServerPlugin({ propagator });
      expect(plugin.idle?.()).toBe(true);
      const server = tracedBuilder(plugin).build();
      const client = await connectInProcess(server, { protocolVersion: era }, track);
      const result = await client.callTool("echo", {}, { meta: { traceparent } });
      expect(result.content[0]).toMatchObject({ text: "none" });
      await expect(client.callTool("boom", {})).rejects.toMatchObject({ code: -32602 });
      expect(server.config.hooks.needsCall()).toBe(false);
      expect(asked).toEqual([]);
    });
  }

  it("picks up providers registered after the server started, from the next request on", async () => {
    const otel = otelHarness();
    const plugin = otelServerPlugin();
    const client = await connectInProcess(tracedBuilder(plugin).build(), {}, track);
    await client.callTool("echo", {});
    expect(otel.spans()).toEqual([]);

    trace.setGlobalTracerProvider(otel.tracerProvider);
    metrics.setGlobalMeterProvider(otel.meterProvider);
    expect(plugin.idle?.()).toBe(false);
    const result = await client.callTool("echo", {}, { meta: { traceparent } });
    const [span] = otel.named("tools/call echo");
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(result.content[0]).toMatchObject({ text: span?.spanContext().spanId });
    const duration = histogram(await otel.metrics(), "mcp.server.operation.duration");
    const points = duration.dataPoints.filter((p) => p.attributes["gen_ai.tool.name"] === "echo");
    // One call measured: the one made once the meter was there, not the idle one before it.
    expect(points.map((p) => p.value.count)).toEqual([1]);
    expect(points[0]?.value.max).toBeLessThan(60);
  });
});

describe("otelClientTransport with no provider", () => {
  it("is idle: every message passes to the transport as it is, the propagator not asked", async () => {
    const { asked, propagator } = countingPropagator();
    const server = tracedBuilder(otelServerPlugin()).build();
    const [clientSide, serverSide] = createInProcessPair();
    await server.connect(serverSide);
    const given: JsonRpcMessage[] = [];
    const passed: JsonRpcMessage[] = [];
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (message, options) => {
      passed.push(message);
      return send(message, options);
    };
    const traced = otelClientTransport(clientSide, { propagator });
    const wrappedSend = traced.send.bind(traced);
    traced.send = (message, options) => {
      given.push(message);
      return wrappedSend(message, options);
    };
    const client = new Client({ clientInfo: { name: "c", version: "1" }, transport: traced });
    track(
      () => client.close(),
      () => server.close(),
    );
    await client.connect();
    await client.callTool("echo", {});
    expect(passed.length).toBeGreaterThan(1);
    expect(passed.every((message, i) => message === given[i])).toBe(true);
    expect(asked).toEqual([]);
  });

  it("traces from the next request on once a tracer provider is registered", async () => {
    const otel = otelHarness();
    const server = tracedBuilder(otelServerPlugin()).build();
    const [clientSide, serverSide] = createInProcessPair();
    await server.connect(serverSide);
    const client = new Client({
      clientInfo: { name: "c", version: "1" },
      transport: otelClientTransport(clientSide),
      protocolVersion: LEGACY_VERSION,
    });
    track(
      () => client.close(),
      () => server.close(),
    );
    await client.connect();
    trace.setGlobalTracerProvider(otel.tracerProvider);
    await client.callTool("echo", {});
    const [clientSpan] = otel.spans().filter((s) => s.name === "tools/call echo" && s.kind === 2);
    const [serverSpan] = otel.spans().filter((s) => s.name === "tools/call echo" && s.kind === 1);
    expect(serverSpan?.spanContext().traceId).toBe(clientSpan?.spanContext().traceId);
    // The protocol version was learned from the initialize answered while idle.
    expect(clientSpan?.attributes["mcp.protocol.version"]).toBe(LEGACY_VERSION);
  });
});
