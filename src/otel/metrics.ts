import {
  type Counter,
  createNoopMeter,
  type Histogram,
  type Meter,
  type ObservableGauge,
  type UpDownCounter,
} from "@opentelemetry/api";
import { DURATION_BUCKETS } from "./semconv.js";

const NOOP_METER_CLASS = createNoopMeter().constructor;

/**
 * True when `meter` records something: not the API's no-op meter (no meter provider registered). The metrics API
 * has no proxy, so an instrument made before a provider is registered stays a no-op: `Recorders` makes them again
 * on the provider once there is one.
 */
export function recording(meter: Meter): boolean {
  return meter.constructor !== NOOP_METER_CLASS;
}

function duration(meter: Meter, name: string, description: string): Histogram {
  return meter.createHistogram(name, {
    unit: "s",
    description,
    advice: { explicitBucketBoundaries: [...DURATION_BUCKETS] },
  });
}

/**
 * The operation histograms, by role in the exchange as the conventions define them: `sent` is
 * `mcp.client.operation.duration` (measured by the sender: a client's requests, and a server's requests to its
 * client), `served` is `mcp.server.operation.duration` (measured by the receiver).
 */
export interface OperationInstruments {
  /** False with no meter provider: no measurement is built. */
  readonly on: boolean;
  readonly sent: Histogram;
  readonly served: Histogram;
}

function operations(meter: Meter): OperationInstruments {
  return {
    on: recording(meter),
    sent: duration(
      meter,
      "mcp.client.operation.duration",
      "The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.",
    ),
    served: duration(
      meter,
      "mcp.server.operation.duration",
      "MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.",
    ),
  };
}

/** The instruments of the server side: the conventions' histograms, and mcpkit's own. */
export interface ServerInstruments extends OperationInstruments {
  readonly session: Histogram;
  readonly sessions: UpDownCounter;
  readonly listens: UpDownCounter;
  readonly refused: Counter;
  readonly running: ObservableGauge;
  readonly queued: ObservableGauge;
}

/** Creates the server's instruments on `meter`. */
export function serverInstruments(meter: Meter): ServerInstruments {
  return {
    ...operations(meter),
    session: duration(
      meter,
      "mcp.server.session.duration",
      "The duration of the MCP session as observed on the MCP server.",
    ),
    sessions: meter.createUpDownCounter("mcpkit.server.session.active", {
      unit: "{session}",
      description: "2025-11-25 sessions open on this server.",
    }),
    listens: meter.createUpDownCounter("mcpkit.server.listen.active", {
      unit: "{stream}",
      description: "2026-07-28 subscriptions/listen streams open on this server.",
    }),
    running: meter.createObservableGauge("mcpkit.server.handler.running", {
      unit: "{call}",
      description: "Handler calls running now (at most maxConcurrentHandlers).",
    }),
    queued: meter.createObservableGauge("mcpkit.server.handler.queued", {
      unit: "{call}",
      description: "Handler calls waiting for a slot now: the admission queue (at most maxQueuedHandlers).",
    }),
    refused: meter.createCounter("mcpkit.server.request.refused", {
      unit: "{request}",
      description:
        "Requests refused before or instead of their handler (a limit, the admission queue, a plugin's admit), by reason.",
    }),
  };
}

/** The instruments of the client side: the conventions' histograms. */
export interface ClientInstruments extends OperationInstruments {
  readonly session: Histogram;
}

/** Creates the client's instruments on `meter`. */
export function clientInstruments(meter: Meter): ClientInstruments {
  return {
    ...operations(meter),
    session: duration(
      meter,
      "mcp.client.session.duration",
      "The duration of the MCP session as observed on the MCP client.",
    ),
  };
}
