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

it("traces the 2025-11-25 waterfall: the call taken by one instance, forwarded to the session's owner, which elicits", async () => {
  // Before legacyGet heeded the Request's signal (and fetchHttpClient's abort cancelled the body), the client's
  // close() here waited on its GET stream for the next keepalive (15 s), for ever without keepalives.
  const spans = (await traceCall("2025-11-25")) as Row[];
  const one = (name: string, kind: SpanKind) => {
    const found = spans.filter((r) => r.span.name === name && r.span.kind === kind);
    expect(found, `${name} ${kind}`).toHaveLength(1);
    return found[0] as Row;
  };
  const id = (row: Row) => row.span.spanContext().spanId;
  const parent = (row: Row) => row.span.parentSpanContext?.spanId;
  const root = one("plan the trip", SpanKind.INTERNAL);
  const sent = one("tools/call book", SpanKind.CLIENT);
  const served = one("tools/call book", SpanKind.SERVER);
  expect(parent(sent)).toBe(id(root));
  expect(parent(served)).toBe(id(sent));
  // The POST of the call was taken by the instance that does not own the session, which forwarded it.
  const taken = spans.filter((r) => r.span.name === "POST /mcp" && parent(r) === id(root));
  expect(taken).toHaveLength(1);
  expect(taken[0]?.where).not.toBe(served.where);
  // The owner's elicitation is a real request to the client, whose answer is POSTed in the session.
  const asked = one("elicitation/create", SpanKind.CLIENT);
  const answered = one("elicitation/create", SpanKind.SERVER);
  expect([asked.where, parent(asked)]).toEqual([served.where, id(served)]);
  expect([answered.where, parent(answered)]).toEqual(["agent", id(asked)]);
  expect(parent(one("ask the traveller", SpanKind.INTERNAL))).toBe(id(answered));
  const svg = waterfallSvg(spans, "2025-11-25") as string;
  expect(svg).toContain("(2025-11-25): taken by one instance, forwarded to the session's owner");
  for (const name of ["tools/call book", "elicitation/create", "ask the traveller", "POST /mcp"]) {
    expect(svg).toContain(`>${name}</text>`);
  }
});
