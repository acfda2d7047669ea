/**
 * `npm run build && node scripts/otel-waterfall.mjs [era]`: draws the waterfall of one traced call through a
 * cluster, for each era (or the one named): docs/observability-waterfall.svg (2026-07-28) and
 * docs/observability-waterfall-2025.svg (2025-11-25).
 *
 * - 2026-07-28: an agent's span; its mcpkit client's `tools/call`, which lands on one instance (an HTTP server
 *   span there, beside the MCP server span that continues the client's; the handler's own span inside) and comes
 *   back `input_required`; the agent answering the elicitation; the retry, which the balancer sends to the other
 *   instance, where the sealed `requestState` is read (a shared key) and the call completes. The HTTP span is the
 *   ambient context the MCP server span links to, as the conventions advise.
 * - 2025-11-25: the session lives on the instance that took `initialize`; the balancer sends the `tools/call` to
 *   the other one (its HTTP span there), which forwards it over the cluster's bus to the owner, where the MCP
 *   server span continues the client's and the elicitation goes to the client as a real request; the client's
 *   answer is POSTed in the session.
 *
 * Two instances share a memory cluster behind a round-robin balancer; each side has its own in-memory exporter,
 * so each row says where its span was recorded. `traceCall()` and `waterfallSvg()` are what
 * test/otel/waterfall.test.ts runs.
 */
import { writeFileSync } from "node:fs";
import { context, SpanKind } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { Client } from "mcpkit/client";
import { createHttpHandler, StreamableHttpClientTransport } from "mcpkit/http";
import { otelClientTransport, otelServerPlugin } from "mcpkit/otel";
import { inputRequired, memoryCluster, ServerBuilder } from "mcpkit/server";

const KINDS = ["INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"];
export const ERAS = ["2026-07-28", "2025-11-25"];
const FILES = {
  "2026-07-28": "../docs/observability-waterfall.svg",
  "2025-11-25": "../docs/observability-waterfall-2025.svg",
};
const TITLES = {
  "2026-07-28":
    "One tools/call through a cluster (2026-07-28): input_required on one instance, the retry served by the other",
  "2025-11-25":
    "One tools/call through a cluster (2025-11-25): taken by one instance, forwarded to the session's owner, which elicits",
};
let contextManager;

function side(name) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { name, exporter, provider };
}

/** Runs the scenario in `era`; resolves with every span, each with the side that recorded it (`where`). */
export async function traceCall(era = "2026-07-28") {
  if (contextManager === undefined) {
    contextManager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(contextManager);
  }
  const propagator = new W3CTraceContextPropagator();
  const agent = side("agent");
  const instances = [side("instance a"), side("instance b")];
  const cluster = memoryCluster();
  const handlers = [];
  for (const instance of instances) {
    const tracer = instance.provider.getTracer("booking");
    const server = new ServerBuilder({
      serverInfo: { name: "booking", version: "1.0.0" },
      cluster,
      stateKey: "waterfall-state-key-of-32-bytes!",
      plugins: [otelServerPlugin({ tracerProvider: instance.provider, propagator, networkTransport: "tcp" })],
    })
      .tool({ name: "book", inputSchema: { type: "object" } }, async (_args, ctx) => {
        const answer = ctx.inputResponses?.seat;
        if (answer?.action !== "accept") {
          await tracer.startActiveSpan("check availability", async (span) => {
            await new Promise((resolve) => setTimeout(resolve, 4));
            span.end();
          });
          return inputRequired({
            seat: {
              method: "elicitation/create",
              params: {
                message: "Window or aisle?",
                requestedSchema: {
                  type: "object",
                  properties: { seat: { type: "string" } },
                  required: ["seat"],
                },
              },
            },
          });
        }
        return { content: [{ type: "text", text: `Booked: ${answer.content.seat}` }] };
      })
      .build();
    const handler = createHttpHandler(server);
    await handler.clusterReady;
    handlers.push({ handler, tracer: instance.provider.getTracer("http") });
  }
  // The balancer: round robin, each request under an HTTP server span of the instance that takes it, which
  // ends with the response's body (an SSE answer streams on after its head).
  let next = 0;
  const fetch = async (url, init) => {
    const target = handlers[next++ % handlers.length];
    const name = `${init.method ?? "GET"} /mcp`;
    return target.tracer.startActiveSpan(name, { kind: SpanKind.SERVER }, async (span) => {
      let response;
      try {
        response = await target.handler(new Request(url, init));
      } catch (error) {
        span.end();
        throw error;
      }
      if (response.body === null) {
        span.end();
        return response;
      }
      const { status, statusText, headers } = response;
      return new Response(
        untilEnd(response.body, () => span.end()),
        { status, statusText, headers },
      );
    });
  };
  const client = new Client({
    clientInfo: { name: "travel-agent", version: "1.0.0" },
    protocolVersion: era,
    capabilities: { elicitation: {} },
    onElicitation: async () => {
      await agent.provider.getTracer("agent").startActiveSpan("ask the traveller", async (span) => {
        await new Promise((resolve) => setTimeout(resolve, 6));
        span.end();
      });
      return { action: "accept", content: { seat: "window" } };
    },
    transport: otelClientTransport(
      new StreamableHttpClientTransport({ url: "http://127.0.0.1/mcp", fetch }),
      {
        tracerProvider: agent.provider,
        propagator,
        networkTransport: "tcp",
      },
    ),
  });
  await client.connect();
  await agent.provider.getTracer("agent").startActiveSpan("plan the trip", async (root) => {
    await client.callTool("book", {});
    root.end();
  });
  await client.close();
  const all = [agent, ...instances].flatMap(({ name, exporter }) =>
    exporter.getFinishedSpans().map((span) => ({ span, where: name })),
  );
  const root = all.find(({ span }) => span.name === "plan the trip");
  return all.filter(({ span }) => span.spanContext().traceId === root.span.spanContext().traceId);
}

/** `body`, calling `done` once when it ends, fails or is cancelled (the cancellation goes on to `body`). */
function untilEnd(body, done) {
  const reader = body.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    done();
  };
  return new ReadableStream({
    async pull(controller) {
      let step;
      try {
        step = await reader.read();
      } catch (error) {
        end();
        throw error;
      }
      if (step.done) {
        end();
        controller.close();
      } else controller.enqueue(step.value);
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
}

const ns = ([s, n]) => s * 1e9 + n;

/** The spans as a waterfall, depth first from the root: one row each (name, kind, where, bar, duration). */
export function waterfallSvg(spans, era = "2026-07-28") {
  const byParent = new Map();
  for (const entry of spans) {
    const parent = entry.span.parentSpanContext?.spanId ?? "";
    byParent.set(parent, [...(byParent.get(parent) ?? []), entry]);
  }
  const ids = new Set(spans.map(({ span }) => span.spanContext().spanId));
  const rows = [];
  const walk = (entry, depth) => {
    rows.push({ ...entry, depth });
    const children = byParent.get(entry.span.spanContext().spanId) ?? [];
    children.sort((a, b) => ns(a.span.startTime) - ns(b.span.startTime));
    for (const child of children) walk(child, depth + 1);
  };
  for (const entry of spans.filter(({ span }) => !ids.has(span.parentSpanContext?.spanId ?? "")))
    walk(entry, 0);
  const start = Math.min(...rows.map(({ span }) => ns(span.startTime)));
  const end = Math.max(...rows.map(({ span }) => ns(span.endTime)));
  const width = 980;
  const label = 420;
  const row = 26;
  const scale = (width - label - 90) / Math.max(end - start, 1);
  const colour = { agent: "#4c78a8", "instance a": "#f58518", "instance b": "#54a24b" };
  const esc = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const lines = rows.map(({ span, where, depth }, i) => {
    const y = 40 + i * row;
    const x = label + (ns(span.startTime) - start) * scale;
    const w = Math.max((ns(span.endTime) - ns(span.startTime)) * scale, 2);
    const ms = ((ns(span.endTime) - ns(span.startTime)) / 1e6).toFixed(1);
    return [
      `<text x="${8 + depth * 14}" y="${y + 13}">${esc(span.name)}</text>`,
      `<text x="${label - 150}" y="${y + 13}" class="k">${KINDS[span.kind]} · ${where}</text>`,
      `<rect x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${row - 8}" rx="3" fill="${colour[where]}"/>`,
      `<text x="${(x + w + 6).toFixed(1)}" y="${y + 13}" class="k">${ms} ms</text>`,
    ].join("");
  });
  const height = 40 + rows.length * row + 16;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="ui-monospace, Menlo, monospace" font-size="12">`,
    `<title>Waterfall of one traced tools/call across two instances of a cluster (${era})</title>`,
    `<style>text{fill:#222}.k{fill:#666}</style>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="8" y="22" font-weight="bold">${TITLES[era]}</text>`,
    ...lines,
    `</svg>`,
    "",
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const asked = process.argv[2];
  if (asked !== undefined && !ERAS.includes(asked)) {
    console.error(`usage: node scripts/otel-waterfall.mjs [${ERAS.join(" | ")}]`);
    process.exit(2);
  }
  for (const era of asked === undefined ? ERAS : [asked]) {
    const spans = await traceCall(era);
    const out = new URL(FILES[era], import.meta.url);
    writeFileSync(out, waterfallSvg(spans, era));
    console.log(`wrote ${out.pathname}: ${spans.length} spans`);
  }
}
