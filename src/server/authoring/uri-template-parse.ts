/** An RFC 6570 operator; `""` is simple string expansion (`{var}`). */
export type TemplateOperator = "" | "+" | "#" | "." | "/" | ";" | "?" | "&";

/** One variable of an expression: its name, `*` (explode) and `:n` (prefix length). */
export interface VariableSpec {
  readonly name: string;
  readonly explode: boolean;
  readonly prefix: number | undefined;
}

/** One `{...}` of a template. */
export interface TemplateExpression {
  readonly operator: TemplateOperator;
  readonly variables: readonly VariableSpec[];
}

/** A template is literal text and expressions, in order. */
export type TemplatePart = string | TemplateExpression;

/** How an operator expands (RFC 6570, appendix A). */
export interface OperatorRule {
  /** Written before the first defined variable. */
  readonly first: string;
  /** Written between variables (and exploded list members). */
  readonly sep: string;
  /** Variables are written as `name=value`. */
  readonly named: boolean;
  /** Written after the name of a named variable whose value is empty. */
  readonly ifEmpty: string;
  /** Reserved characters and percent-encoded triplets pass through unencoded. */
  readonly reserved: boolean;
}

export const RULES: { readonly [operator in TemplateOperator]: OperatorRule } = {
  "": { first: "", sep: ",", named: false, ifEmpty: "", reserved: false },
  "+": { first: "", sep: ",", named: false, ifEmpty: "", reserved: true },
  "#": { first: "#", sep: ",", named: false, ifEmpty: "", reserved: true },
  ".": { first: ".", sep: ".", named: false, ifEmpty: "", reserved: false },
  "/": { first: "/", sep: "/", named: false, ifEmpty: "", reserved: false },
  ";": { first: ";", sep: ";", named: true, ifEmpty: "", reserved: false },
  "?": { first: "?", sep: "&", named: true, ifEmpty: "=", reserved: false },
  "&": { first: "&", sep: "&", named: true, ifEmpty: "=", reserved: false },
};

const OPERATORS = new Set(["+", "#", ".", "/", ";", "?", "&"]);
const VARSPEC = /^([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)(\*|:([1-9][0-9]{0,3}))?$/;

/**
 * Cuts a template into literals and expressions. Throws an `Error` naming the fault: an unclosed `{`, an
 * operator RFC 6570 reserves for later (`=`, `,`, `!`, `@`, `|`), a malformed variable, or a variable that
 * appears twice (a match could not give it one value).
 */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  const names = new Set<string>();
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf("{", at);
    if (open < 0) {
      parts.push(template.slice(at));
      break;
    }
    if (open > at) parts.push(template.slice(at, open));
    const close = template.indexOf("}", open);
    if (close < 0) throw new Error(`unclosed "{" in URI template ${template}`);
    const expression = parseExpression(template.slice(open + 1, close), template);
    for (const { name } of expression.variables) {
      if (names.has(name)) throw new Error(`variable "${name}" repeats in ${template}`);
      names.add(name);
    }
    parts.push(expression);
    at = close + 1;
  }
  return parts;
}

function parseExpression(body: string, template: string): TemplateExpression {
  const head = body.charAt(0);
  const operator = (OPERATORS.has(head) ? head : "") as TemplateOperator;
  const list = operator === "" ? body : body.slice(1);
  const variables = list.split(",").map((spec) => {
    const found = VARSPEC.exec(spec);
    if (!found) throw new Error(`unsupported expression "{${body}}" in ${template}`);
    const [, name = "", modifier, length] = found;
    return { name, explode: modifier === "*", prefix: length === undefined ? undefined : Number(length) };
  });
  return { operator, variables };
}
