import type { Context, TextMapGetter, TextMapSetter } from "@opentelemetry/api";
import type { Propagator } from "./options.js";

type Meta = { [key: string]: unknown };

/** Reads propagation fields (`traceparent`, `tracestate`, `baggage`) from a message's `params._meta`. */
export const META_GETTER: TextMapGetter<Meta | undefined> = {
  keys: (carrier) => (carrier === undefined ? [] : Object.keys(carrier)),
  get(carrier, key) {
    const value = carrier?.[key];
    return typeof value === "string" ? value : undefined;
  },
};

const META_SETTER: TextMapSetter<Meta> = {
  set(carrier, key, value) {
    carrier[key] = value;
  },
};

/** The `_meta` of a message's params, when it is an object. */
export function metaOf(params: { readonly [key: string]: unknown } | undefined): Meta | undefined {
  const meta = params?._meta;
  return meta !== null && typeof meta === "object" && !Array.isArray(meta) ? (meta as Meta) : undefined;
}

/** The context a message continues: the one in its `params._meta`, else `ambient`. */
export function parentOf(
  propagator: Propagator,
  ambient: Context,
  params: { readonly [key: string]: unknown } | undefined,
): Context {
  const meta = metaOf(params);
  return meta === undefined ? ambient : propagator.extract(ambient, meta, META_GETTER);
}

/**
 * A copy of `params` with `context` injected into a copy of its `_meta` (the caller's params are never changed);
 * `undefined` when the propagator writes nothing (no span, or a no-op propagator).
 */
export function withContext(
  propagator: Propagator,
  context: Context,
  params: { readonly [key: string]: unknown } | undefined,
): { [key: string]: unknown } | undefined {
  const fields: Meta = {};
  propagator.inject(context, fields, META_SETTER);
  for (const _ in fields) return { ...params, _meta: { ...metaOf(params), ...fields } };
  return undefined;
}
