import { type Attributes, type Span, SpanStatusCode } from "@opentelemetry/api";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import { ATTR, type Outcome } from "./semconv.js";

const LOCAL_ERRORS: { readonly [code: string]: string } = {
  TIMEOUT: "timeout",
  ABORTED: "cancelled",
  CLOSED: "closed",
  CAPACITY: "capacity",
};

/**
 * The outcome of an exchange that threw: a `JsonRpcError` by its code (as a response would be), a timeout as
 * `timeout`, a cancellation as `cancelled`, a closed connection as `closed`; anything else `_OTHER`.
 */
export function thrownOutcome(error: unknown): Outcome {
  if (error instanceof JsonRpcError) {
    const code = String(error.code);
    return { errorType: code, statusCode: code, message: error.message };
  }
  if (error instanceof McpkitError) {
    return { errorType: LOCAL_ERRORS[error.code] ?? error.code.toLowerCase(), message: error.message };
  }
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) {
    return { errorType: error.name === "AbortError" ? "cancelled" : "timeout", message: error.message };
  }
  return { errorType: "_OTHER", ...(error instanceof Error ? { message: error.message } : {}) };
}

/** Puts `outcome` on a recording span (status `ERROR`, `error.type`, `rpc.response.status_code`). */
export function recordOutcome(span: Span, outcome: Outcome): void {
  span.setAttribute(ATTR.errorType, outcome.errorType);
  if (outcome.statusCode !== undefined) span.setAttribute(ATTR.statusCode, outcome.statusCode);
  span.setStatus(
    outcome.message === undefined
      ? { code: SpanStatusCode.ERROR }
      : { code: SpanStatusCode.ERROR, message: outcome.message },
  );
}

/** The attributes of a duration measurement: the message's, the common ones, and the outcome's. */
export function durationAttributes(
  base: Attributes,
  common: Attributes | undefined,
  outcome: Outcome | undefined,
): Attributes {
  const out: Attributes = common === undefined ? { ...base } : { ...base, ...common };
  // Opt-in for metrics in the conventions: a URI per resource would make a series per resource.
  delete out[ATTR.resourceUri];
  if (outcome !== undefined) {
    out[ATTR.errorType] = outcome.errorType;
    if (outcome.statusCode !== undefined) out[ATTR.statusCode] = outcome.statusCode;
  }
  return out;
}

/** Bounded insertion-ordered map: past `capacity` the oldest entry goes. */
export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly capacity: number) {}

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K);
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  take(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) this.map.delete(key);
    return value;
  }

  /** Empties the map, returning what it held. */
  clear(): V[] {
    const values = [...this.map.values()];
    this.map.clear();
    return values;
  }

  get size(): number {
    return this.map.size;
  }
}
