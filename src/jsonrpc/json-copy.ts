// Past this depth the copy hands over to the JSON round trip, which then reports a cycle as it always has.
const MAX_FAST_DEPTH = 64;

/** Thrown inside the fast copy when only the JSON round trip of the whole value can tell what to do. */
const ROUND_TRIP = Symbol("round trip");
/** What a member copies to when JSON leaves it out (`null` in an array). */
const OMIT = Symbol("omit");

/** Objects made by {@link immutableJson}: frozen JSON that a copy may share instead of copying. */
const IMMUTABLE = new WeakSet<object>();

/**
 * A deep copy of `value` as {@link jsonCopy} makes it, frozen at every level and marked so that `jsonCopy`
 * hands it on as it is: for metadata that every message repeats (a client's identity and capabilities, a
 * server's identity), which the in-process pair would otherwise copy on every call. Nobody can change it, so
 * sharing it is as safe as copying it.
 */
export function immutableJson<T>(value: T): T {
  const copied = jsonCopy(value);
  freeze(copied);
  return copied;
}

function freeze(value: unknown): void {
  if (typeof value !== "object" || value === null || IMMUTABLE.has(value)) return;
  for (const member of Object.values(value)) freeze(member);
  Object.freeze(value);
  IMMUTABLE.add(value);
}

/**
 * A deep copy of a value as `JSON.parse(JSON.stringify(value))` would make it, without the text in between.
 * Plain objects, arrays, strings, booleans, `null` and numbers are copied directly: `undefined` members are
 * dropped (`null` in arrays), non-finite numbers become `null` and `-0` becomes `0`. Anything else (a
 * `toJSON`, a class instance, a function, a symbol, a BigInt) goes through the JSON round trip of the member
 * that holds it, under its own key, so `toJSON(key)` sees what it would; a structure deeper than the fast path
 * goes through the round trip as a whole, so a cycle throws as `JSON.stringify` throws. What
 * {@link immutableJson} made is not copied: it is returned as it is, wherever it sits in `value`.
 */
export function jsonCopy<T>(value: T): T {
  // A `toJSON` that every object or array inherits is left to the round trip; else only an own one can apply.
  if (!("toJSON" in Array.prototype))
    try {
      const copied = copyValue(value, "", 0);
      if (copied !== OMIT) return copied as T;
    } catch (error) {
      if (error !== ROUND_TRIP) throw error;
    }
  return JSON.parse(JSON.stringify(value) as string) as T;
}

function copyValue(value: unknown, key: string, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case "undefined":
      return OMIT;
    case "object": {
      if (value === null) return null;
      // `isFrozen` first: it answers at once for the objects that are not, which are nearly all of them.
      if (Object.isFrozen(value) && IMMUTABLE.has(value)) return value;
      if (depth >= MAX_FAST_DEPTH) throw ROUND_TRIP;
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype || Object.hasOwn(value, "toJSON")) {
          return viaJson(key, value);
        }
        return copyArray(value, depth + 1);
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if ((proto !== Object.prototype && proto !== null) || Object.hasOwn(value, "toJSON"))
        return viaJson(key, value);
      return copyObject(value as { [key: string]: unknown }, depth + 1);
    }
    default:
      return viaJson(key, value);
  }
}

function copyArray(array: readonly unknown[], depth: number): unknown[] {
  const length = array.length;
  const out: unknown[] = new Array(length);
  for (let i = 0; i < length; i++) {
    const item = array[i];
    if (typeof item === "string") out[i] = item;
    else {
      const copied = copyValue(item, String(i), depth);
      out[i] = copied === OMIT ? null : copied;
    }
  }
  return out;
}

function copyObject(object: { [key: string]: unknown }, depth: number): { [key: string]: unknown } {
  const out: { [key: string]: unknown } = {};
  // `for...in` walks the own keys in `Object.keys` order without making the array (V8 caches a shape's keys);
  // `hasOwn` leaves out what an enumerable member of a prototype would add.
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const item = object[key];
    const copied = typeof item === "string" ? item : copyValue(item, key, depth);
    if (copied === OMIT) continue;
    // JSON.parse makes "__proto__" an own member; an assignment would set the prototype instead.
    if (key === "__proto__") {
      Object.defineProperty(out, key, {
        value: copied,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else out[key] = copied;
  }
  return out;
}

/** The round trip of one member, under its key; {@link OMIT} when JSON leaves it out. */
function viaJson(key: string, value: unknown): unknown {
  const parsed = JSON.parse(JSON.stringify({ [key]: value })) as { [key: string]: unknown };
  return Object.hasOwn(parsed, key) ? parsed[key] : OMIT;
}
