import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runs } from "../../../test/support/property.js";
import { type ExpandValues, UriTemplate } from "./uri-template.js";
import { TemplateMatcher } from "./uri-template-match.js";
import { parseTemplate, type TemplateExpression, type TemplatePart } from "./uri-template-parse.js";

/** The first character of each operator's expansion. */
const FIRST: { [op: string]: string } = {
  "": "",
  "+": "",
  "#": "#",
  ".": ".",
  "/": "/",
  ";": ";",
  "?": "?",
  "&": "&",
};

/**
 * The documented rules (docs/tools.md, "Resource templates") restated as a backtracking regular expression with
 * one group per expression: a class per operator, optional expressions tried present first, lazy before an
 * optional expression. JavaScript's own engine is the oracle for where each expression starts and ends.
 */
function oracle(parts: readonly TemplatePart[]): RegExp {
  const literalOf = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const source = parts.map((part, i) => {
    if (typeof part === "string") return literalOf(part);
    const next = parts[i + 1];
    const lazy = next !== undefined && typeof next !== "string" && FIRST[next.operator] !== "" ? "?" : "";
    const excluded = excludedByRules(parts, i);
    const body = excluded === "" ? "[\\s\\S]" : `[^${excluded.replace(/[\]\\^-]/g, "\\$&")}]`;
    const first = FIRST[part.operator] as string;
    return first === "" ? `(${body}+${lazy})` : `(?:${literalOf(first)}(${body}*${lazy}))?`;
  });
  return new RegExp(`^${source.join("")}$`, "d");
}

function excludedByRules(parts: readonly TemplatePart[], i: number): string {
  const e = parts[i] as TemplateExpression;
  const single = e.variables.length === 1 && !e.variables[0]?.explode;
  if (e.operator === "" || e.operator === ";") return "/?#";
  if (e.operator === ".") return single ? "/?#." : "/?#";
  if (e.operator === "/") return single ? "/?#" : "?#";
  if (e.operator === "?" || e.operator === "&") return "#";
  const later = parts.slice(i + 1);
  const produces = (c: string) =>
    later.some((p) => (typeof p === "string" ? p.includes(c) : FIRST[p.operator] === c));
  return (produces("?") ? "?" : "") + (produces("#") ? "#" : "");
}

const special = fc.constantFrom("a", "b", "/", ".", "?", "#", "&", "=", ";", ",", "%");
const literal = fc.string({ unit: special, minLength: 1, maxLength: 3 });
/** 1-6 parts, literals and expressions of every operator with one or two variables (some exploded). */
const richTemplate = fc
  .array(
    fc.oneof(
      literal,
      fc.tuple(
        fc.constantFrom("", "+", "#", ".", "/", ";", "?", "&"),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 2 }),
      ),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((parts) => {
    let k = 0;
    return parts
      .map((p) =>
        typeof p === "string"
          ? p
          : `{${p[0]}${p[1].map((explode) => `v${k++}${explode ? "*" : ""}`).join(",")}}`,
      )
      .join("");
  });

/** A URI from the template with random text for each expression, so that splits are ambiguous. */
const nearMiss = (t: string) =>
  fc.array(fc.string({ unit: special, maxLength: 5 }), { minLength: 12, maxLength: 12 }).map((texts) => {
    let k = 0;
    return t.replace(/\{[^}]*\}/g, () => texts[k++] ?? "");
  });

describe("UriTemplate operators, properties", () => {
  it("cuts a URI where the backtracking regular expression of the documented rules does", () => {
    fc.assert(
      fc.property(
        richTemplate.chain((t) =>
          fc.tuple(fc.constant(t), fc.oneof(nearMiss(t), fc.string({ unit: special, maxLength: 10 }))),
        ),
        ([t, uri]) => {
          const parts = parseTemplate(t);
          const expected = oracle(parts).exec(uri);
          const spans = new TemplateMatcher(parts).match(uri);
          if (expected === null) {
            expect(spans).toBeUndefined();
            return;
          }
          const indices = expected.indices ?? [];
          expect(spans).toEqual(indices.slice(1).flatMap((span) => span ?? [-1, -1]));
        },
      ),
      runs(0x0e1a0004, 1500),
    );
  });

  it("expanding values with each operator and matching the result gives the values back", () => {
    // Characters expansion encodes, reserved ones it keeps, and any other character.
    const unit = fc.oneof(
      fc.constantFrom("/", "%", "?", "#", "&", "=", ",", ";", ".", " ", "+", "é", "😀", "%2F", "a"),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
    );
    const text = fc.string({ unit, maxLength: 6 });
    const nonEmpty = fc.string({ unit, minLength: 1, maxLength: 6 });
    // Reserved expansion passes a valid %XX through (RFC 6570), so such a value cannot come back as written.
    const noTriplet = (s: string) => !/%[0-9A-Fa-f]{2}/.test(s);
    const without = (chars: string) => (s: string) => [...chars].every((c) => !s.includes(c));
    const list = fc.array(text, { minLength: 1, maxLength: 3 });
    const maybe = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });
    const shapes: [string, fc.Arbitrary<ExpandValues>][] = [
      ["s://x/{a}", fc.record({ a: nonEmpty })],
      ["s://{x,y}", fc.record({ x: nonEmpty, y: maybe(text) })],
      ["file:///{+p}", fc.record({ p: nonEmpty.filter(noTriplet) })],
      [
        "file:///{+p}{?rev}",
        fc.record({ p: nonEmpty.filter(noTriplet).filter(without("?#")), rev: maybe(text) }),
      ],
      ["h://x{#f}", fc.record({ f: maybe(text.filter(noTriplet)) })],
      ["d://{n}{.e}", fc.record({ n: nonEmpty.filter(without(".")), e: maybe(text.filter(without("."))) })],
      [
        "l://s{.parts*}",
        fc.record({ parts: maybe(fc.array(text.filter(without(".")), { minLength: 1, maxLength: 3 })) }),
      ],
      ["r://x{/seg*}", fc.record({ seg: maybe(list) })],
      ["r://x{/a,b}", fc.record({ a: text, b: maybe(text) })],
      ["p://{a}{/rest*}{?q}", fc.record({ a: nonEmpty, rest: maybe(list), q: maybe(text) })],
      ["q://s{?x,y,z*}", fc.record({ x: maybe(text), y: maybe(text), z: maybe(list) })],
      ["q://s{?x}{&y}", fc.record({ x: maybe(text), y: maybe(text) })],
      ["m://s{;x,y}", fc.record({ x: maybe(text), y: maybe(text) })],
    ];
    const cases = fc.oneof(...shapes.map(([t, values]) => fc.tuple(fc.constant(t), values)));
    fc.assert(
      fc.property(cases, ([t, values]) => {
        const template = new UriTemplate(t);
        const defined = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
        expect(template.match(template.expand(values))).toEqual(defined);
      }),
      runs(0x0e1a0005, 1500),
    );
  });

  it("never throws, and answers long hostile URIs against every operator without backtracking", () => {
    const hostile = fc
      .tuple(
        richTemplate,
        fc.constantFrom("x", "/", ".", "?", "&", "a=", ";", ",", "%", "#"),
        fc.integer({ min: 5_000, max: 50_000 }),
        fc.constantFrom("", "/", "#", "?", "&", "."),
      )
      .map(
        ([t, unit, n, end]) => [t, `${t.replace(/\{[^}]*\}/g, unit.repeat(n / unit.length))}${end}`] as const,
      );
    fc.assert(
      fc.property(hostile, ([t, uri]) => {
        const template = new UriTemplate(t);
        const result = template.match(uri);
        if (result !== undefined)
          for (const name of Object.keys(result)) expect(template.variables).toContain(name);
      }),
      runs(0x0e1a0006, 60),
    );
  });
});
