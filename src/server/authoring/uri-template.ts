import { TemplateMatcher } from "./uri-template-match.js";
import {
  type OperatorRule,
  parseTemplate,
  RULES,
  type TemplateExpression,
  type TemplatePart,
  type VariableSpec,
} from "./uri-template-parse.js";

/** The longest URI a template matches: a longer one matches none (65,536 characters). */
export const MAX_TEMPLATE_URI_LENGTH = 65_536;

/** The values a URI gives a template's variables: a string, or a list for an exploded (`*`) variable. */
export type TemplateValues = { [name: string]: string | string[] };

/** Values to expand a template with; an undefined variable (or an empty list) is left out. */
export type ExpandValues = { readonly [name: string]: string | readonly string[] | undefined };

/**
 * An RFC 6570 URI template (levels 1 to 3, and level 4's explode `*` and prefix `:n`) that matches URIs and
 * expands values. Every operator: `{var}`, `{+path}` (may hold `/`), `{#frag}`, `{.ext}`, `{/seg}`,
 * `{/segments*}`, `{;params}`, `{?query,params}`, `{&more}`, several variables per expression.
 *
 * `match` takes time linear in the URI's length whatever the URI (no backtracking), and a URI longer
 * than {@link MAX_TEMPLATE_URI_LENGTH} (65,536 characters) matches no template. Values are
 * percent-decoded after the expression's text is cut at its separators, so an encoded `%2C` or `%2F` is data;
 * a malformed escape is kept as written. Named operators (`;`, `?`, `&`) read `name=value` pairs in any order,
 * ignore names the template does not declare, and give a plain variable its first value; the `?` and `&`
 * expressions of a template share one query. An exploded variable gets a list; an optional expression the URI
 * leaves out (`{?q}` with no query) leaves its variables out.
 *
 * @example
 * const template = new UriTemplate("repo://{owner}/{repo}/files{/path*}{?ref}");
 * template.match("repo://acme/site/files/src/index.ts?ref=main");
 * // { owner: "acme", repo: "site", path: ["src", "index.ts"], ref: "main" }
 * template.expand({ owner: "acme", repo: "site", path: ["a b"] }); // "repo://acme/site/files/a%20b"
 */
export class UriTemplate {
  /** The variable names, in the order they appear. */
  readonly variables: readonly string[];
  private readonly parts: readonly TemplatePart[];
  private readonly expressions: readonly TemplateExpression[];
  private readonly matcher: TemplateMatcher;
  /** Every variable of the `?` and `&` expressions, by name: they read one shared query. */
  private readonly query = new Map<string, VariableSpec>();

  /**
   * Throws an `Error` for a template it cannot match: an unclosed `{`, an operator RFC 6570 reserves (`=`, `,`,
   * `!`, `@`, `|`), a malformed variable, or a variable that appears twice.
   */
  constructor(readonly template: string) {
    this.parts = parseTemplate(template);
    this.expressions = this.parts.filter((p): p is TemplateExpression => typeof p !== "string");
    this.variables = this.expressions.flatMap((e) => e.variables.map((v) => v.name));
    for (const e of this.expressions) {
      if (e.operator === "?" || e.operator === "&") for (const v of e.variables) this.query.set(v.name, v);
    }
    this.matcher = new TemplateMatcher(this.parts);
  }

  /** The variables of `uri`, or `undefined` when it does not match (or is longer than 65,536 characters). */
  match(uri: string): TemplateValues | undefined {
    if (uri.length > MAX_TEMPLATE_URI_LENGTH) return undefined;
    const spans = this.matcher.match(uri);
    if (spans === undefined) return undefined;
    const out: TemplateValues = {};
    this.expressions.forEach((expression, k) => {
      const start = spans[2 * k] as number;
      if (start < 0) return;
      const text = uri.slice(start, spans[2 * k + 1]);
      const rule = RULES[expression.operator];
      if (rule.named) this.readNamed(expression, text, rule, out);
      else readPositional(expression, text, rule, out);
    });
    return out;
  }

  /** Expands the template (RFC 6570 section 3.2). */
  expand(values: ExpandValues): string {
    let out = "";
    for (const part of this.parts) out += typeof part === "string" ? part : expandExpression(part, values);
    return out;
  }

  private readNamed(expression: TemplateExpression, text: string, rule: OperatorRule, out: TemplateValues) {
    const declared =
      expression.operator === ";" ? new Map(expression.variables.map((v) => [v.name, v])) : this.query;
    for (const pair of text.split(rule.sep)) {
      const eq = pair.indexOf("=");
      const spec = declared.get(decode(eq < 0 ? pair : pair.slice(0, eq)));
      if (spec === undefined) continue;
      const value = eq < 0 ? "" : decode(pair.slice(eq + 1));
      const seen = out[spec.name];
      if (spec.explode) {
        if (Array.isArray(seen)) seen.push(value);
        else out[spec.name] = [value];
      } else if (seen === undefined) out[spec.name] = value;
    }
  }
}

/**
 * Unnamed operators: the text cut at the separator, one part per variable, in order. The first exploded
 * variable (else the first variable) takes the parts left over; with fewer parts than variables the last ones
 * are left out.
 */
function readPositional(
  expression: TemplateExpression,
  text: string,
  rule: OperatorRule,
  out: TemplateValues,
) {
  const variables = expression.variables;
  if (variables.length === 1 && !variables[0]?.explode) {
    out[(variables[0] as VariableSpec).name] = decode(text);
    return;
  }
  const items = text.split(rule.sep);
  const owner = Math.max(
    0,
    variables.findIndex((v) => v.explode),
  );
  const spare = Math.max(0, items.length - variables.length);
  let at = 0;
  variables.forEach((variable, j) => {
    if (at >= items.length) return;
    const taken = items.slice(at, at + (j === owner ? 1 + spare : 1));
    at += taken.length;
    out[variable.name] = variable.explode ? taken.map(decode) : decode(taken.join(rule.sep));
  });
}

function decode(raw: string): string {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function expandExpression(expression: TemplateExpression, values: ExpandValues): string {
  const rule = RULES[expression.operator];
  let out = "";
  let first = true;
  for (const { name, explode, prefix } of expression.variables) {
    const value = values[name];
    if (value === undefined || (typeof value !== "string" && value.length === 0)) continue;
    out += first ? rule.first : rule.sep;
    first = false;
    if (typeof value === "string") {
      const text = prefix === undefined ? value : [...value].slice(0, prefix).join("");
      out += rule.named ? named(name, text, rule) : encode(text, rule.reserved);
    } else if (!explode) {
      const joined = value.map((v) => encode(v, rule.reserved)).join(",");
      out += rule.named ? `${name}=${joined}` : joined;
    } else {
      out += value.map((v) => (rule.named ? named(name, v, rule) : encode(v, rule.reserved))).join(rule.sep);
    }
  }
  return out;
}

function named(name: string, value: string, rule: OperatorRule): string {
  return value === "" ? `${name}${rule.ifEmpty}` : `${name}=${encode(value, rule.reserved)}`;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

/** Percent-encodes (UTF-8) what the operator does not allow; reserved expansion keeps `%XX` triplets. */
function encode(value: string, reserved: boolean): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value.charAt(i);
    if (UNRESERVED.test(c) || (reserved && RESERVED.test(c))) out += c;
    else if (reserved && c === "%" && /^[0-9A-Fa-f]{2}$/.test(value.slice(i + 1, i + 3))) out += c;
    else {
      const code = value.charCodeAt(i);
      const pair = code >= 0xd800 && code <= 0xdbff ? value.charAt(i + 1) : "";
      try {
        out += encodeURIComponent(c + pair);
        i += pair.length;
      } catch {
        out += "%EF%BF%BD"; // a lone surrogate: U+FFFD, as a UTF-8 encoder writes it
      }
    }
  }
  return out.replace(/[!'()*]/g, (c) => (reserved ? c : `%${c.charCodeAt(0).toString(16).toUpperCase()}`));
}
