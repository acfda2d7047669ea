/**
 * Mutations: of a message's JSON value (wrong types, missing or extra members, deep or huge values, batches,
 * non-objects) and of its encoded bytes (bit flips, truncation, invalid UTF-8, a BOM, stray bytes). Each returns
 * the mutated thing and the mutation's name, which the report counts.
 */

/** JSON-level mutations and their weights. */
const VALUE_MUTATIONS = {
  jsonrpc: 3,
  "id-type": 3,
  "id-drop": 2,
  "id-reuse": 1,
  method: 3,
  "params-type": 3,
  "add-result": 2,
  "drop-key": 5,
  "set-key": 6,
  proto: 2,
  deep: 1.5,
  huge: 0.7,
  "many-keys": 0.7,
  batch: 2,
  "non-object": 2,
};

/** Values a mutation may put anywhere. */
const ODD_VALUES = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  2 ** 31,
  2 ** 53 + 2,
  -0,
  1e300,
  "",
  "x",
  "2.0",
  "\u0000",
  "😀",
  [],
  [1, "a"],
  {},
  { a: { b: [] } },
];

/**
 * Mutates a message (a fresh copy; the input is not touched). `usedIds` lists the ids the run has used, for an
 * accidental reuse. Returns `{ value, name }`: `value` is any JSON value.
 */
export function mutateValue(rng, message, usedIds) {
  const value = structuredClone(message);
  const name = rng.weighted(VALUE_MUTATIONS);
  switch (name) {
    case "jsonrpc":
      if (rng.chance(0.2)) delete value.jsonrpc;
      else value.jsonrpc = rng.pick(["1.0", 2, 2.0, "2.0 ", " 2.0", null, "2"]);
      break;
    case "id-type":
      value.id = rng.pick([1.5, null, true, {}, [], [1], -0.5, "1", 1e300, "", -0]);
      break;
    case "id-drop":
      delete value.id;
      break;
    case "id-reuse":
      if (usedIds.length > 0) value.id = rng.pick(usedIds);
      break;
    case "method":
      if (rng.chance(0.2)) delete value.method;
      else value.method = rng.pick([5, null, "", {}, ["tools/list"], rng.word(30)]);
      break;
    case "params-type":
      value.params = rng.pick([[], ["a"], "x", 5, null, true]);
      break;
    case "add-result":
      if (rng.chance(0.5)) value.result = rng.pick([{}, 5]);
      else value.error = rng.pick([{ code: -1, message: "m" }, "e", { code: 1.5, message: "m" }]);
      break;
    case "drop-key": {
      const path = randomPath(rng, value);
      if (path.parent) delete path.parent[path.key];
      break;
    }
    case "set-key": {
      const path = randomPath(rng, value);
      const odd = rng.chance(0.8) ? rng.pick(ODD_VALUES) : rng.word(20);
      if (path.parent) path.parent[path.key] = structuredClone(odd);
      else if (isPlainObject(value)) value[rng.word(6)] = structuredClone(odd);
      break;
    }
    case "proto": {
      const target = randomObject(rng, value);
      const key = rng.pick(["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"]);
      // Assigned as own data (JSON.parse does the same for a "__proto__" member), never as the prototype.
      Object.defineProperty(target, key, {
        value: rng.pick([{ polluted: true, name: "echo" }, "x", null, 1]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      break;
    }
    case "deep":
      randomObject(rng, value).pad = deepMarker(rng.pick([64, 1_000, 20_000, 100_000]), rng.chance(0.5));
      break;
    case "huge":
      randomObject(rng, value).pad = "h".repeat(rng.pick([10_000, 100_000, 240_000, 400_000]));
      break;
    case "many-keys": {
      const pad = {};
      for (let i = 0, n = rng.pick([1_000, 20_000]); i < n; i++) pad[`k${i}`] = i;
      randomObject(rng, value).pad = pad;
      break;
    }
    case "batch":
      return { value: rng.pick([[value], [value, value], [], [1]]), name };
    case "non-object":
      return { value: rng.pick([1, "message", null, true, 1e300]), name };
    default:
  }
  return { value, name };
}

const DEEP = /"\\u0000deep:(\d+):(arrays|objects)\\u0000"/g;

/** A stand-in for `depth` nested arrays (or objects): {@link encodeJson} writes them out, without recursion. */
function deepMarker(depth, objects) {
  return `\u0000deep:${depth}:${objects ? "objects" : "arrays"}\u0000`;
}

/** Encodes a value as JSON text, with the deep values of `deep` written out in place of their stand-ins. */
export function encodeJson(value) {
  return JSON.stringify(value).replace(DEEP, (_, depth, kind) => {
    const n = Number(depth);
    return kind === "objects" ? `${'{"d":'.repeat(n)}{}${"}".repeat(n)}` : `${"[".repeat(n)}${"]".repeat(n)}`;
  });
}

function isPlainObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A random member of the value's tree (not inside pads): its parent and key; no parent for a scalar root. */
function randomPath(rng, root) {
  let parent;
  let key;
  let current = root;
  for (let depth = 0; depth < 6; depth++) {
    if (typeof current !== "object" || current === null) break;
    const keys = Array.isArray(current) ? current.map((_, i) => i) : Object.keys(current);
    if (keys.length === 0) break;
    parent = current;
    key = rng.pick(keys);
    current = current[key];
    if (rng.chance(0.35)) break;
  }
  return { parent, key };
}

/** A random object in the value's tree (the root when it is one), for an extra member. */
function randomObject(rng, root) {
  let target = isPlainObject(root) ? root : {};
  let current = target;
  for (let depth = 0; depth < 4 && rng.chance(0.5); depth++) {
    const objects = Object.values(current).filter(isPlainObject);
    if (objects.length === 0) break;
    current = rng.pick(objects);
    target = current;
  }
  return target;
}

/** Byte-level mutations and their weights. */
const BYTE_MUTATIONS = {
  flip: 5,
  "set-byte": 3,
  truncate: 4,
  insert: 3,
  "invalid-utf8": 5,
  bom: 1,
  "two-on-a-line": 1,
  "leading-space": 1,
};

const INVALID_UTF8 = [
  [0xff],
  [0xfe],
  [0x80],
  [0xc0, 0x80],
  [0xc3],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
];

/** Mutates encoded bytes. Returns `{ bytes, name }` (a new buffer). */
export function mutateBytes(rng, input) {
  const name = rng.weighted(BYTE_MUTATIONS);
  let bytes = Buffer.from(input);
  const at = () => rng.int(bytes.length + 1);
  switch (name) {
    case "flip":
      for (let i = 0, n = rng.range(1, 3); i < n && bytes.length > 0; i++) {
        bytes[rng.int(bytes.length)] ^= 1 << rng.int(8);
      }
      break;
    case "set-byte":
      if (bytes.length > 0) bytes[rng.int(bytes.length)] = rng.int(256);
      break;
    case "truncate":
      bytes = bytes.subarray(0, rng.int(bytes.length));
      break;
    case "insert": {
      const i = at();
      bytes = Buffer.concat([bytes.subarray(0, i), rng.bytes(rng.range(1, 4)), bytes.subarray(i)]);
      break;
    }
    case "invalid-utf8": {
      // Inside a string literal when there is one, so only the UTF-8 check can refuse the frame.
      const quotes = [];
      for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x22) quotes.push(i + 1);
      const i = quotes.length > 0 && rng.chance(0.8) ? rng.pick(quotes) : at();
      const bad = Buffer.from(rng.pick(INVALID_UTF8));
      bytes = Buffer.concat([bytes.subarray(0, i), bad, bytes.subarray(i)]);
      break;
    }
    case "bom":
      bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
      break;
    case "two-on-a-line":
      bytes = Buffer.concat([bytes, Buffer.from(rng.pick([" ", "", ","])), bytes]);
      break;
    case "leading-space":
      bytes = Buffer.concat([Buffer.from(rng.pick([" ", "\t", "  \t "])), bytes]);
      break;
    default:
  }
  return { bytes, name };
}
