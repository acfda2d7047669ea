import {
  type Attributes,
  type Context,
  type MeterProvider,
  propagation,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { checkKeys, optionError } from "../jsonrpc/config-check.js";

/** Injects and extracts trace context: a `TextMapPropagator`, or the API's global `propagation`. */
export interface Propagator {
  /** Writes the fields of `context` into `carrier`. */
  inject<C>(context: Context, carrier: C, setter: TextMapSetter<C>): void;
  /** Reads the fields of `carrier` into a copy of `context`. */
  extract<C>(context: Context, carrier: C, getter: TextMapGetter<C>): Context;
}

/** What both sides of the instrumentation take. */
export interface OtelOptions {
  /** Where spans go; default the global provider (`trace.setGlobalTracerProvider`, the Node SDK's). */
  readonly tracerProvider?: TracerProvider;
  /** Where metrics go; default the global provider. */
  readonly meterProvider?: MeterProvider;
  /**
   * How trace context is carried in `params._meta`; default the global propagator (W3C `traceparent` and
   * `tracestate` with the Node SDK; add the W3C baggage propagator to carry `baggage` too).
   */
  readonly propagator?: Propagator;
  /**
   * `network.transport` of every span and metric (`tcp` for Streamable HTTP, `pipe` for stdio); unset by
   * default, since one server may serve several transports.
   */
  readonly networkTransport?: string;
  /** Milliseconds since a fixed point, for the duration histograms; default `Date.now`. */
  readonly now?: () => number;
}

const KEYS = ["tracerProvider", "meterProvider", "propagator", "networkTransport", "now"] as const;

/** The options resolved once: the tracer, meter, propagator and the attributes every span shares. */
export interface Resolved {
  /** The provider given, else the API's global one (a proxy, whose delegate is the provider once registered). */
  readonly tracerProvider: TracerProvider;
  readonly tracer: Tracer;
  /** The meter provider given; `undefined`: the global one, read when needed (the metrics API has no proxy). */
  readonly meterProvider: MeterProvider | undefined;
  readonly propagator: Propagator;
  readonly now: () => number;
  /** Attributes on every span and duration (`network.transport`), or `undefined`. */
  readonly common: Attributes | undefined;
}

/** Checks and resolves `options` (`INVALID_CONFIG` naming a bad option). */
export function resolveOtel(options: OtelOptions | undefined, what: string): Resolved {
  const given = options ?? {};
  const prefix = `${what} option `;
  if (typeof given !== "object" || given === null) throw optionError(what, "options must be an object");
  checkKeys(given, KEYS, prefix);
  const { tracerProvider, meterProvider, propagator, networkTransport, now } = given;
  if (networkTransport !== undefined && (typeof networkTransport !== "string" || networkTransport === "")) {
    throw optionError("networkTransport", "must be a non-empty string", prefix);
  }
  if (now !== undefined && typeof now !== "function") throw optionError("now", "must be a function", prefix);
  const provider = tracerProvider ?? trace.getTracerProvider();
  return {
    tracerProvider: provider,
    tracer: provider.getTracer("mcpkit"),
    meterProvider,
    propagator: propagator ?? propagation,
    now: now ?? Date.now,
    common: networkTransport === undefined ? undefined : { "network.transport": networkTransport },
  };
}
