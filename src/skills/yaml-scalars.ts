import type { SkillJson } from "./types.js";

/**
 * A `SKILL.md` frontmatter that mcpkit does not read: broken YAML, or YAML outside the subset it reads. `line`
 * counts from the first line of the YAML text (1-based), when known.
 */
export class FrontmatterError extends Error {
  readonly line: number | undefined;

  constructor(message: string, line?: number) {
    super(line === undefined ? message : `line ${line}: ${message}`);
    this.name = "FrontmatterError";
    this.line = line;
  }
}

// YAML 1.2 core schema (what the npm `yaml` package's `parse` resolves plain scalars with).
const NULL = /^(?:~|null|Null|NULL)$/;
const TRUE = /^(?:true|True|TRUE)$/;
const FALSE = /^(?:false|False|FALSE)$/;
const DECIMAL = /^[-+]?[0-9]+$/;
const OCTAL = /^0o[0-7]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const NON_FINITE = /^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

/** The core-schema value of a plain scalar. Infinities and NaN have no JSON form and are refused. */
export function resolvePlain(text: string, line: number): SkillJson {
  if (text === "" || NULL.test(text)) return null;
  if (TRUE.test(text)) return true;
  if (FALSE.test(text)) return false;
  let value: number | undefined;
  if (DECIMAL.test(text) || FLOAT.test(text)) value = Number(text);
  else if (OCTAL.test(text)) value = Number.parseInt(text.slice(2), 8);
  else if (HEX.test(text)) value = Number.parseInt(text.slice(2), 16);
  else if (NON_FINITE.test(text)) value = Number.NaN;
  if (value === undefined) return text;
  if (!Number.isFinite(value)) throw new FrontmatterError(`"${text}" has no JSON value; quote it`, line);
  return value;
}

/** A mapping key: a string, and never `__proto__`. */
export function checkKey(key: string, line: number): string {
  if (key === "__proto__") throw new FrontmatterError('the key "__proto__" is refused', line);
  return key;
}

/** A plain key must resolve to a string under the core schema (`1:`, `true:`, `null:` would not). */
export function plainKey(raw: string, line: number): string {
  if (typeof resolvePlain(raw, line) !== "string") {
    throw new FrontmatterError(`the key "${raw}" is not a string; quote it`, line);
  }
  return checkKey(raw, line);
}

const ESCAPES: { readonly [ch: string]: string } = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  t: "\t",
  "\t": "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  e: "\x1b",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
  N: "\x85",
  _: "\xa0",
  L: "\u2028",
  P: "\u2029",
};
const HEX_ESCAPES: { readonly [ch: string]: number } = { x: 2, u: 4, U: 8 };

/** A quoted scalar starting at `text[start]`, closed on the same line. Returns its value and the index after it. */
export function readQuoted(text: string, start: number, line: number): { value: string; end: number } {
  const quote = text[start];
  let value = "";
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i] as string;
    if (quote === "'") {
      if (ch === "'") {
        if (text[i + 1] !== "'") return { value, end: i + 1 };
        value += "'";
        i += 2;
        continue;
      }
    } else if (ch === '"') {
      return { value, end: i + 1 };
    } else if (ch === "\\") {
      const code = text[i + 1];
      if (code === undefined) break;
      const simple = ESCAPES[code];
      if (simple !== undefined) {
        value += simple;
        i += 2;
        continue;
      }
      const width = HEX_ESCAPES[code];
      const hex = width === undefined ? "" : text.slice(i + 2, i + 2 + width);
      const point = /^[0-9a-fA-F]+$/.test(hex) && hex.length === width ? Number.parseInt(hex, 16) : -1;
      if (point < 0 || point > 0x10ffff)
        throw new FrontmatterError(`the escape "\\${code}${hex}" is invalid`, line);
      value += String.fromCodePoint(point);
      i += 2 + (width ?? 0);
      continue;
    }
    value += ch;
    i++;
  }
  throw new FrontmatterError(
    "a quoted scalar must close on its line (multi-line quoted scalars are refused)",
    line,
  );
}

/** Index of the first non-space, non-tab character at or after `i`. */
export function skipBlanks(text: string, i: number): number {
  let at = i;
  while (text[at] === " " || text[at] === "\t") at++;
  return at;
}

/** Text after a value: nothing, or a comment. */
export function expectEnd(text: string, end: number, line: number): void {
  const at = skipBlanks(text, end);
  if (at === text.length || (text[at] === "#" && at > end)) return;
  throw new FrontmatterError("unexpected text after a value", line);
}

const FLOW_STOP = ",[]{}";

/** Where a plain scalar inside a flow collection ends: a flow indicator, `: `/`:,`..., or ` #`. */
function flowPlainEnd(text: string, start: number): number {
  let i = start;
  for (; i < text.length; i++) {
    const ch = text[i] as string;
    if (FLOW_STOP.includes(ch)) break;
    if (ch === "#" && (text[i - 1] === " " || text[i - 1] === "\t")) break;
    if (ch === ":" && (i + 1 === text.length || " \t,[]{}".includes(text[i + 1] as string))) break;
  }
  return i;
}

function checkFlowPlainStart(text: string, i: number, line: number): void {
  const ch = text[i] as string;
  const next = text[i + 1];
  const spaced = next === undefined || " \t,[]{}".includes(next);
  if ("&*!".includes(ch)) throw new FrontmatterError("anchors, aliases and tags are refused", line);
  if ("|>%@`#,".includes(ch) || ("-?:".includes(ch) && spaced)) {
    throw new FrontmatterError(`"${ch}" cannot start a plain scalar in a flow collection; quote it`, line);
  }
}

/** One item of a flow collection: a nested collection, a quoted scalar or a plain scalar. */
function readFlowItem(text: string, start: number, line: number, depth: number, maxDepth: number) {
  const i = skipBlanks(text, start);
  const ch = text[i];
  if (ch === undefined) throw new FrontmatterError("a flow collection must close on its line", line);
  if (ch === "[" || ch === "{") return readFlow(text, i, line, depth + 1, maxDepth);
  if (ch === '"' || ch === "'") return readQuoted(text, i, line);
  checkFlowPlainStart(text, i, line);
  const end = flowPlainEnd(text, i);
  const raw = text.slice(i, end).trimEnd();
  if (raw === "") throw new FrontmatterError("empty entries in a flow collection are refused", line);
  return { value: resolvePlain(raw, line), end, raw };
}

/**
 * A flow sequence or mapping starting at `text[start]`, closed on the same line. Single-pair mappings inside
 * sequences (`[a: b]`), keys without values (`{a}`) and empty entries are refused.
 */
export function readFlow(
  text: string,
  start: number,
  line: number,
  depth: number,
  maxDepth: number,
): { value: SkillJson; end: number } {
  if (depth > maxDepth) throw new FrontmatterError(`nesting deeper than ${maxDepth} levels is refused`, line);
  const isSeq = text[start] === "[";
  const close = isSeq ? "]" : "}";
  const list: SkillJson[] = [];
  const map: { [key: string]: SkillJson } = {};
  let i = skipBlanks(text, start + 1);
  if (text[i] === close) return { value: isSeq ? list : map, end: i + 1 };
  for (;;) {
    if (isSeq) {
      const item = readFlowItem(text, i, line, depth, maxDepth);
      i = skipBlanks(text, item.end);
      if (text[i] === ":") throw new FrontmatterError("mappings inside flow sequences are refused", line);
      list.push(item.value);
    } else {
      const keyAt = skipBlanks(text, i);
      const quoted = text[keyAt] === '"' || text[keyAt] === "'";
      if (!quoted && (text[keyAt] === "[" || text[keyAt] === "{")) {
        throw new FrontmatterError("collections as keys are refused", line);
      }
      const item = readFlowItem(text, keyAt, line, depth, maxDepth);
      const key = quoted
        ? checkKey(item.value as string, line)
        : plainKey((item as { raw: string }).raw, line);
      const colon = skipBlanks(text, item.end);
      const gap = text[colon + 1];
      if (text[colon] !== ":" || (!quoted && gap !== " " && gap !== "\t")) {
        throw new FrontmatterError('a flow mapping needs "key: value" entries', line);
      }
      const value = readFlowItem(text, colon + 1, line, depth, maxDepth);
      if (Object.hasOwn(map, key)) throw new FrontmatterError(`the key "${key}" is repeated`, line);
      map[key] = value.value;
      i = skipBlanks(text, value.end);
    }
    const ch = text[i];
    if (ch === close) return { value: isSeq ? list : map, end: i + 1 };
    if (ch !== ",") {
      const what = ch === undefined ? "a flow collection must close on its line" : `unexpected "${ch}"`;
      throw new FrontmatterError(what, line);
    }
    i = skipBlanks(text, i + 1);
    if (text[i] === close) return { value: isSeq ? list : map, end: i + 1 };
  }
}
