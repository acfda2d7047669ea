import type { SkillJson } from "./types.js";
import {
  checkKey,
  expectEnd,
  FrontmatterError,
  plainKey,
  readFlow,
  readQuoted,
  resolvePlain,
} from "./yaml-scalars.js";

/**
 * The YAML that `SKILL.md` frontmatter is read with: a subset of YAML 1.2 with core-schema typing, chosen so that
 * every document it accepts gives the same JSON as the npm `yaml` package's `parse` (which the conformance harness
 * and most hosts use). Read: block mappings and sequences, plain (also multi-line), single- and double-quoted
 * scalars on one line, literal and folded block scalars with chomping, one-line flow collections, comments.
 * Refused with a {@link FrontmatterError} instead of being read differently: anchors, aliases, tags, directives,
 * complex and non-string keys, duplicate keys, `__proto__`, tab indentation, multi-line quoted or flow values,
 * block-scalar indentation indicators, infinities and NaN, and nesting deeper than `maxDepth`.
 */

interface Line {
  /** 1-based line number. */
  no: number;
  /** Leading spaces. */
  indent: number;
  /** The line after its leading spaces. */
  text: string;
  raw: string;
}

const isBlank = (line: Line) => /^[ \t]*$/.test(line.raw);
const isSeqItem = (text: string) => text === "-" || text.startsWith("- ") || text.startsWith("-\t");
const TAB_INDENT = "tabs are refused in indentation";

class BlockParser {
  private at = 0;

  constructor(
    private readonly lines: Line[],
    private readonly maxDepth: number,
  ) {}

  document(): { [key: string]: SkillJson } {
    const first = this.peek();
    if (first === undefined) throw new FrontmatterError("the frontmatter is empty; it must be a mapping");
    if (isSeqItem(first.text) || this.keyOf(first) === undefined) {
      throw new FrontmatterError("the frontmatter must be a mapping of keys to values", first.no);
    }
    const map = this.mapping(first.indent, 1);
    const rest = this.peek();
    if (rest !== undefined) throw new FrontmatterError("unexpected content", rest.no);
    return map;
  }

  /** The next line that is neither blank nor a comment, not consumed. */
  private peek(): Line | undefined {
    for (;;) {
      const line = this.lines[this.at];
      if (line === undefined) return undefined;
      if (!isBlank(line) && !line.text.startsWith("#")) {
        if (line.raw[line.indent] === "\t") throw new FrontmatterError(TAB_INDENT, line.no);
        if (line.indent === 0 && /^(?:---|\.\.\.)(?:[ \t]|$)/.test(line.text)) {
          throw new FrontmatterError("document markers are refused", line.no);
        }
        return line;
      }
      this.at++;
    }
  }

  private depth(depth: number, line: Line): void {
    if (depth > this.maxDepth) {
      throw new FrontmatterError(`nesting deeper than ${this.maxDepth} levels is refused`, line.no);
    }
  }

  /** `key: rest` when the line is a mapping entry; `undefined` when it is not one. */
  private keyOf(line: Line): { key: string; rest: string } | undefined {
    const text = line.text;
    const first = text[0];
    if (first === '"' || first === "'") {
      const { value, end } = readQuoted(text, 0, line.no);
      if (text[end] !== ":" || (end + 1 < text.length && text[end + 1] !== " ")) return undefined;
      return { key: checkKey(value, line.no), rest: text.slice(end + 1) };
    }
    if (first === "?" && (text.length === 1 || text[1] === " " || text[1] === "\t")) {
      throw new FrontmatterError('complex keys ("? ") are refused', line.no);
    }
    if (first === undefined || "[]{}&*!|>%@`#,".includes(first) || isSeqItem(text)) return undefined;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (ch === "#" && (text[i - 1] === " " || text[i - 1] === "\t")) return undefined;
      if (ch === ":" && (i + 1 === text.length || text[i + 1] === " ")) {
        const raw = text.slice(0, i).trimEnd();
        if (raw === "") return undefined;
        return { key: plainKey(raw, line.no), rest: text.slice(i + 1) };
      }
    }
    return undefined;
  }

  private mapping(indent: number, depth: number): { [key: string]: SkillJson } {
    const map: { [key: string]: SkillJson } = {};
    for (let line = this.peek(); line !== undefined && line.indent >= indent; line = this.peek()) {
      this.depth(depth, line);
      if (line.indent > indent) throw new FrontmatterError("unexpected indentation", line.no);
      if (isSeqItem(line.text))
        throw new FrontmatterError("a sequence item where a key was expected", line.no);
      const entry = this.keyOf(line);
      if (entry === undefined) throw new FrontmatterError('expected "key: value"', line.no);
      if (Object.hasOwn(map, entry.key))
        throw new FrontmatterError(`the key "${entry.key}" is repeated`, line.no);
      this.at++;
      map[entry.key] = this.value(entry.rest, line, indent, depth, true);
    }
    return map;
  }

  private sequence(indent: number, depth: number): SkillJson[] {
    const items: SkillJson[] = [];
    for (let line = this.peek(); line !== undefined && line.indent >= indent; line = this.peek()) {
      this.depth(depth, line);
      if (line.indent > indent) throw new FrontmatterError("unexpected indentation", line.no);
      if (!isSeqItem(line.text)) break;
      const after = line.text.slice(1);
      if (after.startsWith("\t")) throw new FrontmatterError(TAB_INDENT, line.no);
      const rest = after.trimStart();
      const column = line.indent + 1 + (after.length - rest.length);
      if (rest !== "" && !rest.startsWith("#")) {
        const inner: Line = { ...line, indent: column, text: rest };
        if (isSeqItem(rest) || this.keyOf(inner) !== undefined) {
          // A compact collection (`- - a`, `- key: v`): the rest of the line is parsed as if it began there.
          this.lines[this.at] = inner;
          items.push(isSeqItem(rest) ? this.sequence(column, depth + 1) : this.mapping(column, depth + 1));
          continue;
        }
      }
      this.at++;
      items.push(this.value(rest, line, indent, depth, false));
    }
    return items;
  }

  /** The value after `key:` or `- ` on `line`; nested content must be indented deeper than `parent`. */
  private value(rest: string, line: Line, parent: number, depth: number, sameIndentSeq: boolean): SkillJson {
    if (/^[ \t]*(?:#|$)/.test(rest)) {
      const next = this.peek();
      if (next !== undefined && next.indent > parent) return this.nested(parent, depth + 1);
      if (sameIndentSeq && next !== undefined && next.indent === parent && isSeqItem(next.text)) {
        return this.sequence(parent, depth + 1);
      }
      return null;
    }
    const text = rest.trimStart();
    const first = text[0] as string;
    if (first === "|" || first === ">") return this.blockScalar(text, line, parent);
    if (first === '"' || first === "'") {
      const { value, end } = readQuoted(text, 0, line.no);
      expectEnd(text, end, line.no);
      return value;
    }
    if (first === "[" || first === "{") {
      const { value, end } = readFlow(text, 0, line.no, depth + 1, this.maxDepth);
      expectEnd(text, end, line.no);
      return value;
    }
    if ("&*!".includes(first)) throw new FrontmatterError("anchors, aliases and tags are refused", line.no);
    if ("%@`]},".includes(first))
      throw new FrontmatterError(`"${first}" cannot start a plain scalar`, line.no);
    if (isSeqItem(text) || /^[?:](?:[ \t]|$)/.test(text)) {
      throw new FrontmatterError("a collection cannot start on the line of its key", line.no);
    }
    return this.plain(text, line, parent);
  }

  /** A value on the lines below its key or dash. */
  private nested(parent: number, depth: number): SkillJson {
    const line = this.peek() as Line;
    if (isSeqItem(line.text)) return this.sequence(line.indent, depth);
    if (this.keyOf(line) !== undefined) return this.mapping(line.indent, depth);
    this.at++;
    return this.value(line.text, line, parent, depth, false);
  }

  private plain(first: string, line: Line, parent: number): SkillJson {
    const firstPart = plainPart(first, line.no);
    let value = firstPart.text;
    let commented = firstPart.commented;
    let blanks = 0;
    for (let next = this.lines[this.at]; next !== undefined; next = this.lines[this.at]) {
      if (isBlank(next)) {
        blanks++;
        this.at++;
        continue;
      }
      if (next.indent <= parent || next.text.startsWith("#")) break;
      if (next.raw[next.indent] === "\t") throw new FrontmatterError(TAB_INDENT, next.no);
      if (commented) throw new FrontmatterError("a comment ends a plain scalar; quote the value", next.no);
      if ("[]{}&*!|>'\"%@`,?:".includes(next.text[0] as string)) {
        throw new FrontmatterError(
          "a continuation line cannot start with an indicator; quote the value",
          next.no,
        );
      }
      const part = plainPart(next.text, next.no);
      value += blanks > 0 ? "\n".repeat(blanks) : " ";
      value += part.text;
      commented = part.commented;
      blanks = 0;
      this.at++;
    }
    return resolvePlain(value, line.no);
  }

  private blockScalar(header: string, line: Line, parent: number): string {
    const match = /^([|>])([-+]?)(?:[ \t]+#.*)?[ \t]*$/.exec(header);
    if (match === null) {
      const why = /^[|>][-+]?[0-9]/.test(header)
        ? "indentation indicators are refused"
        : "a bad block scalar header";
      throw new FrontmatterError(why, line.no);
    }
    const contents: (string | null)[] = [];
    let indent = -1;
    let leading = 0;
    for (let next = this.lines[this.at]; next !== undefined; next = this.lines[this.at]) {
      const spaces = /^ *$/.test(next.raw);
      if (indent === -1) {
        if (spaces) {
          leading = Math.max(leading, next.raw.length);
          contents.push(null);
          this.at++;
          continue;
        }
        if (isBlank(next)) throw new FrontmatterError(TAB_INDENT, next.no);
        if (next.indent <= parent) break;
        indent = next.indent;
        if (leading > indent)
          throw new FrontmatterError("a leading blank line is indented too deep", next.no);
      }
      if (spaces && next.raw.length <= indent) contents.push(null);
      else if (next.indent >= indent) contents.push(next.raw.slice(indent));
      else if (isBlank(next)) throw new FrontmatterError(TAB_INDENT, next.no);
      else break;
      this.at++;
    }
    return foldBlock(contents, match[1] === ">", match[2] as string);
  }
}

/** One line of a plain scalar: its text before any comment, which cannot hold `: `. */
function plainPart(text: string, no: number): { text: string; commented: boolean } {
  const comment = /[ \t]#/.exec(text);
  const part = (comment === null ? text : text.slice(0, comment.index)).trimEnd();
  if (/:(?:[ \t]|$)/.test(part))
    throw new FrontmatterError('a plain scalar cannot hold ": "; quote the value', no);
  return { text: part, commented: comment !== null };
}

/** The value of a literal (`|`) or folded (`>`) block scalar from its lines (`null` = an empty line). */
function foldBlock(contents: (string | null)[], folded: boolean, chomping: string): string {
  let last = contents.length - 1;
  while (last >= 0 && contents[last] === null) last--;
  const trailing = contents.length - 1 - last;
  if (last < 0) return chomping === "+" ? "\n".repeat(trailing) : "";
  let out = "";
  let empties = 0;
  let previous: "none" | "text" | "more" = "none";
  for (let i = 0; i <= last; i++) {
    const content = contents[i] as string | null;
    if (content === null) {
      empties++;
      continue;
    }
    const more = content.startsWith(" ") || content.startsWith("\t");
    if (previous === "none") out += "\n".repeat(empties);
    else if (folded && previous === "text" && !more) out += empties === 0 ? " " : "\n".repeat(empties);
    else out += "\n".repeat(empties + 1);
    out += content;
    previous = more ? "more" : "text";
    empties = 0;
  }
  if (chomping === "-") return out;
  return chomping === "+" ? out + "\n".repeat(trailing + 1) : `${out}\n`;
}

/**
 * Parses frontmatter YAML (the text between the `---` lines) into a JSON object. Throws {@link FrontmatterError}
 * for anything outside the subset described above.
 *
 * @example
 * parseFrontmatterYaml("name: pdf-processing\ndescription: Fill PDF forms"); // { name: "pdf-processing", ... }
 */
export function parseFrontmatterYaml(yaml: string, maxDepth = 32): { [key: string]: SkillJson } {
  const text = yaml.replaceAll("\r\n", "\n");
  if (text.includes("\r")) throw new FrontmatterError("a lone carriage return is refused");
  if (text.includes("\ufeff"))
    throw new FrontmatterError("a byte order mark inside the frontmatter is refused");
  const raws = text.split("\n");
  // A final line break ends the last line; it does not start an empty one.
  if (raws.length > 1 && raws.at(-1) === "") raws.pop();
  const lines = raws.map((raw, i) => {
    const indent = (/^ */.exec(raw) as RegExpExecArray)[0].length;
    return { no: i + 1, indent, text: raw.slice(indent), raw };
  });
  return new BlockParser(lines, maxDepth).document();
}
