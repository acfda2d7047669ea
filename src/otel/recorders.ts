import {
  createNoopMeter,
  type Meter,
  type MeterProvider,
  metrics,
  ProxyTracerProvider,
  type TracerProvider,
} from "@opentelemetry/api";
import { recording } from "./metrics.js";
import type { Resolved } from "./options.js";

/** What the API's proxy delegates to while no tracer provider is registered: its no-op provider. */
const NO_TRACER_PROVIDER: TracerProvider = new ProxyTracerProvider().getDelegate();

/**
 * Whether anything records what the instrumentation would build, asked per message: a tracer provider (one
 * given, or the global one once registered) or a meter provider other than the API's no-op one. While nothing
 * does, each question reads the global tracer proxy's delegate and the global meter provider (a few property
 * reads), so a provider registered after the server or client started is picked up by the next message; once one
 * records, the answer is kept. `instruments` are the no-op meter's until a meter provider records, then that
 * meter's, made once.
 */
export class Recorders<I> {
  /** The instruments to record with: the no-op meter's while no meter provider records. */
  instruments: I;
  private tracing: boolean;
  private metered = false;
  /** The meter provider last looked at (the global one changes when one is registered). */
  private seen: MeterProvider | undefined;
  /** The global tracer proxy (or the one given), whose delegate says whether a provider is registered. */
  private readonly proxy: ProxyTracerProvider | undefined;

  constructor(
    private readonly o: Resolved,
    private readonly make: (meter: Meter) => I,
  ) {
    const provider = o.tracerProvider;
    this.proxy = provider instanceof ProxyTracerProvider ? provider : undefined;
    this.tracing = this.proxy === undefined;
    this.instruments = make(createNoopMeter());
    this.meter();
  }

  /** True when nothing records: no tracer provider and no meter provider. */
  idle(): boolean {
    if (!this.metered) this.meter();
    if (!this.tracing)
      this.tracing = (this.proxy as ProxyTracerProvider).getDelegate() !== NO_TRACER_PROVIDER;
    return !this.tracing && !this.metered;
  }

  /** True once a meter provider records (then {@link instruments} are its). */
  get recordsMetrics(): boolean {
    return this.metered;
  }

  private meter(): void {
    const provider = this.o.meterProvider ?? metrics.getMeterProvider();
    if (provider === this.seen) return;
    this.seen = provider;
    const meter = provider.getMeter("mcpkit");
    if (!recording(meter)) return;
    this.instruments = this.make(meter);
    this.metered = true;
  }
}
