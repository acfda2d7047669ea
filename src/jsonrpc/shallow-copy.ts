/**
 * A shallow copy of `source`'s own enumerable members, as `{ ...source }` makes it, into a fresh object that
 * stays fast to extend. V8 (Node 20) gives an object made by a spread a shape that turns every later member
 * added to it, in the same literal or after, into a slow path costing about a microsecond; this copy costs tens
 * of nanoseconds and adds at the same speed as a literal. A `__proto__` member is copied as an own member, as
 * the spread does, never as the prototype.
 */
export function shallowCopy(source: object | undefined): { [key: string]: unknown } {
  const out: { [key: string]: unknown } = {};
  if (source === undefined) return out;
  copyInto(out, source);
  return out;
}

/** Copies `source`'s own enumerable members into `target`, as a spread into a literal would, later ones winning. */
export function copyInto(target: { [key: string]: unknown }, source: object | undefined): void {
  if (source === undefined || source === null) return;
  const from = source as { [key: string | symbol]: unknown };
  const keys = Object.keys(from);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (key === "__proto__") define(target, key, from[key]);
    else target[key] = from[key];
  }
  const symbols = Object.getOwnPropertySymbols(from);
  for (let i = 0; i < symbols.length; i++) {
    const symbol = symbols[i] as symbol;
    if (Object.prototype.propertyIsEnumerable.call(from, symbol)) {
      (target as { [key: symbol]: unknown })[symbol] = from[symbol];
    }
  }
}

function define(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
