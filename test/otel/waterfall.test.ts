import { SpanKind } from "@opentelemetry/api";
import { expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without types (scripts/otel-waterfall.mjs draws the docs' picture).
import { traceCall, waterfallSvg } from "../../scripts/otel-waterfall.mjs";

interface Row {
  span: import("@opentelemetry/sdk-trace-base").ReadableSpan;
  where: string;
}

it("traces the docs' waterfall scenario: each server span under the client span that sent it, on two instances", async () => {
  const spans = (await traceCall()) as Row[];
  const named = (name: string, kind: SpanKind) =>
    spans.filter((r) => r.span.name === name && r.span.kind === kind);
  const sent = named("tools/call book", SpanKind.CLIENT);
  const served = named("tools/call book", SpanKind.SERVER);
  expect(sent).toHaveLength(2);
  expect(served).toHaveLength(2);
  // The first answer and the retry were served by different instances, each under its own client span.
  expect(new Set(served.map((r) => r.where)).size).toBe(2);
  const parents = served.map((row) => row.span.parentSpanContext?.spanId);
  expect(new Set(parents)).toEqual(new Set(sent.map((row) => row.span.spanContext().spanId)));
  for (const row of served) {
    // Linked to the instance's HTTP server span, the ambient context.
    const http = spans.find(
      (r) =>
        r.where === row.where &&
        r.span.name === "POST /mcp" &&
        r.span.spanContext().spanId === row.span.links[0]?.context.spanId,
    );
    expect(http).toBeDefined();
  }
  const svg = waterfallSvg(spans) as string;
  expect(svg.startsWith("<svg")).toBe(true);
  for (const name of [
    "plan the trip",
    "tools/call book",
    "check availability",
    "ask the traveller",
    "POST /mcp",
  ]) {
    expect(svg).toContain(`>${name}</text>`);
  }
});
