/**
 * A trace through a cluster: three instances of one server sharing a memory cluster, behind a round-robin
 * balancer (a fetch that alternates between their handlers, as in test/cluster/memory-cluster.test.ts). A 2025
 * session's requests are forwarded to the instance that owns it, and a 2026 input round's retry lands on another
 * instance: the trace continues all the same, every server span a child of the client span that sent it.
 */
import { SpanKind } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/client.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import { createHttpHandler, type HttpHandler } from "../../src/http/server/handler.js";
import { otelClientTransport, otelServerPlugin } from "../../src/otel/index.js";
import type { Era } from "../../src/protocol/versions.js";
import { memoryCluster } from "../../src/server/cluster/memory.js";
import { inputServer } from "../support/input-server.js";
import { otelHarness, parentOf } from "./harness.js";

type Harness = ReturnType<typeof otelHarness>;

async function instances(otel: Harness, count: number): Promise<HttpHandler[]> {
  const cluster = memoryCluster();
  const out: HttpHandler[] = [];
  for (let i = 0; i < count; i++) {
    const plugin = otelServerPlugin({
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
    });
    const { server } = inputServer({ cluster, stateKey: "k".repeat(32), plugins: [plugin] });
    const handler = createHttpHandler(server);
    await handler.clusterReady;
    out.push(handler);
  }
  return out;
}

function roundRobin(targets: HttpHandler[]) {
  let next = 0;
  const hits = targets.map(() => 0);
  const fetch = async (url: string | URL, init?: RequestInit) => {
    const index = next++ % targets.length;
    hits[index] = (hits[index] ?? 0) + 1;
    return (targets[index] as HttpHandler)(new Request(url, init as never));
  };
  return { fetch, hits };
}

const byKind = (spans: ReadableSpan[], kind: SpanKind) => spans.filter((s) => s.kind === kind);

describe("a trace through a cluster (memory cluster, round robin)", () => {
  for (const era of ["2025-11-25", "2026-07-28"] as const satisfies readonly Era[]) {
    it(`keeps every server span under the client span that sent its request (${era})`, async () => {
      const otel = otelHarness();
      const group = await instances(otel, 3);
      const balancer = roundRobin(group);
      const client = new Client({
        transport: otelClientTransport(
          new StreamableHttpClientTransport({ url: "http://127.0.0.1/mcp", fetch: balancer.fetch as never }),
          { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider },
        ),
        clientInfo: { name: "cluster-trace", version: "1.0.0" },
        protocolVersion: era,
        capabilities: { elicitation: {} },
        onElicitation: () => ({ action: "accept", content: { name: "Ada" } }),
      });
      await client.connect();
      for (let i = 0; i < 3; i++) await client.callTool("greet", {});
      // Requests landed on every instance; a 2025 session lives on one, which the others forward to.
      expect(balancer.hits.every((hits) => hits >= 2)).toBe(true);
      if (era === "2025-11-25") expect(group.map((h) => h.sessionCount).sort()).toEqual([0, 0, 1]);
      await client.close();

      const calls = otel.named("tools/call greet");
      const sent = byKind(calls, SpanKind.CLIENT);
      const served = byKind(calls, SpanKind.SERVER);
      // 2025: one exchange per call (the elicitation is a real request); 2026: the first answer and the retry.
      expect(sent).toHaveLength(era === "2025-11-25" ? 3 : 6);
      expect(served).toHaveLength(sent.length);
      for (const span of served) {
        const parent = sent.find((s) => s.spanContext().spanId === parentOf(span));
        expect(parent, span.name).toBeDefined();
        expect(span.spanContext().traceId).toBe(parent?.spanContext().traceId);
      }
      if (era === "2025-11-25") {
        // The owner's elicitation continues the trace to the client, whichever instance the call came in on.
        const asked = otel.named("elicitation/create");
        const answered = byKind(asked, SpanKind.SERVER);
        expect(answered).toHaveLength(3);
        for (const span of answered) {
          const origin = byKind(asked, SpanKind.CLIENT).find(
            (s) => s.spanContext().spanId === parentOf(span),
          );
          expect(origin && served.some((s) => s.spanContext().spanId === parentOf(origin))).toBe(true);
        }
      }
    });
  }
});
