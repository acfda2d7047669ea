import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type ParsedNode,
  parse,
  parseDocument,
} from "yaml";
import type { SkillJson } from "./types.js";

/**
 * A `SKILL.md` frontmatter that mcpkit does not read: broken YAML, or YAML that breaks a frontmatter rule. `line`
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

// YAML 1.2, core schema, as the npm `yaml` package's `parse` reads it (what the conformance harness and most hosts
// use): the same JSON, with every warning an error, unique keys, and no merge keys, aliases or custom tags.
const OPTIONS = {
  version: "1.2",
  schema: "core",
  merge: false,
  uniqueKeys: true,
  strict: true,
  prettyErrors: false,
  maxAliasCount: 0,
  intAsBigInt: false,
} as const;

/** A line that starts a document or ends one (`---`, `...`), or a directive (`%YAML`). */
const MARKER = /^(?:(?:---|\.\.\.)(?:[ \t]|$)|%)/m;

/**
 * Parses frontmatter YAML (the text between the `---` lines) into a JSON object with the npm `yaml` package.
 * Refused with a {@link FrontmatterError}: YAML errors and warnings (tab indentation, bad escapes, bad
 * indentation, ...), duplicate keys, a document that is not a mapping, document markers and directives, anchors,
 * aliases and tags, keys that are not strings, `__proto__`, infinities and NaN (no JSON form), a lone carriage
 * return or a byte order mark, and nesting deeper than `maxDepth`.
 *
 * @example
 * parseFrontmatterYaml("name: pdf-processing\ndescription: Fill PDF forms"); // { name: "pdf-processing", ... }
 */
export function parseFrontmatterYaml(yaml: string, maxDepth = 32): { [key: string]: SkillJson } {
  const text = yaml.replaceAll("\r\n", "\n");
  if (text.includes("\r")) throw new FrontmatterError("a lone carriage return is refused");
  if (text.includes("\ufeff"))
    throw new FrontmatterError("a byte order mark inside the frontmatter is refused");
  const lines = new LineCounter();
  const lineOf = (offset: number | undefined) =>
    offset === undefined ? undefined : lines.linePos(offset).line;
  const marker = MARKER.exec(text);
  if (marker !== null)
    throw new FrontmatterError("document markers and directives are refused", lineOf(marker.index));
  const doc = parseDocument(text, { ...OPTIONS, lineCounter: lines });
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem !== undefined)
    throw new FrontmatterError(problem.message.split("\n")[0] ?? "", lineOf(problem.pos[0]));
  const root = doc.contents;
  if (root === null) throw new FrontmatterError("the frontmatter is empty; it must be a mapping");
  if (!isMap(root)) {
    throw new FrontmatterError("the frontmatter must be a mapping of keys to values", lineOf(root.range[0]));
  }
  return toJson(root, 1, maxDepth, lineOf) as { [key: string]: SkillJson };
}

/** The JSON of a parsed node, checking the frontmatter rules on the way. */
function toJson(
  node: ParsedNode | null,
  depth: number,
  maxDepth: number,
  lineOf: (offset: number | undefined) => number | undefined,
): SkillJson {
  if (node === null) return null;
  const line = lineOf(node.range?.[0]);
  if (isAlias(node) || (node as Node).anchor !== undefined || (node as Node).tag !== undefined) {
    throw new FrontmatterError("anchors, aliases and tags are refused", line);
  }
  if (isScalar(node)) {
    const value = node.value;
    if (typeof value === "number" && !Number.isFinite(value)) {
      throw new FrontmatterError(`"${node.source}" has no JSON value; quote it`, line);
    }
    return value as SkillJson;
  }
  if (depth > maxDepth) throw new FrontmatterError(`nesting deeper than ${maxDepth} levels is refused`, line);
  if (isSeq(node)) return node.items.map((item) => toJson(item, depth + 1, maxDepth, lineOf));
  if (!isMap(node)) throw new FrontmatterError("unexpected content", line);
  const out: { [key: string]: SkillJson } = {};
  for (const pair of node.items) {
    const key = pair.key;
    const keyLine = lineOf(key?.range?.[0]) ?? line;
    if (
      !isScalar(key) ||
      typeof key.value !== "string" ||
      key.anchor !== undefined ||
      key.tag !== undefined
    ) {
      throw new FrontmatterError(
        "keys must be plain strings (quote a key that reads as a number, bool or null)",
        keyLine,
      );
    }
    if (key.value === "__proto__") throw new FrontmatterError('the key "__proto__" is refused', keyLine);
    out[key.value] = toJson(pair.value, depth + 1, maxDepth, lineOf);
  }
  return out;
}

/** True when `text`, written as a plain YAML scalar, reads back as that same string. */
export function readsAsItself(text: string): boolean {
  try {
    return parse(text, OPTIONS) === text;
  } catch {
    return false;
  }
}
