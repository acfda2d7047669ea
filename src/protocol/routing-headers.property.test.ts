import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runs } from "../../test/support/property.js";
import { decodeHeaderValue, encodeHeaderValue, type HeaderParam, headerParamsOf } from "./routing-headers.js";

const utf8 = new TextEncoder();
/** What a string becomes through UTF-8 and back: itself, lone surrogates replaced by U+FFFD. */
const wellFormed = (text: string) => new TextDecoder("utf-8", { ignoreBOM: true }).decode(utf8.encode(text));
const base64 = (text: string) => btoa(String.fromCharCode(...utf8.encode(text)));

/** The edges of the plain form: spaces, controls, DEL, non-ASCII, a BOM, and the sentinel's own markers. */
const edge = fc.constantFrom(
  " ",
  "\t",
  "\r",
  "\n",
  "\u0000",
  "\u001f",
  "\u007f",
  "\u0080",
  "é",
  "日",
  "😀",
  "\ufeff",
  "\ufffd",
  "=",
  "?",
  "=?base64?",
  "?=",
  "b",
);
const wellFormedString = fc.string({ unit: fc.oneof(edge, fc.string({ unit: "grapheme", maxLength: 1 })) });
const anyString = fc.string({ unit: fc.oneof(edge, fc.string({ unit: "binary", maxLength: 1 })) });
const blanks = fc.string({ unit: fc.constantFrom(" ", "\t"), maxLength: 3 });

/** RFC 9110 `token`: one or more tchar. */
const TCHAR = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const isToken = (name: string) => name.length > 0 && [...name].every((c) => TCHAR.includes(c));
const token = fc.string({ unit: fc.constantFrom(...TCHAR), minLength: 1, maxLength: 12 });

describe("routing-header value properties", () => {
  it("decode(encode(value)) is the value, for any well-formed string", () => {
    fc.assert(
      fc.property(wellFormedString, (value) => {
        expect(decodeHeaderValue(encodeHeaderValue(value))).toBe(value);
      }),
      runs(0x4ead0001, 400),
    );
  });

  it("any string round-trips as its UTF-8 form (a lone surrogate becomes U+FFFD)", () => {
    fc.assert(
      fc.property(anyString, (value) => {
        expect(decodeHeaderValue(encodeHeaderValue(value))).toBe(wellFormed(value));
      }),
      runs(0x4ead0002, 300),
    );
  });

  it("the encoded value is the value when safe, else the sentinel around its UTF-8 base64, and survives Headers", () => {
    fc.assert(
      fc.property(anyString, blanks, blanks, (value, before, after) => {
        const sent = encodeHeaderValue(value);
        const safe =
          /^[\x20-\x7e]*$/.test(value) &&
          value !== "" &&
          value.trim() === value &&
          !(value.startsWith("=?base64?") && value.endsWith("?=") && value.length >= 11);
        expect(sent).toBe(safe ? value : `=?base64?${base64(value)}?=`);
        expect(sent).toMatch(/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/);
        const received = new Headers([["mcp-name", `${before}${sent}${after}`]]).get("mcp-name") ?? "";
        expect(decodeHeaderValue(received)).toBe(wellFormed(value));
        // A receiver that does not trim (a raw header view) gets the same value.
        expect(decodeHeaderValue(`${before}${sent}${after}`)).toBe(wellFormed(value));
      }),
      runs(0x4ead0003, 300),
    );
  });

  it("decode never throws: a literal is trimmed, a sentinel decodes exactly when it is strict base64 of UTF-8", () => {
    const base64Body = fc.oneof(
      fc.uint8Array({ maxLength: 12 }).map((bytes) => btoa(String.fromCharCode(...bytes))),
      fc.string({ unit: fc.constantFrom(..."AQgw+/=_-! é"), maxLength: 12 }),
    );
    const raw = fc.oneof(
      anyString,
      base64Body.map((body) => `=?base64?${body}?=`),
    );
    fc.assert(
      fc.property(blanks, raw, blanks, (before, value, after) => {
        const decoded = decodeHeaderValue(`${before}${value}${after}`);
        const inner = value.replace(/^[ \t]+|[ \t]+$/g, "");
        const sentinel = inner.length >= 11 && inner.startsWith("=?base64?") && inner.endsWith("?=");
        if (!sentinel) {
          expect(decoded).toBe(inner);
          return;
        }
        const body = inner.slice(9, -2);
        const strict = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(body);
        let expected: string | undefined;
        if (strict) {
          const bytes = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
          try {
            expected = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
          } catch {
            expected = undefined;
          }
        }
        expect(decoded).toBe(expected);
      }),
      runs(0x4ead0004, 500),
    );
  });
});

/** A valid annotated leaf: its path of property names, its `x-mcp-header` name and its type. */
interface Leaf {
  path: string[];
  name: string;
  type: HeaderParam["type"];
}

/** A map that takes `__proto__` as a key like any other (as `JSON.parse` does). */
const map = (): { [key: string]: unknown } => Object.create(null);

/** Builds the schema whose `properties` chains lead to `leaves`, with unannotated noise beside them. */
function schemaOf(leaves: readonly Leaf[]): { [key: string]: unknown } {
  const root: { [key: string]: unknown } = { type: "object", properties: map(), description: "x" };
  for (const leaf of leaves) {
    let node = root;
    for (const key of leaf.path.slice(0, -1)) {
      const properties = node.properties as { [key: string]: { [key: string]: unknown } };
      properties[key] ??= { type: "object", properties: map(), items: { type: "string" } };
      node = properties[key];
    }
    const properties = node.properties as { [key: string]: unknown };
    properties[leaf.path.at(-1) ?? ""] = { type: leaf.type, "x-mcp-header": leaf.name, minLength: 1 };
  }
  return root;
}

const propertyName = fc.constantFrom("a", "b", "c", "region", "__proto__", "constructor", "é", "");
/** Annotated leaves at distinct paths, none a prefix of another, with names unique case-insensitively. */
const leaves: fc.Arbitrary<Leaf[]> = fc
  .uniqueArray(fc.array(propertyName, { minLength: 1, maxLength: 3 }), {
    selector: (path) => JSON.stringify(path),
    maxLength: 6,
  })
  .map((paths) =>
    paths.filter(
      (path, i) =>
        !paths.some(
          (other, j) => j !== i && other.length < path.length && other.every((k, n) => path[n] === k),
        ),
    ),
  )
  .chain((paths) =>
    fc.tuple(
      fc.constant(paths),
      fc.uniqueArray(token, {
        selector: (name) => name.toLowerCase(),
        minLength: paths.length,
        maxLength: paths.length,
      }),
      fc.array(fc.constantFrom<HeaderParam["type"]>("string", "integer", "boolean"), {
        minLength: paths.length,
        maxLength: paths.length,
      }),
    ),
  )
  .map(([paths, names, types]) =>
    paths.map((path, i) => ({ path, name: names[i] ?? "", type: types[i] ?? "string" })),
  );

/** Keywords whose subschemas are never reached through `properties` alone. */
const unreachable = fc.constantFrom(
  (s: unknown) => ({ items: s }),
  (s: unknown) => ({ prefixItems: [{}, s] }),
  (s: unknown) => ({ additionalProperties: s }),
  (s: unknown) => ({ allOf: [s] }),
  (s: unknown) => ({ anyOf: [{}, s] }),
  (s: unknown) => ({ oneOf: [s] }),
  (s: unknown) => ({ not: s }),
  (s: unknown) => ({ if: {}, ["then" as string]: s }),
  (s: unknown) => ({ else: s }),
  (s: unknown) => ({ $defs: { d: s } }),
  (s: unknown) => ({ patternProperties: { ".*": s } }),
  (s: unknown) => ({ dependentSchemas: { a: s } }),
);

describe("x-mcp-header validator properties", () => {
  it("accepts a name exactly when it is an HTTP token, and a type exactly when it is string, integer or boolean", () => {
    const name = fc.oneof(token, fc.string({ maxLength: 8 }), fc.string({ unit: "binary", maxLength: 4 }));
    const type = fc.oneof(
      fc.constantFrom("string", "integer", "boolean", "number", "object"),
      fc.jsonValue(),
    );
    fc.assert(
      fc.property(fc.oneof(name, fc.jsonValue()), type, (annotation, kind) => {
        const schema = { type: "object", properties: { p: { type: kind, "x-mcp-header": annotation } } };
        const result = headerParamsOf(schema);
        const valid =
          typeof annotation === "string" &&
          isToken(annotation) &&
          (kind === "string" || kind === "integer" || kind === "boolean");
        expect(result.ok).toBe(valid);
        if (result.ok) expect(result.params).toEqual([{ name: annotation, path: ["p"], type: kind }]);
      }),
      runs(0x4ead0005, 400),
    );
  });

  it("finds every annotation reached through properties, with its path and type", () => {
    fc.assert(
      fc.property(leaves, (annotated) => {
        const schema = JSON.parse(JSON.stringify(schemaOf(annotated)));
        const result = headerParamsOf(schema);
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1);
        expect([...result.params].sort(byName)).toEqual([...annotated].sort(byName));
      }),
      runs(0x4ead0006, 200),
    );
  });

  it("refuses the schema when one more annotation is under another keyword, at the root, or repeats a name", () => {
    const fault = fc.oneof(
      fc.tuple(fc.constant("unreachable" as const), unreachable, token),
      fc.tuple(fc.constant("root" as const), fc.constant(undefined), token),
      fc.tuple(fc.constant("repeat" as const), fc.constant(undefined), fc.constant("")),
    );
    fc.assert(
      fc.property(leaves, fault, fc.nat(), ([...annotated], [kind, wrap, name], pick) => {
        const schema = schemaOf(annotated);
        const taken = new Set(annotated.map((leaf) => leaf.name.toLowerCase()));
        if (kind === "unreachable") {
          fc.pre(!taken.has(name.toLowerCase()));
          const where =
            annotated.length === 0 ? [] : (annotated[pick % annotated.length]?.path.slice(0, -1) ?? []);
          let node = schema;
          for (const key of where)
            node = (node.properties as { [key: string]: { [key: string]: unknown } })[key] ?? {};
          Object.assign(node, wrap?.({ type: "string", "x-mcp-header": name }));
        } else if (kind === "root") {
          schema["x-mcp-header"] = name;
          schema.type = "string";
        } else {
          const leaf = annotated[pick % Math.max(1, annotated.length)];
          fc.pre(leaf !== undefined && leaf.name.toUpperCase() !== leaf.name.toLowerCase());
          const copy = { ...leaf, path: [...leaf.path.slice(0, -1), `${leaf.path.at(-1)}-copy`] };
          annotated.push({
            ...copy,
            name: leaf.name.toUpperCase() === leaf.name ? leaf.name.toLowerCase() : leaf.name.toUpperCase(),
          });
          expect(headerParamsOf(JSON.parse(JSON.stringify(schemaOf(annotated)))).ok).toBe(false);
          return;
        }
        expect(headerParamsOf(JSON.parse(JSON.stringify(schema))).ok).toBe(false);
      }),
      runs(0x4ead0007, 200),
    );
  });

  it("never throws, whatever the value, and refuses nesting past its depth bound however deep", () => {
    const wrapper = fc.constantFrom(
      (s: unknown) => [s],
      (s: unknown) => ({ allOf: [s] }),
      (s: unknown) => ({ items: s }),
      (s: unknown) => ({ type: "object", properties: { p: s } }),
      (s: unknown) => ({ $defs: { d: s } }),
    );
    const deep = fc.tuple(
      fc.array(wrapper, { minLength: 1, maxLength: 8 }),
      fc.integer({ min: 0, max: 20_000 }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.jsonValue()), deep, (value, [wrappers, depth]) => {
        expect(() => headerParamsOf(value)).not.toThrow();
        let nested: unknown = { type: "string" };
        for (let i = 0; i < depth; i++) nested = wrappers[i % wrappers.length]?.(nested);
        const schema = { type: "object", properties: { p: { type: "string", anyOf: [nested] } } };
        const result = headerParamsOf(schema);
        if (depth > 64)
          expect(result).toMatchObject({ ok: false, problem: expect.stringContaining("deeper") });
      }),
      runs(0x4ead0008, 30),
    );
  });
});
