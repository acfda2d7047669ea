/**
 * One trace through the gateway: a traced mcpkit client calls a tool of the gateway (with `otelServerPlugin()`),
 * whose call to the upstream goes through `otelClientTransport` (the gateway's `upstreamTransport` option), to an
 * upstream with the plugin too. Every side in this process records into one in-memory exporter, so the chain is
 * checked span by span: client -> gateway server -> gateway's upstream client -> upstream server. A stdio upstream
 * records in its own process; there the test checks the `traceparent` its call carried in `_meta`. An upstream's
 * request for input stays in the trace of the call it serves.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { SpanKind } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../../src/client/index.js";
import { createGateway, type GatewayOptions } from "../../src/gateway/index.js";
import { StreamableHttpClientTransport } from "../../src/http/index.js";
import { serve } from "../../src/node/serve.js";
import { otelClientTransport, otelServerPlugin } from "../../src/otel/index.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { ServerBuilder } from "../../src/server/index.js";
import { fixtureUpstream, startGatewayCli } from "../gateway/support.js";
import { until } from "../support/until.js";
import { repoRoot } from "../support/wire-schema.js";
import { otelHarness, parentOf } from "./harness.js";

const ERAS: readonly Era[] = [MODERN_VERSION, LEGACY_VERSION];
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
});

type Harness = ReturnType<typeof otelHarness>;

/** An mcpkit server with the otel plugin, in this process, on HTTP at 127.0.0.1: the upstream `up`. */
async function tracedUpstream(otel: Harness): Promise<{ [key: string]: unknown }> {
  const server = new ServerBuilder({
    serverInfo: { name: "traced-upstream", version: "1" },
    plugins: [otelServerPlugin({ tracerProvider: otel.tracerProvider })],
  })
    .tool({ name: "echo", inputSchema: { type: "object" } }, () => ({
      content: [{ type: "text", text: "echoed" }],
    }))
    .build();
  const handle = await serve(server, { host: "127.0.0.1" });
  closers.push(
    () => handle.close(),
    () => server.close(),
  );
  return { url: handle.url, allowPrivateAddress: true, start: "boot" };
}

/** The gateway in front of `up`, traced on both sides (`upstreamTransport` omitted when `wrap` is false). */
async function gateway(otel: Harness, up: { [key: string]: unknown }, wrap = true): Promise<string> {
  const tracing: Partial<GatewayOptions> = {
    plugins: [otelServerPlugin({ tracerProvider: otel.tracerProvider })],
    ...(wrap
      ? {
          upstreamTransport: (transport) =>
            otelClientTransport(transport, { tracerProvider: otel.tracerProvider }),
        }
      : {}),
  };
  const server = createGateway({ config: { mcpServers: { up } }, ...tracing });
  closers.push(() => server.close());
  await server.ready;
  const handle = await serve(server, { host: "127.0.0.1" });
  closers.push(() => handle.close());
  return handle.url;
}

/** A traced mcpkit client of the gateway in `era`. */
async function tracedClient(otel: Harness, url: string, era: Era): Promise<Client> {
  const client = new Client({
    clientInfo: { name: "traced-client", version: "1" },
    transport: otelClientTransport(new StreamableHttpClientTransport({ url }), {
      tracerProvider: otel.tracerProvider,
    }),
    protocolVersion: era,
  });
  await client.connect();
  closers.push(() => client.close());
  return client;
}

/** The one finished span of `name` and `kind`. */
function one(otel: Harness, name: string, kind: SpanKind): ReadableSpan {
  const found = otel.named(name).filter((span) => span.kind === kind);
  expect(found, `${name} (${SpanKind[kind]})`).toHaveLength(1);
  return found[0] as ReadableSpan;
}

const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const traceOf = (span: ReadableSpan) => span.spanContext().traceId;

describe.each(ERAS)("a traced %s client through the gateway", (era) => {
  it("makes one trace: client -> gateway server -> gateway's upstream client -> upstream server", async () => {
    const otel = otelHarness();
    const client = await tracedClient(otel, await gateway(otel, await tracedUpstream(otel)), era);
    expect((await client.callTool("up__echo", {})).content).toEqual([{ type: "text", text: "echoed" }]);

    const sent = one(otel, "tools/call up__echo", SpanKind.CLIENT);
    const served = one(otel, "tools/call up__echo", SpanKind.SERVER);
    const forwarded = one(otel, "tools/call echo", SpanKind.CLIENT);
    const upstream = one(otel, "tools/call echo", SpanKind.SERVER);
    expect(parentOf(sent)).toBeUndefined();
    expect(parentOf(served)).toBe(idOf(sent));
    expect(parentOf(forwarded)).toBe(idOf(served));
    expect(parentOf(upstream)).toBe(idOf(forwarded));
    expect(new Set([sent, served, forwarded, upstream].map(traceOf)).size).toBe(1);
  });

  it("carries the trace to a stdio upstream in the traceparent of its call's _meta", async () => {
    const otel = otelHarness();
    const client = await tracedClient(
      otel,
      await gateway(otel, fixtureUpstream("up", { start: "boot" })),
      era,
    );
    const result = await client.callTool("up__meta", {});
    const meta = JSON.parse((result.content as { text: string }[])[0]?.text ?? "{}") as {
      traceparent?: string;
    };
    const sent = one(otel, "tools/call up__meta", SpanKind.CLIENT);
    const forwarded = one(otel, "tools/call meta", SpanKind.CLIENT);
    expect(parentOf(forwarded)).toBe(idOf(one(otel, "tools/call up__meta", SpanKind.SERVER)));
    expect(meta.traceparent).toBe(`00-${traceOf(sent)}-${idOf(forwarded)}-01`);
  });
});

describe.each(ERAS)("a traced %s client answering an upstream's sampling through the gateway", (era) => {
  it("keeps the upstream's request for input in the trace of the call", async () => {
    const otel = otelHarness();
    const url = await gateway(otel, fixtureUpstream("up", { start: "boot" }));
    const client = new Client({
      clientInfo: { name: "traced-client", version: "1" },
      transport: otelClientTransport(new StreamableHttpClientTransport({ url }), {
        tracerProvider: otel.tracerProvider,
      }),
      protocolVersion: era,
      capabilities: { sampling: {} },
      onSampling: () => ({ role: "assistant", content: { type: "text", text: "hi" }, model: "m" }),
    });
    await client.connect();
    closers.push(() => client.close());
    expect((await client.callTool("up__sample", {})).content).toEqual([
      { type: "text", text: "sampled: hi" },
    ]);
    // The call's first span (a 2026 client's retry starts a trace of its own), and the gateway's under it.
    const first = otel.named("tools/call up__sample").filter((span) => span.kind === SpanKind.CLIENT)[0];
    const served = otel
      .named("tools/call up__sample")
      .find((span) => span.kind === SpanKind.SERVER && parentOf(span) === first?.spanContext().spanId);
    expect(served).toBeDefined();
    const gatewayId = idOf(served as ReadableSpan);
    // The gateway's calls to the upstream (the 2026 upstream's first answer, then its retry with the input) and
    // the request for input it made of the client, all under the gateway's span.
    const upstream = otel.named("tools/call sample");
    expect(upstream.map(parentOf)).toEqual([gatewayId, gatewayId]);
    const asked = one(otel, "sampling/createMessage", SpanKind.CLIENT);
    expect(parentOf(asked)).toBe(gatewayId);
    expect(
      new Set([first, served, asked, ...upstream].map((span) => traceOf(span as ReadableSpan))).size,
    ).toBe(1);
    // A 2025 client gets a real request, answered in a span of its own under the gateway's.
    const answered = otel.named("sampling/createMessage").filter((span) => span.kind === SpanKind.SERVER);
    expect(answered.map(parentOf)).toEqual(era === LEGACY_VERSION ? [idOf(asked)] : []);
  });
});

describe("a lazy upstream started by a traced call", () => {
  it("connects outside the call's trace: the call's trace holds the call alone, the upstream's start its own", async () => {
    const otel = otelHarness();
    const up = { ...(await tracedUpstream(otel)), start: "lazy" };
    const client = await tracedClient(otel, await gateway(otel, up), MODERN_VERSION);
    await client.callTool("up__echo", {});
    const trace = traceOf(one(otel, "tools/call up__echo", SpanKind.CLIENT));
    const inTrace = otel.spans().filter((span) => traceOf(span) === trace);
    expect(inTrace.map((span) => `${span.name} ${SpanKind[span.kind]}`).sort()).toEqual([
      "tools/call echo CLIENT",
      "tools/call echo SERVER",
      "tools/call up__echo CLIENT",
      "tools/call up__echo SERVER",
    ]);
    // The gateway's own requests to start the upstream were traced all the same, as traces of their own.
    const listed = otel.named("tools/list").filter((span) => span.kind === SpanKind.CLIENT);
    expect(listed.length).toBeGreaterThan(0);
    for (const span of listed) expect(traceOf(span)).not.toBe(trace);
  });
});

describe("the gateway without upstreamTransport", () => {
  it("passes no trace context to its upstreams, though it traces its own calls", async () => {
    const otel = otelHarness();
    const url = await gateway(otel, fixtureUpstream("up", { start: "boot" }), false);
    const client = await tracedClient(otel, url, MODERN_VERSION);
    const result = await client.callTool("up__meta", {});
    expect((result.content as { text: string }[])[0]?.text).not.toContain("traceparent");
    expect(otel.named("tools/call up__meta").map((span) => span.kind)).toContain(SpanKind.SERVER);
  });

  it("refuses an upstreamTransport that is not a function", () => {
    expect(() => createGateway({ config: { mcpServers: {} }, upstreamTransport: "otel" as never })).toThrow(
      expect.objectContaining({
        code: "INVALID_CONFIG",
        message: expect.stringContaining("upstreamTransport"),
      }),
    );
  });
});

describe("mcpkit gateway --otel (the built CLI, the SDK registered with node --import)", () => {
  it("puts its server span and its call to the upstream in the client's trace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpkit-gateway-otel-"));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const spans = join(dir, "spans.jsonl");
    const file = join(dir, "gateway.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { up: fixtureUpstream("up", { start: "boot" }) } }));
    const preload = pathToFileURL(join(repoRoot, "test", "fixtures", "otel-preload.mjs")).href;
    const { url } = await startGatewayCli(["--config", file, "--no-watch", "--otel"], closers, {
      ...process.env,
      NODE_OPTIONS: `--import ${preload}`,
      MCPKIT_TEST_SPANS: spans,
    });
    const otel = otelHarness();
    const client = await tracedClient(otel, url, MODERN_VERSION);
    const result = await client.callTool("up__meta", {});
    const meta = JSON.parse((result.content as { text: string }[])[0]?.text ?? "{}") as {
      traceparent?: string;
    };
    const sent = one(otel, "tools/call up__meta", SpanKind.CLIENT);
    type Line = { name: string; kind: number; traceId: string; spanId: string; parentSpanId?: string };
    const lines = () =>
      existsSync(spans)
        ? readFileSync(spans, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((line) => JSON.parse(line) as Line)
        : [];
    await until(() => lines().some((s) => s.name === "tools/call up__meta" && s.kind === SpanKind.SERVER));
    const served = lines().find((s) => s.name === "tools/call up__meta" && s.kind === SpanKind.SERVER);
    const forwarded = lines().find((s) => s.name === "tools/call meta" && s.kind === SpanKind.CLIENT);
    expect(served).toMatchObject({ traceId: traceOf(sent), parentSpanId: idOf(sent) });
    expect(forwarded).toMatchObject({ traceId: traceOf(sent), parentSpanId: served?.spanId });
    expect(meta.traceparent).toBe(`00-${traceOf(sent)}-${forwarded?.spanId}-01`);
  });
});
