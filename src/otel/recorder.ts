import {
  type Attributes,
  type AttributeValue,
  type Context,
  context,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type TextMapGetter,
  type TextMapSetter,
  type TimeInput,
  type Tracer,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import type { Propagator } from "./options.js";

/** A finished span as the recorder keeps it. */
interface Recorded {
  readonly name: string;
  readonly kind: number;
  readonly id: string;
  readonly parent: string | undefined;
  readonly start: number;
  readonly end: number;
  readonly attributes: Attributes;
}

const KINDS = ["INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"];
const MAX_SPANS = 10_000;

function hex(bytes: number): string {
  const buffer = new Uint8Array(bytes);
  crypto.getRandomValues(buffer);
  let out = "";
  for (const byte of buffer) out += byte.toString(16).padStart(2, "0");
  return out;
}

class RecordingSpan implements Span {
  private readonly attributes: Attributes = {};
  private readonly started = Date.now();
  private ended = false;

  constructor(
    private name: string,
    private readonly kind: number,
    private readonly context: SpanContext,
    private readonly parent: string | undefined,
    private readonly done: (span: Recorded) => void,
  ) {}

  spanContext(): SpanContext {
    return this.context;
  }
  setAttribute(key: string, value: AttributeValue): this {
    this.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    Object.assign(this.attributes, attributes);
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(_status: SpanStatus): this {
    return this;
  }
  updateName(name: string): this {
    this.name = name;
    return this;
  }
  end(_time?: TimeInput): void {
    if (this.ended) return;
    this.ended = true;
    this.done({
      name: this.name,
      kind: this.kind,
      id: this.context.spanId,
      parent: this.parent,
      start: this.started,
      end: Date.now(),
      attributes: this.attributes,
    });
  }
  isRecording(): boolean {
    return !this.ended;
  }
  recordException(): void {}
}

/**
 * A tracer that keeps its spans in memory and prints them as a tree (the CLI's `--trace`), with a W3C
 * `traceparent` propagator, so a traced server continues the trace. Needs no SDK: only `@opentelemetry/api`.
 * At most 10,000 spans are kept.
 */
export function spanRecorder(): {
  readonly tracerProvider: TracerProvider;
  readonly propagator: Propagator;
  /** The spans so far as a tree, one line each: name, kind, milliseconds, `error.type` when set. */
  render(): string;
} {
  const spans: Recorded[] = [];
  const keep = (span: Recorded) => {
    if (spans.length < MAX_SPANS) spans.push(span);
  };
  const tracer: Tracer = {
    startSpan(name: string, options: SpanOptions = {}, at: Context = context.active()): Span {
      const parent = trace.getSpanContext(at);
      const valid = parent !== undefined && trace.isSpanContextValid(parent);
      const own: SpanContext = {
        traceId: valid ? parent.traceId : hex(16),
        spanId: hex(8),
        traceFlags: 1,
      };
      return new RecordingSpan(name, options.kind ?? 0, own, valid ? parent.spanId : undefined, keep);
    },
    startActiveSpan(name: string, ...rest: unknown[]): unknown {
      const fn = rest[rest.length - 1] as (span: Span) => unknown;
      const options = (typeof rest[0] === "object" ? rest[0] : undefined) as SpanOptions | undefined;
      const at = (rest.length === 3 ? rest[1] : context.active()) as Context;
      const span = this.startSpan(name, options, at);
      return context.with(trace.setSpan(at, span), () => fn(span));
    },
  } as Tracer;
  const propagator: Propagator = {
    inject<C>(at: Context, carrier: C, setter: TextMapSetter<C>): void {
      const span = trace.getSpanContext(at);
      if (span === undefined || !trace.isSpanContextValid(span)) return;
      setter.set(carrier, "traceparent", `00-${span.traceId}-${span.spanId}-01`);
    },
    extract<C>(at: Context, carrier: C, getter: TextMapGetter<C>): Context {
      const header = getter.get(carrier, "traceparent");
      const value = Array.isArray(header) ? header[0] : header;
      const match =
        typeof value === "string" ? /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(value) : null;
      if (match === null) return at;
      return trace.setSpanContext(at, {
        traceId: match[1] as string,
        spanId: match[2] as string,
        traceFlags: Number.parseInt(match[3] as string, 16),
        isRemote: true,
      });
    },
  };
  return {
    tracerProvider: { getTracer: () => tracer },
    propagator,
    render(): string {
      const ids = new Set(spans.map((span) => span.id));
      const children = new Map<string, Recorded[]>();
      for (const span of spans) {
        const key = span.parent !== undefined && ids.has(span.parent) ? span.parent : "";
        children.set(key, [...(children.get(key) ?? []), span]);
      }
      const lines: string[] = [];
      const walk = (key: string, depth: number) => {
        const level = [...(children.get(key) ?? [])].sort((a, b) => a.start - b.start);
        for (const span of level) {
          const error = span.attributes["error.type"];
          lines.push(
            `${"  ".repeat(depth)}${span.name}  ${KINDS[span.kind] ?? "INTERNAL"}  ${span.end - span.start} ms` +
              (error === undefined ? "" : `  error.type=${String(error)}`),
          );
          walk(span.id, depth + 1);
        }
      };
      walk("", 0);
      return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
    },
  };
}
