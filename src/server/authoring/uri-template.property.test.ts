import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runs } from "../../../test/support/property.js";
import { UriTemplate } from "./uri-template.js";

/**
 * The meaning of a match of simple variables, as a backtracking regular expression states it: each variable is
 * `([^/?#]+)`, greedy, anchored at both ends. Fine as an oracle on short URIs, far too slow as the matcher on long
 * ones.
 */
function regexMatch(template: string, uri: string): { [name: string]: string } | undefined {
  const names: string[] = [];
  const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const source = template.replace(
    /\{([A-Za-z0-9_]+)\}|([^{]+|\{)/g,
    (_all, name: string | undefined, literal) => {
      if (name === undefined) return escapeRegExp(literal);
      names.push(name);
      return "([^/?#]+)";
    },
  );
  const found = new RegExp(`^${source}$`).exec(uri);
  if (!found) return undefined;
  const out: { [name: string]: string } = {};
  names.forEach((name, i) => {
    const raw = found[i + 1] ?? "";
    try {
      out[name] = decodeURIComponent(raw);
    } catch {
      out[name] = raw;
    }
  });
  return out;
}

/** RFC 6570 simple string expansion: every byte but the unreserved characters is percent-encoded. */
function expand(template: string, values: { [name: string]: string }): string {
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (_all, name: string) =>
    encodeURIComponent(values[name] ?? "").replace(
      /[!'()*]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
    ),
  );
}

/** A small alphabet, so that literals, separators and values collide often. */
const small = fc.string({ unit: fc.constantFrom("a", "b", "-", ".", "/", ":", "%", "2", "F"), maxLength: 5 });
const names = ["a", "b", "c", "d"];

/** A template of 0-4 variables (adjacent ones included) between literals from the small alphabet. */
const template = fc
  .array(small, { minLength: 1, maxLength: 5 })
  .map((literals) =>
    literals.map((literal, i) => (i === 0 ? literal : `{${names[i - 1]}}${literal}`)).join(""),
  );

/** A URI from the template with values from the small alphabet put in raw, so that splits are ambiguous. */
const nearMiss = (t: string) =>
  fc
    .array(fc.string({ unit: fc.constantFrom("a", "b", "-", ".", "/", "%", "x"), maxLength: 4 }), {
      minLength: 4,
      maxLength: 4,
    })
    .map((values) => t.replace(/\{([a-d])\}/g, (_all, name: string) => values[names.indexOf(name)] ?? ""));

describe("UriTemplate properties", () => {
  it("matches simple variables exactly as the greedy, anchored ([^/?#]+) regular expression does", () => {
    fc.assert(
      fc.property(
        template.chain((t) =>
          fc.tuple(fc.constant(t), fc.oneof(nearMiss(t), small, fc.string({ maxLength: 12 }))),
        ),
        ([t, uri]) => {
          expect(new UriTemplate(t).match(uri)).toEqual(regexMatch(t, uri));
        },
      ),
      runs(0x0e1a0001, 800),
    );
  });

  it("expanding a template and matching the result gives the values back, when literals separate them", () => {
    // A literal with a character expansion always encodes (here `/`, `:`, `?`, `=`, `&`) cannot occur inside a
    // value, so the split is unambiguous.
    const reserved = fc.constantFrom("/", ":", "?", "=", "&");
    const separated = fc
      .tuple(small, fc.array(fc.tuple(small, reserved, small), { maxLength: 3 }), small)
      .map(
        ([head, inner, tail]) =>
          `${head}${inner.map(([pre, r, post], i) => `{${names[i]}}${pre}${r}${post}`).join("")}{${names[inner.length]}}${tail}`,
      );
    const value = fc.string({
      unit: fc.oneof(
        fc.constantFrom("/", "%", "{", " ", "é", "😀", "%2F"),
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
      ),
      minLength: 1,
      maxLength: 8,
    });
    fc.assert(
      fc.property(separated, fc.array(value, { minLength: 4, maxLength: 4 }), (t, values) => {
        const matcher = new UriTemplate(t);
        const assigned = Object.fromEntries(matcher.variables.map((name, i) => [name, values[i] ?? "x"]));
        expect(matcher.match(expand(t, assigned))).toEqual(assigned);
      }),
      runs(0x0e1a0002, 500),
    );
  });

  it("never throws, and answers long hostile URIs without backtracking (a backtracking regex takes minutes)", () => {
    // Values of one repeated unit put in raw, then broken at the end: each variable could end at any of n places.
    const hostile = fc
      .tuple(
        template,
        fc.constantFrom("x", "-", ".", "a-", "%", "/"),
        fc.integer({ min: 5_000, max: 50_000 }),
        fc.constantFrom("", "/", "#", "-"),
      )
      .map(
        ([t, unit, n, end]) => [t, `${t.replace(/\{[a-d]\}/g, unit.repeat(n / unit.length))}${end}`] as const,
      );
    fc.assert(
      fc.property(hostile, ([t, uri]) => {
        const result = new UriTemplate(t).match(uri);
        if (result !== undefined) expect(Object.keys(result)).toEqual(new UriTemplate(t).variables);
      }),
      runs(0x0e1a0003, 40),
    );
  });
});
