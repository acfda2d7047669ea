import { FRONTMATTER_LIMITS, RESERVED_METADATA_PREFIX } from "./constants.js";
import type { SkillJson } from "./types.js";
import { FrontmatterError, parseFrontmatterYaml } from "./yaml.js";

/** Opening `---` line, the YAML, a closing `---` line (trailing blanks allowed), as the conformance harness reads it. */
const BLOCK = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** A `SKILL.md` taken apart: its frontmatter (parsed), the YAML text it came from, and the Markdown body. */
export interface ParsedSkillMd {
  frontmatter: { [key: string]: SkillJson };
  yaml: string;
  body: string;
}

/**
 * Splits and parses a `SKILL.md`: an optional BOM, a first line `---`, the YAML, a line `---`, then the body. LF
 * and CRLF both work. Throws {@link FrontmatterError} when there is no such block or its YAML is refused.
 *
 * @example
 * parseSkillMd("---\nname: pdf\ndescription: PDFs\n---\n# PDF\n").frontmatter; // { name: "pdf", ... }
 */
export function parseSkillMd(text: string, maxDepth?: number): ParsedSkillMd {
  const source = text.startsWith("\ufeff") ? text.slice(1) : text;
  const block = BLOCK.exec(source);
  if (block === null) {
    throw new FrontmatterError(
      'SKILL.md must start with a "---" line, its YAML frontmatter and a closing "---" line',
    );
  }
  const yaml = block[1] as string;
  try {
    return { frontmatter: parseFrontmatterYaml(yaml, maxDepth), yaml, body: source.slice(block[0].length) };
  } catch (error) {
    // Line numbers in the file: the YAML starts on line 2.
    if (error instanceof FrontmatterError && error.line !== undefined) {
      throw new FrontmatterError(error.message.replace(/^line \d+: /, ""), error.line + 1);
    }
    throw error;
  }
}

/** The Agent Skills name rule: 1-64 of `a-z`, `0-9`, `-`, no leading, trailing or doubled `-`. */
export const SKILL_NAME_PATTERN = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

const codePoints = (text: string) => [...text].length;

/**
 * What breaks the Agent Skills rules in a frontmatter object, one message per field: `name` (see
 * {@link SKILL_NAME_PATTERN}), `description` (1-1024 characters), `compatibility` (1-500), `metadata` (strings
 * to strings), `allowed-tools` (a string). With `reserved: "refuse"`, `metadata` keys under
 * `io.modelcontextprotocol/` are refused too (servers: SEP-2640 defines none); clients ignore them.
 */
export function frontmatterProblems(
  frontmatter: unknown,
  options: { reserved?: "refuse" | "ignore" } = {},
): string[] {
  if (typeof frontmatter !== "object" || frontmatter === null || Array.isArray(frontmatter)) {
    return ["frontmatter: must be an object"];
  }
  const fields = frontmatter as { [key: string]: unknown };
  const problems: string[] = [];
  const { name, description, compatibility, metadata } = fields;
  if (typeof name !== "string" || !SKILL_NAME_PATTERN.test(name)) {
    problems.push("frontmatter.name: must be 1-64 of a-z, 0-9 and single inner hyphens");
  }
  if (typeof description !== "string" || description === "") {
    problems.push("frontmatter.description: must be a non-empty string");
  } else if (codePoints(description) > FRONTMATTER_LIMITS.description) {
    problems.push(`frontmatter.description: longer than ${FRONTMATTER_LIMITS.description} characters`);
  }
  if (
    compatibility !== undefined &&
    (typeof compatibility !== "string" ||
      compatibility === "" ||
      codePoints(compatibility) > FRONTMATTER_LIMITS.compatibility)
  ) {
    problems.push(
      `frontmatter.compatibility: must be a string of 1-${FRONTMATTER_LIMITS.compatibility} characters`,
    );
  }
  if (metadata !== undefined) {
    const isMap = typeof metadata === "object" && metadata !== null && !Array.isArray(metadata);
    if (!isMap || Object.values(metadata).some((value) => typeof value !== "string")) {
      problems.push("frontmatter.metadata: must map strings to strings");
    } else if (options.reserved === "refuse") {
      const reserved = Object.keys(metadata).filter((key) => key.startsWith(RESERVED_METADATA_PREFIX));
      if (reserved.length > 0) {
        problems.push(
          `frontmatter.metadata: keys under ${RESERVED_METADATA_PREFIX} are reserved (${reserved.join(", ")})`,
        );
      }
    }
  }
  if (fields["allowed-tools"] !== undefined && typeof fields["allowed-tools"] !== "string") {
    problems.push("frontmatter.allowed-tools: must be a space-separated string");
  }
  return problems;
}

/**
 * Field-by-field differences between an entry's frontmatter and the one parsed from the `SKILL.md` it describes:
 * every key both ways, objects in any key order, arrays in order, no type coercion (the string `"1.0"` is not the
 * number `1`, a missing key is not `null`). Empty when they are identical.
 */
export function frontmatterDifferences(entry: unknown, file: unknown, path = "frontmatter"): string[] {
  if (Array.isArray(entry) && Array.isArray(file)) {
    if (entry.length !== file.length)
      return [`${path}: ${entry.length} items in the entry, ${file.length} in SKILL.md`];
    return entry.flatMap((item, i) => frontmatterDifferences(item, file[i], `${path}[${i}]`));
  }
  const isObject = (value: unknown): value is { [key: string]: unknown } =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  if (isObject(entry) && isObject(file)) {
    const keys = [...new Set([...Object.keys(entry), ...Object.keys(file)])].sort();
    return keys.flatMap((key) => {
      const inEntry = Object.hasOwn(entry, key);
      const inFile = Object.hasOwn(file, key);
      if (!inEntry || !inFile) return [`${path}.${key}: only in ${inEntry ? "the entry" : "SKILL.md"}`];
      return frontmatterDifferences(entry[key], file[key], `${path}.${key}`);
    });
  }
  if (entry === file) return [];
  return [
    `${path}: ${JSON.stringify(entry) ?? "undefined"} in the entry, ${JSON.stringify(file) ?? "undefined"} in SKILL.md`,
  ];
}
