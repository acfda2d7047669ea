/**
 * The official OpenTelemetry SDK, in memory, for the mcpkit/otel tests: a tracer provider whose spans land in an
 * in-memory exporter, a meter provider read on demand, the W3C propagators, and an async-hooks context manager
 * (so `context.with` reaches across `await`, as the Node SDK's does).
 */
import { context, propagation } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  AggregationTemporality,
  type HistogramMetricData,
  MeterProvider,
  type MetricData,
  MetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

let contextManager: AsyncLocalStorageContextManager | undefined;

/** One SDK for one test: fresh exporter and reader. */
export function otelHarness() {
  if (contextManager === undefined) {
    contextManager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(contextManager);
    propagation.setGlobalPropagator(
      new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
    );
  }
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    exporter,
    /** The finished spans, in the order they ended. */
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    /** The finished spans named `name`. */
    named: (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === name),
    /** Every metric collected now, by name. */
    async metrics(): Promise<Map<string, MetricData>> {
      const { resourceMetrics } = await reader.collect();
      const out = new Map<string, MetricData>();
      for (const scope of resourceMetrics.scopeMetrics)
        for (const m of scope.metrics) out.set(m.descriptor.name, m);
      return out;
    },
  };
}

/** The histogram `name` collected now (throws when absent). */
export function histogram(metrics: Map<string, MetricData>, name: string): HistogramMetricData {
  const metric = metrics.get(name);
  if (metric === undefined) throw new Error(`no metric ${name}: ${[...metrics.keys()].join(", ")}`);
  return metric as HistogramMetricData;
}

/** The parent span id of a span (SDK 2 keeps it in `parentSpanContext`). */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
