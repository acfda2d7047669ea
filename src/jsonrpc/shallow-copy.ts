/**
 * A shallow copy of `source`'s own enumerable string-keyed members (what JSON and HTTP headers carry; symbols
 * are left out, as they never reach a wire and asking for them costs a call into the engine), in the order
 * `{ ...source }` has them, into a fresh object that
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

/**
 * Copies `source`'s own enumerable string-keyed members into `target`, as a spread into a literal would (symbols
 * aside), later ones winning.
 */
export function copyInto(target: { [key: string]: unknown }, source: object | undefined): void {
  if (source === undefined || source === null) return;
  const from = source as { [key: string]: unknown };
  // `for...in` walks the own keys in `Object.keys` order without making the array; `hasOwn` leaves out what an
  // enumerable member of a prototype would add.
  for (const key in from) {
    if (!Object.hasOwn(from, key)) continue;
    if (key === "__proto__") define(target, key, from[key]);
    else target[key] = from[key];
  }
}

function define(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
