import { context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import type { ClientOptions } from "../../src/client/types.js";
import { StreamableHttpClientTransport } from "../../src/http/index.js";
import { serve } from "../../src/node/serve.js";
import { otelClientTransport, otelServerPlugin } from "../../src/otel/index.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { launchStdio } from "../../src/stdio/index.js";
import { createInProcessPair } from "../../src/transports/in-process.js";
import type { Transport } from "../../src/transports/transport.js";
import { builtFixture } from "../support/fixture-build.js";
import { histogram, otelHarness, parentOf } from "./harness.js";
import { tracedBuilder } from "./traced-server.js";

const ERAS: readonly Era[] = [MODERN_VERSION, LEGACY_VERSION];
let closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

type Harness = ReturnType<typeof otelHarness>;
type Connect = (otel: Harness, era: Era, options?: Partial<ClientOptions>) => Promise<Client>;

/** A traced client on `transport`, connected; closed after the test. */
async function tracedClient(
  otel: Harness,
  transport: Transport,
  era: Era,
  options: Partial<ClientOptions>,
  networkTransport?: string,
): Promise<Client> {
  const client = new Client({
    clientInfo: { name: "traced-client", version: "1.0.0" },
    transport: otelClientTransport(transport, {
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
      ...(networkTransport === undefined ? {} : { networkTransport }),
    }),
    protocolVersion: era,
    logger: { warn: () => {} },
    ...options,
  });
  closers.push(() => client.close());
  await client.connect();
  return client;
}

const serverPlugin = (otel: Harness) =>
  otelServerPlugin({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider });

const inProcess: Connect = async (otel, era, options = {}) => {
  const server = tracedBuilder(serverPlugin(otel)).build();
  closers.push(() => server.close());
  const [clientSide, serverSide] = createInProcessPair();
  await server.connect(serverSide);
  return tracedClient(otel, clientSide, era, options);
};

const http: Connect = async (otel, era, options = {}) => {
  const server = tracedBuilder(serverPlugin(otel)).build();
  const handle = await serve(server, { host: "127.0.0.1", port: 0 });
  closers.push(() => handle.close());
  return tracedClient(otel, new StreamableHttpClientTransport({ url: handle.url }), era, options, "tcp");
};

/** Runs `work` inside an active span of the test's own, returning that span's ids. */
async function underRoot<T>(work: () => Promise<T>): Promise<{ result: T; root: Span }> {
  const root = trace.getTracer("test").startSpan("test root");
  try {
    const result = await context.with(trace.setSpan(context.active(), root), work);
    return { result, root };
  } finally {
    root.end();
  }
}

const one = (spans: ReadableSpan[], kind: SpanKind): ReadableSpan => {
  const found = spans.filter((s) => s.kind === kind);
  expect(found).toHaveLength(1);
  return found[0] as ReadableSpan;
};

for (const [name, connect] of [
  ["in process", inProcess],
  ["Streamable HTTP on 127.0.0.1", http],
] as const) {
  describe(`otelClientTransport, ${name}`, () => {
    for (const era of ERAS) {
      it(`continues the caller's trace: client span -> server span -> the tool's span (${era})`, async () => {
        const otel = otelHarness();
        trace.setGlobalTracerProvider(otel.tracerProvider);
        const client = await connect(otel, era);
        const { root } = await underRoot(() => client.callTool("echo", {}));
        const spans = otel.named("tools/call echo");
        const sent = one(spans, SpanKind.CLIENT);
        const served = one(spans, SpanKind.SERVER);
        const traceId = root.spanContext().traceId;
        expect(sent.spanContext().traceId).toBe(traceId);
        expect(parentOf(sent)).toBe(root.spanContext().spanId);
        expect(served.spanContext().traceId).toBe(traceId);
        expect(parentOf(served)).toBe(sent.spanContext().spanId);
        const [inner] = otel.named("inner work");
        expect(inner && parentOf(inner)).toBe(served.spanContext().spanId);
        expect(sent.attributes).toMatchObject({
          "mcp.method.name": "tools/call",
          "gen_ai.tool.name": "echo",
          "mcp.protocol.version": era,
        });
        expect(sent.attributes["jsonrpc.request.id"]).toBe(served.attributes["jsonrpc.request.id"]);
        if (connect === http) expect(sent.attributes["network.transport"]).toBe("tcp");
        // Over HTTP, a 2025-11-25 session's Mcp-Session-Id names the session on both sides.
        if (connect === http && era === "2025-11-25") {
          expect(sent.attributes["mcp.session.id"]).toMatch(/^[0-9a-f]{32}$/);
          expect(sent.attributes["mcp.session.id"]).toBe(served.attributes["mcp.session.id"]);
        } else {
          expect(sent.attributes["mcp.session.id"]).toBeUndefined();
        }
        const duration = histogram(await otel.metrics(), "mcp.client.operation.duration");
        expect(
          duration.dataPoints.find((p) => p.attributes["gen_ai.tool.name"] === "echo")?.attributes,
        ).toMatchObject({ "mcp.method.name": "tools/call", "mcp.protocol.version": era });
        trace.disable();
      });

      it(`records a JSON-RPC error, a timeout and a cancellation on the client span (${era})`, async () => {
        const otel = otelHarness();
        const client = await connect(otel, era);
        await expect(client.callTool("boom", {})).rejects.toMatchObject({ code: -32602 });
        // A call that can only end by its timeout: the server's tool waits for its cancellation.
        await expect(client.callTool("wait", {}, { timeoutMs: 20 })).rejects.toMatchObject({
          code: "TIMEOUT",
        });
        const abort = new AbortController();
        const cancelled = client.callTool("wait", {}, { signal: abort.signal });
        // Sent at once; the abort then ends it, on the client, as a cancellation.
        abort.abort();
        await expect(cancelled).rejects.toBeDefined();
        const [boom] = otel.named("tools/call boom").filter((s) => s.kind === SpanKind.CLIENT);
        expect(boom?.attributes).toMatchObject({
          "error.type": "-32602",
          "rpc.response.status_code": "-32602",
        });
        expect(boom?.status).toEqual({ code: SpanStatusCode.ERROR, message: "no such thing" });
        const waits = otel.named("tools/call wait").filter((s) => s.kind === SpanKind.CLIENT);
        expect(waits.map((s) => s.attributes["error.type"])).toEqual(["timeout", "cancelled"]);
        expect(waits.every((s) => s.status.code === SpanStatusCode.ERROR)).toBe(true);
      });
    }
  });
}

describe("otelClientTransport, server-to-client requests", () => {
  for (const era of ERAS) {
    it(`makes a SERVER span for the elicitation the server sends, child of the server's CLIENT span (${era})`, async () => {
      const otel = otelHarness();
      trace.setGlobalTracerProvider(otel.tracerProvider);
      const client = await inProcess(otel, era, {
        capabilities: { elicitation: {} },
        onElicitation: async () => {
          trace.getTracer("app").startSpan("ask the user").end();
          return { action: "accept", content: { name: "Ada" } };
        },
      });
      const { root } = await underRoot(() => client.callTool("greet", {}));
      const asked = otel.named("elicitation/create");
      const serverSide = one(asked, SpanKind.CLIENT);
      expect(serverSide.spanContext().traceId).toBe(root.spanContext().traceId);
      if (era === LEGACY_VERSION) {
        // A real request: the client answers it inside a SERVER span continuing the server's trace.
        const answered = one(asked, SpanKind.SERVER);
        expect(parentOf(answered)).toBe(serverSide.spanContext().spanId);
        expect(answered.attributes["mcp.method.name"]).toBe("elicitation/create");
        const [user] = otel.named("ask the user");
        expect(user && parentOf(user)).toBe(answered.spanContext().spanId);
        // Durations by role: the server sent it (the sender's histogram), the client served it.
        const metrics = await otel.metrics();
        const method = (name: string) =>
          histogram(metrics, name).dataPoints.filter(
            (p) => p.attributes["mcp.method.name"] === "elicitation/create",
          );
        expect(method("mcp.client.operation.duration")).toHaveLength(1);
        expect(method("mcp.server.operation.duration")).toHaveLength(1);
      } else {
        // 2026-07-28: the request rides in the input_required result; the client span got the event, and
        // the retry is a second client span of the same trace.
        const sent = otel.named("tools/call greet").filter((s) => s.kind === SpanKind.CLIENT);
        expect(sent).toHaveLength(2);
        expect(sent[0]?.events.map((e) => e.name)).toEqual(["mcp.input_required"]);
        expect(sent.every((s) => s.spanContext().traceId === root.spanContext().traceId)).toBe(true);
      }
      trace.disable();
    });
  }

  for (const era of ERAS) {
    it(`carries a notification's trace to the server: CLIENT span -> SERVER span (${era})`, async () => {
      const otel = otelHarness();
      trace.setGlobalTracerProvider(otel.tracerProvider);
      const client = await inProcess(otel, era);
      const { root } = await underRoot(() => client.notify("acme/seen", { id: "42" }));
      await expect.poll(() => otel.named("acme/seen").length).toBe(2);
      const spans = otel.named("acme/seen");
      const sent = one(spans, SpanKind.CLIENT);
      const received = one(spans, SpanKind.SERVER);
      expect(parentOf(sent)).toBe(root.spanContext().spanId);
      expect(parentOf(received)).toBe(sent.spanContext().spanId);
      expect(received.attributes).toMatchObject({
        "mcp.method.name": "acme/seen",
        "mcp.protocol.version": era,
      });
      trace.disable();
    });
  }

  it("records the client's session duration when it closes (fake clock)", async () => {
    const otel = otelHarness();
    let now = 0;
    const server = tracedBuilder(serverPlugin(otel)).build();
    const [clientSide, serverSide] = createInProcessPair();
    await server.connect(serverSide);
    const client = new Client({
      clientInfo: { name: "c", version: "1" },
      protocolVersion: LEGACY_VERSION,
      transport: otelClientTransport(clientSide, { meterProvider: otel.meterProvider, now: () => now }),
    });
    await client.connect();
    now += 1_500;
    await client.close();
    await server.close();
    const session = histogram(await otel.metrics(), "mcp.client.session.duration");
    expect(session.dataPoints.map((p) => [p.value.sum, p.attributes])).toEqual([
      [1.5, { "mcp.protocol.version": "2025-11-25" }],
    ]);
  });
});

describe("otelClientTransport over stdio (subprocess running the built package)", () => {
  for (const era of ERAS) {
    it(`crosses the process: the server's span is a child of the client's (${era})`, async () => {
      const otel = otelHarness();
      const launched = launchStdio({
        command: process.execPath,
        args: [builtFixture("otel-server")],
        policy: { stderr: "inherit", shutdownTimeoutMs: 2_000 },
      });
      const client = await tracedClient(otel, launched, era, {}, "pipe");
      await client.callTool("echo", {});
      const sent = one(otel.named("tools/call echo"), SpanKind.CLIENT);
      const result = await client.callTool("spans", {});
      const remote = JSON.parse((result.content[0] as { text: string }).text) as Array<{
        name: string;
        kind: number;
        traceId: string;
        parent?: string;
        attributes: { [key: string]: unknown };
      }>;
      const served = remote.find((s) => s.name === "tools/call echo");
      expect(served).toMatchObject({
        kind: SpanKind.SERVER,
        traceId: sent.spanContext().traceId,
        parent: sent.spanContext().spanId,
        attributes: { "network.transport": "pipe", "mcp.protocol.version": era },
      });
      expect(sent.attributes["network.transport"]).toBe("pipe");
    });
  }
});
