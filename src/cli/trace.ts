import type { Transport } from "../transports/transport.js";
import { UsageError } from "./exit-codes.js";

/** What `--trace` adds to a run: a transport wrapper that records spans, and the tree of them. */
export interface CliTrace {
  /** The target's transport, traced (its requests carry `traceparent`, so a traced server continues the trace). */
  wrap(transport: Transport): Transport;
  /** The spans recorded, as a tree with durations (empty when none). */
  render(): string;
}

/**
 * `--trace`: loads mcpkit/otel (and with it `@opentelemetry/api`, which must be installed) only here, so runs
 * without `--trace` never load them; the spans stay in memory and are printed when the command ends.
 *
 * @example
 * const tracing = await startCliTrace();
 * const client = new Client({ clientInfo, transport: tracing.wrap(transport) });
 * // ... then: io.stderr.write(tracing.render());
 */
export async function startCliTrace(): Promise<CliTrace> {
  let modules: [typeof import("../otel/recorder.js"), typeof import("../otel/client.js")];
  try {
    modules = await Promise.all([import("../otel/recorder.js"), import("../otel/client.js")]);
  } catch (error) {
    throw new UsageError(
      `--trace needs the OpenTelemetry API: npm install @opentelemetry/api (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const [{ spanRecorder }, { otelClientTransport }] = modules;
  const recorder = spanRecorder();
  return {
    wrap: (transport) =>
      otelClientTransport(transport, {
        tracerProvider: recorder.tracerProvider,
        propagator: recorder.propagator,
      }),
    render: () => recorder.render(),
  };
}
