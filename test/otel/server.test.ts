import {
  createNoopMeter,
  metrics,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import { DURATION_BUCKETS, otelLogger, otelServerPlugin } from "../../src/otel/index.js";
import { recording } from "../../src/otel/metrics.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import type { PluginHost, Server, ServerPlugin } from "../../src/server/index.js";
import { connectInProcess } from "../support/in-process-client.js";
import { histogram, otelHarness, parentOf } from "./harness.js";
import { tracedBuilder } from "./traced-server.js";

const ERAS: readonly Era[] = [MODERN_VERSION, LEGACY_VERSION];
const _OBJECT = { type: "object" } as const;
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const REMOTE_SPAN = "00f067aa0ba902b7";
const traceparent = `00-${TRACE_ID}-${REMOTE_SPAN}-01`;
const _text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

let closers: Array<() => Promise<unknown>> = [];
const track = (...close: Array<() => Promise<unknown>>) => closers.push(...close);
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

function tracedServer(plugin: ServerPlugin, more: ServerPlugin[] = []): Server {
  return tracedBuilder(plugin, more).build();
}

describe("otelServerPlugin", () => {
  for (const era of ERAS) {
    it(`makes one SERVER span per request, child of the _meta trace context, the handler inside it (${era})`, async () => {
      const otel = otelHarness();
      trace.setGlobalTracerProvider(otel.tracerProvider);
      const plugin = otelServerPlugin({
        tracerProvider: otel.tracerProvider,
        meterProvider: otel.meterProvider,
      });
      const client = await connectInProcess(tracedServer(plugin), { protocolVersion: era }, track);
      const result = await client.callTool("echo", {}, { meta: { traceparent } });
      const [span] = otel.named("tools/call echo");
      expect(span).toBeDefined();
      if (span === undefined) return;
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.spanContext().traceId).toBe(TRACE_ID);
      expect(parentOf(span)).toBe(REMOTE_SPAN);
      expect(span.attributes).toMatchObject({
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "echo",
        "gen_ai.operation.name": "execute_tool",
        "mcp.protocol.version": era,
      });
      expect(span.attributes["jsonrpc.request.id"]).toMatch(/^\d+$/);
      if (era === LEGACY_VERSION) expect(span.attributes["mcp.session.id"]).toMatch(/^[0-9a-f-]{36}$/);
      else expect(span.attributes["mcp.session.id"]).toBeUndefined();
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      // ctx.pluginData.otel is the span, and the tool's own span is its child.
      expect(result.content[0]).toMatchObject({ text: span.spanContext().spanId });
      const [inner] = otel.named("inner work");
      expect(inner?.spanContext().traceId).toBe(TRACE_ID);
      expect(inner && parentOf(inner)).toBe(span.spanContext().spanId);

      const duration = histogram(await otel.metrics(), "mcp.server.operation.duration");
      expect(duration.descriptor.unit).toBe("s");
      const point = duration.dataPoints.find((p) => p.attributes["gen_ai.tool.name"] === "echo");
      expect(point?.attributes).toMatchObject({
        "mcp.method.name": "tools/call",
        "mcp.protocol.version": era,
      });
      expect(point?.value.buckets.boundaries).toEqual(DURATION_BUCKETS);
      trace.disable();
    });

    it(`records a JSON-RPC error and an isError result as the conventions say (${era})`, async () => {
      const otel = otelHarness();
      const plugin = otelServerPlugin({
        tracerProvider: otel.tracerProvider,
        meterProvider: otel.meterProvider,
      });
      const client = await connectInProcess(tracedServer(plugin), { protocolVersion: era }, track);
      await expect(client.callTool("boom", {})).rejects.toMatchObject({ code: -32602 });
      await client.callTool("bad", {});
      const [boom] = otel.named("tools/call boom");
      expect(boom?.attributes).toMatchObject({
        "error.type": "-32602",
        "rpc.response.status_code": "-32602",
      });
      expect(boom?.status).toEqual({ code: SpanStatusCode.ERROR, message: "no such thing" });
      const [bad] = otel.named("tools/call bad");
      expect(bad?.attributes["error.type"]).toBe("tool_error");
      expect(bad?.attributes["rpc.response.status_code"]).toBeUndefined();
      expect(bad?.status.code).toBe(SpanStatusCode.ERROR);
      const points = histogram(await otel.metrics(), "mcp.server.operation.duration").dataPoints;
      expect(points.find((p) => p.attributes["gen_ai.tool.name"] === "boom")?.attributes["error.type"]).toBe(
        "-32602",
      );
      expect(points.find((p) => p.attributes["gen_ai.tool.name"] === "bad")?.attributes["error.type"]).toBe(
        "tool_error",
      );
    });

    it(`makes a CLIENT span for the elicitation it sends, with its context in the request's _meta (${era})`, async () => {
      const otel = otelHarness();
      const plugin = otelServerPlugin({
        tracerProvider: otel.tracerProvider,
        meterProvider: otel.meterProvider,
      });
      const metas: unknown[] = [];
      const client = await connectInProcess(
        tracedServer(plugin),
        {
          protocolVersion: era,
          capabilities: { elicitation: {} },
          onElicitation: async (params) => {
            metas.push((params as { _meta?: unknown })._meta);
            return { action: "accept", content: { name: "Ada" } };
          },
        },
        track,
      );
      const result = await client.callTool("greet", {}, { meta: { traceparent } });
      expect(result.content[0]).toMatchObject({ text: "Hello, Ada" });
      const calls = otel.named("tools/call greet");
      const [asked] = otel.named("elicitation/create");
      expect(asked?.kind).toBe(SpanKind.CLIENT);
      expect(asked?.spanContext().traceId).toBe(TRACE_ID);
      const first = calls[0];
      expect(asked && parentOf(asked)).toBe(first?.spanContext().spanId);
      expect(metas).toEqual([
        expect.objectContaining({ traceparent: `00-${TRACE_ID}-${asked?.spanContext().spanId}-01` }),
      ]);
      if (era === MODERN_VERSION) {
        // Two requests: the first answered input_required (an event), the retry linked to it.
        expect(calls).toHaveLength(2);
        expect(first?.events.map((e) => e.name)).toEqual(["mcp.input_required"]);
        expect(asked?.events.map((e) => e.name)).toEqual(["mcp.input_required.placed"]);
        expect(calls[1]?.links.map((l) => l.context.spanId)).toEqual([first?.spanContext().spanId]);
      } else {
        expect(calls).toHaveLength(1);
        expect(asked?.status.code).toBe(SpanStatusCode.UNSET);
      }
    });
  }

  for (const era of ERAS) {
    it(`records a request its client cancelled: error.type cancelled and an event (${era})`, async () => {
      const otel = otelHarness();
      const plugin = otelServerPlugin({
        tracerProvider: otel.tracerProvider,
        meterProvider: otel.meterProvider,
      });
      const client = await connectInProcess(tracedServer(plugin), { protocolVersion: era }, track);
      const abort = new AbortController();
      const call = client.callTool("wait", {}, { signal: abort.signal });
      abort.abort();
      await expect(call).rejects.toBeDefined();
      await expect.poll(() => otel.named("tools/call wait").length).toBe(1);
      const [span] = otel.named("tools/call wait");
      expect(span?.attributes["error.type"]).toBe("cancelled");
      expect(span?.attributes["rpc.response.status_code"]).toBeUndefined();
      expect(span?.events.map((e) => e.name)).toEqual(["mcp.cancelled"]);
    });
  }

  for (const era of ERAS) {
    it(`records a call cancelled while queued for a handler slot as cancelled, not -32603 (${era})`, async () => {
      const otel = otelHarness();
      const plugin = otelServerPlugin({
        tracerProvider: otel.tracerProvider,
        meterProvider: otel.meterProvider,
      });
      let host: PluginHost | undefined;
      const watcher: ServerPlugin = { name: "test/load", setup: (h) => (host = h) };
      const server = tracedBuilder(plugin, [watcher], undefined, { maxConcurrentHandlers: 1 }).build();
      const client = await connectInProcess(server, { protocolVersion: era }, track);
      const first = new AbortController();
      const running = client.callTool("wait", {}, { signal: first.signal });
      running.catch(() => undefined);
      await expect.poll(() => host?.load().running).toBe(1);
      const second = new AbortController();
      const queued = client.callTool("echo", {}, { signal: second.signal });
      await expect.poll(() => host?.load().queued).toBe(1);
      second.abort();
      await expect(queued).rejects.toBeDefined();
      await expect.poll(() => otel.named("tools/call echo").length).toBe(1);
      const [span] = otel.named("tools/call echo");
      expect(span?.attributes["error.type"]).toBe("cancelled");
      expect(span?.attributes["rpc.response.status_code"]).toBeUndefined();
      expect(span?.events.map((e) => e.name)).toEqual(["mcp.cancelled"]);
      const points = histogram(await otel.metrics(), "mcp.server.operation.duration").dataPoints;
      expect(points.find((p) => p.attributes["gen_ai.tool.name"] === "echo")?.attributes["error.type"]).toBe(
        "cancelled",
      );
      first.abort();
      await expect(running).rejects.toBeDefined();
    });
  }

  for (const era of ERAS) {
    it(`runs a custom request method inside its span's context, as a tool's handler (${era})`, async () => {
      const otel = otelHarness();
      const plugin = otelServerPlugin({
        tracerProvider: otel.tracerProvider,
        meterProvider: otel.meterProvider,
      });
      const server = tracedBuilder(plugin)
        .request("acme/work", async (_params, ctx) => {
          await Promise.resolve();
          const own = (ctx.pluginData.otel as Span | undefined)?.spanContext().spanId;
          return { own, active: trace.getActiveSpan()?.spanContext().spanId ?? "none" };
        })
        .build();
      const client = await connectInProcess(server, { protocolVersion: era }, track);
      const result = await client.request("acme/work", { _meta: { traceparent } });
      const [span] = otel.named("acme/work");
      expect(span?.spanContext().traceId).toBe(TRACE_ID);
      expect(result).toMatchObject({ own: span?.spanContext().spanId, active: span?.spanContext().spanId });
    });
  }

  it("runs the handler under the baggage the request's _meta carried", async () => {
    const otel = otelHarness();
    const plugin = otelServerPlugin({
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
    });
    let seen: string | undefined;
    const server = tracedBuilder(plugin)
      .tool({ name: "who", inputSchema: { type: "object" } }, () => {
        seen = propagation.getActiveBaggage()?.getEntry("userId")?.value;
        return { content: [] };
      })
      .build();
    const client = await connectInProcess(server, {}, track);
    await client.callTool("who", {}, { meta: { traceparent, baggage: "userId=alice" } });
    expect(seen).toBe("alice");
  });

  it("counts 2025-11-25 sessions and records their duration (fake clock)", async () => {
    const otel = otelHarness();
    let now = 1_000;
    const plugin = otelServerPlugin({
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
      networkTransport: "pipe",
      now: () => now,
    });
    const client = await connectInProcess(tracedServer(plugin), { protocolVersion: LEGACY_VERSION });
    const active = () =>
      otel
        .metrics()
        .then((m) => (m.get("mcpkit.server.session.active")?.dataPoints[0]?.value as number) ?? 0);
    expect(await active()).toBe(1);
    now += 2_500;
    await client.close();
    await expect.poll(active).toBe(0);
    const session = histogram(await otel.metrics(), "mcp.server.session.duration");
    expect(session.dataPoints[0]?.value.sum).toBe(2.5);
    expect(session.dataPoints[0]?.attributes).toEqual({
      "mcp.protocol.version": "2025-11-25",
      "network.transport": "pipe",
    });
  });

  it("counts the 2026 listen streams open, and ends a listen's span at its opening", async () => {
    const otel = otelHarness();
    const plugin = otelServerPlugin({
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
    });
    const server = tracedBuilder(plugin, [], undefined, { listChanged: { tools: true } }).build();
    const client = await connectInProcess(server, { protocolVersion: MODERN_VERSION }, track);
    const open = () =>
      otel.metrics().then((m) => (m.get("mcpkit.server.listen.active")?.dataPoints[0]?.value as number) ?? 0);
    const subscription = await client.listenSubscriptions({ toolsListChanged: true });
    expect((await subscription.next(5_000)).type).toBe("acknowledged");
    expect(await open()).toBe(1);
    expect(otel.named("subscriptions/listen").map((s) => s.kind)).toEqual([SpanKind.SERVER]);
    await server.notifyListChanged("tools");
    expect((await subscription.next(5_000)).type).toBe("notification");
    // The stream's events are CLIENT spans under the listen's span.
    const [listen] = otel.named("subscriptions/listen");
    const [event] = otel.named("notifications/tools/list_changed");
    expect(event && parentOf(event)).toBe(listen?.spanContext().spanId);
    await subscription.close();
    await expect.poll(open).toBe(0);
  });

  it("gauges the handler executor: calls running and calls in the admission queue", async () => {
    const otel = otelHarness();
    const plugin = otelServerPlugin({
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
    });
    const server = tracedBuilder(plugin, [], undefined, { maxConcurrentHandlers: 1 }).build();
    const client = await connectInProcess(server, {}, track);
    const gauge = async (name: string) =>
      ((await otel.metrics()).get(name)?.dataPoints[0]?.value as number | undefined) ?? -1;
    const abort = new AbortController();
    const calls = [1, 2, 3].map(() => client.callTool("wait", {}, { signal: abort.signal }).catch(() => {}));
    await expect.poll(() => gauge("mcpkit.server.handler.queued")).toBe(2);
    expect(await gauge("mcpkit.server.handler.running")).toBe(1);
    abort.abort();
    await Promise.all(calls);
    await expect.poll(() => gauge("mcpkit.server.handler.running")).toBe(0);
    expect(await gauge("mcpkit.server.handler.queued")).toBe(0);
  });

  it("counts requests refused by a later plugin's admit, by reason", async () => {
    const otel = otelHarness();
    const plugin = otelServerPlugin({
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
    });
    const refuse: ServerPlugin = {
      name: "refuse",
      admit(call) {
        if (call.method === "tools/call")
          throw new JsonRpcError(-32603, "Rate limited", { reason: "rate_limited" });
      },
    };
    const client = await connectInProcess(tracedServer(plugin, [refuse]), {}, track);
    await expect(client.callTool("echo", {})).rejects.toMatchObject({ code: -32603 });
    const refused = (await otel.metrics()).get("mcpkit.server.request.refused");
    expect(refused?.dataPoints).toEqual([
      expect.objectContaining({
        value: 1,
        attributes: { "mcpkit.refusal.reason": "rate_limited", "mcp.method.name": "tools/call" },
      }),
    ]);
  });

  it("records a 2026 request refused before the admit hook (unknown method): a span and the refused count", async () => {
    const otel = otelHarness();
    const plugin = otelServerPlugin({
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
    });
    const client = await connectInProcess(tracedServer(plugin), { protocolVersion: MODERN_VERSION }, track);
    await expect(client.request("acme/none", { _meta: { traceparent } })).rejects.toMatchObject({
      code: -32601,
    });
    const [span] = otel.named("acme/none");
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(span?.attributes).toMatchObject({
      "mcp.method.name": "acme/none",
      "mcp.protocol.version": MODERN_VERSION,
      "error.type": "-32601",
      "rpc.response.status_code": "-32601",
    });
    const refused = (await otel.metrics()).get("mcpkit.server.request.refused");
    expect(refused?.dataPoints).toEqual([
      expect.objectContaining({
        value: 1,
        attributes: {
          "mcpkit.refusal.reason": "-32601",
          "mcp.method.name": "acme/none",
          "error.type": "-32601",
        },
      }),
    ]);
  });

  it("gives the server's logger the trace and span ids of the request whose handler failed", async () => {
    const otel = otelHarness();
    const plugin = otelServerPlugin({
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
    });
    const lines: Array<{ message: string; details: unknown }> = [];
    const logger = otelLogger({
      warn: (message, details) => lines.push({ message, details }),
      error: (message, details) => lines.push({ message, details }),
    });
    const client = await connectInProcess(tracedBuilder(plugin, [], logger).build(), {}, track);
    await expect(client.readResource("file:///crash")).rejects.toMatchObject({ code: -32603 });
    const [span] = otel.named("resources/read");
    expect(span?.attributes["mcp.resource.uri"]).toBe("file:///crash");
    expect(lines).toEqual([
      {
        message: "request handler failed",
        details: {
          details: expect.objectContaining({ message: "kaput" }),
          trace_id: span?.spanContext().traceId,
          span_id: span?.spanContext().spanId,
        },
      },
    ]);
    // A line about nothing traced passes as it is.
    logger.warn("plain", { a: 1 });
    expect(lines[1]).toEqual({ message: "plain", details: { a: 1 } });
  });

  it("builds no measurement without a meter provider: the API's no-op meter is told apart once", () => {
    const otel = otelHarness();
    expect(recording(createNoopMeter())).toBe(false);
    expect(recording(metrics.getMeterProvider().getMeter("x"))).toBe(false);
    expect(recording(otel.meterProvider.getMeter("x"))).toBe(true);
  });

  it("refuses options it does not know, naming them", () => {
    expect(() => otelServerPlugin({ tracer: {} } as never)).toThrow(
      expect.objectContaining({
        code: "INVALID_CONFIG",
        message: "otelServerPlugin option tracer is not an option",
      }),
    );
    expect(() => otelServerPlugin({ networkTransport: "" })).toThrow(
      /networkTransport must be a non-empty string/,
    );
  });
});
